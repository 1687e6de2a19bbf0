import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messages } from '../messages.js';
import { InvalidRequestError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { transactionIdParams, transactionSchema } from '../transactions/schemas.js';
import type { Services } from '../services.js';

const alertSchema = z.object({
  alertId: z.string(),
  accountId: z.string(),
  kind: z.string(),
  /** `high`: the operator must act (money completed after its reversal and not covered, an outcome unknown past 24 hours). */
  severity: z.enum(['normal', 'high']),
  transactionId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.int(),
});

export const withdrawalAdminRoutes =
  ({ withdrawals }: Pick<Services, 'withdrawals'>): FastifyPluginAsyncZod =>
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

    app.get(
      '/alerts',
      {
        schema: {
          ...common,
          summary: 'Internal alerts (third-party withdrawals, …), newest first',
          querystring: z.object({ accountId: z.string().optional() }),
          response: { 200: z.object({ alerts: z.array(alertSchema) }), ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        const accountId = request.query.accountId;
        if (accountId !== undefined && !isId(accountId)) throw new InvalidRequestError(messages.accountIdInvalid);
        return { alerts: await withdrawals.listAlerts(accountId) };
      },
    );
  };
