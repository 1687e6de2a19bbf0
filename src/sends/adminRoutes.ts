import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { ProviderSendService } from './service.js';

const sendSchema = z.object({
  sendId: z.string().describe("The withdrawal's transactionId or the refundId: the id under which the PSP deduplicates the send."),
  kind: z.enum(['withdrawal', 'refund']),
  accountId: z.string(),
  state: z.enum(['unsent', 'sent', 'watching', 'owed', 'closed']),
  acknowledged: z.boolean(),
  attempts: z.int(),
  checks: z.int(),
  nextCheckAt: z.int().nullable(),
  deadlineAt: z.int(),
  escalatedAt: z.int().nullable(),
  blockId: z.string().nullable(),
  createdAt: z.int(),
  history: z.array(z.object({ at: z.string(), step: z.enum(['send', 'check', 'decision']), answer: z.string(), detail: z.string().optional() })),
});

/** The operator's view of sends to the PSP whose outcome needs a person (docs/providers.md "Unknown outcomes"). */
export const providerSendAdminRoutes =
  ({ providerSends }: { providerSends: ProviderSendService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: envios aos PSPs'], security: [{ adminToken: [] }] };
    app.get(
      '/provider-sends',
      {
        schema: {
          ...common,
          summary: 'Envios sem resultado há mais de 24 horas e débitos devidos após uma conclusão tardia, do mais antigo ao mais recente',
          response: { 200: z.object({ sends: z.array(sendSchema) }), ...errorResponses(401) },
        },
      },
      async () => ({ sends: await providerSends.needingOperator() }),
    );
    app.get(
      '/provider-sends/:id',
      {
        schema: {
          ...common,
          summary: 'Envio de um saque ou devolução com suas tentativas, verificações e decisões',
          params: z.object({ id: z.string() }),
          response: { 200: sendSchema, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.providerSendIdInvalid);
        return providerSends.find(request.params.id);
      },
    );
  };
