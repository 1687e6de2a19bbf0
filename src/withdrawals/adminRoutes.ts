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
    const common = { tags: ['Operator: withdrawals'], security: [{ adminToken: [] }] };
    const requireId = (id: string) => {
      if (!isId(id)) throw new InvalidRequestError(messages.transactionIdInvalid);
      return id;
    };

    app.post(
      '/transactions/:id/approve',
      {
        schema: {
          ...common,
          summary: 'Approve a manual-mode withdrawal (debits, then sends it)',
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
          summary: 'Reject a manual-mode withdrawal (nothing was debited; it ends cancelled)',
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request) => presentTransaction(await withdrawals.reject(requireId(request.params.id))),
    );
  };
