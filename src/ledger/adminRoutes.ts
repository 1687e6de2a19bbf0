import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAccountId, accountIdParams } from '../accounts/adminSchemas.js';
import { messages } from '../messages.js';
import { InvalidRequestError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { adjustmentBody, blockBody } from './schemas.js';
import type { LedgerService } from './service.js';

export const ledgerAdminRoutes =
  ({ ledger }: { ledger: LedgerService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: razão'], security: [{ adminToken: [] }] };

    app.post(
      '/accounts/:accountId/adjustments',
      {
        schema: {
          ...common,
          summary: 'Lança um ajuste com sinal no razão',
          params: accountIdParams,
          body: adjustmentBody,
          response: {
            201: z.object({
              adjustmentId: z.string(),
              accountId: z.string(),
              amountCents: z.int(),
              reason: z.string(),
              available: z.int(),
              createdAt: z.int(),
            }),
            ...errorResponses(400, 401, 404, 422),
          },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await ledger.adjust(requireAccountId(request.params.accountId), request.body.amountCents, request.body.reason)),
    );

    app.get(
      '/accounts/:accountId/balance',
      {
        schema: {
          ...common,
          summary: 'Saldo com os bloqueios ativos e o valor sacável',
          params: accountIdParams,
          response: {
            200: z.object({ available: z.int(), blocked: z.int(), withdrawable: z.int(), owed: z.int(), shortfall: z.int() }),
            ...errorResponses(400, 401, 404),
          },
        },
      },
      async (request) => ledger.balance(requireAccountId(request.params.accountId)),
    );

    app.post(
      '/accounts/:accountId/blocks',
      {
        schema: {
          ...common,
          summary: 'Cria um bloqueio cautelar (reduz o valor sacável, não o `available`)',
          params: accountIdParams,
          body: blockBody,
          response: {
            201: z.object({
              blockId: z.string(),
              accountId: z.string(),
              amountCents: z.int(),
              reason: z.string(),
              status: z.literal('active'),
              createdAt: z.int(),
            }),
            ...errorResponses(400, 401, 404),
          },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await ledger.createBlock(requireAccountId(request.params.accountId), request.body.amountCents, request.body.reason)),
    );

    app.delete(
      '/blocks/:blockId',
      {
        schema: {
          ...common,
          summary: 'Libera um bloqueio',
          description: "422 for a cautionary block: it ends with its charge's hold (POST /admin/v1/transactions/{id}/hold/release).",
          params: z.object({ blockId: z.string() }),
          response: { 204: z.null(), ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request, reply) => {
        if (!isId(request.params.blockId)) throw new InvalidRequestError(messages.blockIdInvalid);
        await ledger.releaseBlock(request.params.blockId);
        return reply.code(204).send(null);
      },
    );
  };
