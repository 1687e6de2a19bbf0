import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { presentTransaction } from './presenter.js';
import { operatorTransactionSchema, transactionIdParams } from './schemas.js';
import type { TransactionService } from './service.js';

export const transactionAdminRoutes =
  ({ transactions }: { transactions: TransactionService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/transactions/:id',
      {
        schema: {
          tags: ['Operador: transações'],
          summary: 'Consulta a transação de qualquer conta, com a conta e o provedor',
          security: [{ adminToken: [] }],
          params: transactionIdParams,
          response: { 200: operatorTransactionSchema, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        const row = await transactions.getForOperator(request.params.id);
        return { ...presentTransaction(row), accountId: row.accountId, providerId: row.providerId };
      },
    );
  };
