import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { ChargeService } from './service.js';
import { presentTransaction } from '../transactions/presenter.js';
import { transactionIdParams, transactionSchema } from '../transactions/schemas.js';

export const chargeAdminRoutes =
  ({ charges }: { charges: ChargeService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/transactions/:id/cancel',
      {
        schema: {
          tags: ['Operador: cobranças'],
          summary: 'Cancela a cobrança pendente de qualquer lojista',
          security: [{ adminToken: [] }],
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        return presentTransaction(await charges.cancelCharge(request.params.id));
      },
    );
  };
