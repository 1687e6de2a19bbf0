import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../platform/schemas.js';
import type { RecipientService } from './service.js';
import { approvedRecipientListResponse, createRecipientBody, recipientRegisteredResponse } from './schemas.js';

export const recipientRoutes =
  ({ recipients }: { recipients: RecipientService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/recipients',
      {
        schema: {
          tags: ['Destinatários'],
          summary: 'Cadastra um destinatário de saques a terceiros, para análise',
          description:
            'Idempotent by document: 201 when new (status pending_review); 200 when it already existed (pending_review, or active if already approved; a rejected or deactivated one goes back to review).',
          security: [{ apiKey: [] }],
          body: createRecipientBody,
          response: { 201: recipientRegisteredResponse, 200: recipientRegisteredResponse, ...errorResponses(400, 401, 403, 422, 429) },
        },
      },
      async (request, reply) => {
        const { outcome, ...registration } = await recipients.register(request.merchant.account.id, request.body);
        return reply.code(outcome === 'registered' ? 201 : 200).send(registration);
      },
    );

    app.get(
      '/recipients',
      {
        schema: {
          tags: ['Destinatários'],
          summary: 'Lista os destinatários aprovados (ativos), da aprovação mais recente à mais antiga',
          security: [{ apiKey: [] }],
          response: { 200: approvedRecipientListResponse, ...errorResponses(401, 403) },
        },
      },
      async (request) => recipients.listApproved(request.merchant.account.id),
    );
  };
