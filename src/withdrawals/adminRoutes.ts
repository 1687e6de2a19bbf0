import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messages } from '../messages.js';
import { InvalidRequestError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { transactionIdParams, transactionSchema } from '../transactions/schemas.js';
import type { WithdrawalService } from './service.js';

export const withdrawalAdminRoutes =
  ({ withdrawals }: { withdrawals: WithdrawalService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: saques'], security: [{ adminToken: [] }] };
    const requireId = (id: string) => {
      if (!isId(id)) throw new InvalidRequestError(messages.transactionIdInvalid);
      return id;
    };

    app.post(
      '/transactions/:id/approve',
      {
        schema: {
          ...common,
          summary: 'Aprova um saque em modo manual (debita e depois envia)',
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 404, 422, 502) },
        },
      },
      async (request) => presentTransaction(await withdrawals.approve(requireId(request.params.id))),
    );

    app.post(
      '/transactions/:id/reject',
      {
        schema: {
          ...common,
          summary: 'Recusa um saque em modo manual (nada foi debitado; termina cancelado)',
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request) => presentTransaction(await withdrawals.reject(requireId(request.params.id))),
    );
  };
