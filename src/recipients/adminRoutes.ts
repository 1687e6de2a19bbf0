import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireAccountId } from '../accounts/adminSchemas.js';
import { messages } from '../messages.js';
import { InvalidRequestError } from '../errors.js';
import { errorResponses } from '../platform/schemas.js';
import type { RecipientService } from './service.js';
import {
  approveRecipientBody,
  operatorRecipientListQuery,
  operatorRecipientListResponse,
  operatorRecipientSchema,
  recipientParams,
  recipientReasonBody,
} from './schemas.js';
import { isRecipientId } from './service.js';

function requireRecipientId(recipientId: string): string {
  if (!isRecipientId(recipientId)) throw new InvalidRequestError(messages.recipientIdInvalid);
  return recipientId;
}

/** The service team's review of recipients (DESIGN.md §6). */
export const recipientAdminRoutes =
  ({ recipients }: { recipients: RecipientService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: destinatários'], security: [{ adminToken: [] }] };
    const transitionResponses = { 200: operatorRecipientSchema, ...errorResponses(400, 401, 404, 422) };

    app.get(
      '/recipients',
      {
        schema: {
          ...common,
          summary: 'Destinatários de um status (padrão pending_review), de todas as contas ou de uma; da alteração mais antiga à mais recente',
          querystring: operatorRecipientListQuery,
          response: { 200: operatorRecipientListResponse, ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        const { status, accountId } = request.query;
        return recipients.listForOperator({ status, accountId: accountId === undefined ? undefined : requireAccountId(accountId) });
      },
    );

    app.post(
      '/accounts/:accountId/recipients/:recipientId/approve',
      {
        schema: {
          ...common,
          summary: 'Aprova um destinatário em análise (status active); label = o apelido que o lojista verá',
          params: recipientParams,
          body: approveRecipientBody,
          response: transitionResponses,
        },
      },
      async (request) =>
        recipients.approve(requireAccountId(request.params.accountId), requireRecipientId(request.params.recipientId), request.body?.label ?? null),
    );

    app.post(
      '/accounts/:accountId/recipients/:recipientId/reject',
      {
        schema: { ...common, summary: 'Recusa um destinatário em análise', params: recipientParams, body: recipientReasonBody, response: transitionResponses },
      },
      async (request) =>
        recipients.reject(requireAccountId(request.params.accountId), requireRecipientId(request.params.recipientId), request.body?.reason || null),
    );

    app.post(
      '/accounts/:accountId/recipients/:recipientId/deactivate',
      {
        schema: {
          ...common,
          summary: 'Desativa um destinatário ativo (compliance): deixa de ser listado e de poder receber saques',
          params: recipientParams,
          body: recipientReasonBody,
          response: transitionResponses,
        },
      },
      async (request) =>
        recipients.deactivate(requireAccountId(request.params.accountId), requireRecipientId(request.params.recipientId), request.body?.reason || null),
    );
  };
