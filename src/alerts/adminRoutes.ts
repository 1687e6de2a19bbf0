import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { AlertService } from './service.js';

const alertSchema = z.object({
  alertId: z.string(),
  accountId: z.string().nullable().meta({ description: 'Null for an alert of the platform itself (a reconciliation difference).' }),
  kind: z.string(),
  /** `high`: the operator must act (money completed after its reversal and not covered, an outcome unknown past 24 hours). */
  severity: z.enum(['normal', 'high']),
  transactionId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.int(),
});

export const alertAdminRoutes =
  ({ alerts }: { alerts: AlertService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: alertas'], security: [{ adminToken: [] }] };

    app.get(
      '/alerts',
      {
        schema: {
          ...common,
          summary: 'Alertas internos (saques a terceiros, …), do mais recente ao mais antigo',
          querystring: z.object({ accountId: z.string().optional() }),
          response: { 200: z.object({ alerts: z.array(alertSchema) }), ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        const accountId = request.query.accountId;
        if (accountId !== undefined && !isId(accountId)) throw new InvalidRequestError(messages.accountIdInvalid);
        return { alerts: await alerts.list(accountId) };
      },
    );
  };
