import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messages } from '../messages.js';
import { ApiError } from '../platform/errors.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { compiledSerializer } from '../platform/serialization.js';
import type { Services } from '../services.js';
import { presentTransaction } from './presenter.js';
import * as repository from './repository.js';
import { listTransactionsQuery, transactionIdParams, transactionListResponse, transactionSchema } from './schemas.js';

export const transactionRoutes =
  ({ db }: Services): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/transactions',
      {
        serializerCompiler: compiledSerializer,
        schema: {
          tags: ['Transactions'],
          summary: 'List transactions, most recent first',
          security: [{ apiKey: [] }],
          querystring: listTransactionsQuery,
          response: { 200: transactionListResponse, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => {
        const rows = await repository.listTransactions(db, request.merchant.account.id, request.query);
        return { transactions: rows.map(presentTransaction), count: rows.length };
      },
    );

    app.get(
      '/transactions/:id',
      {
        serializerCompiler: compiledSerializer,
        schema: {
          tags: ['Transactions'],
          summary: 'Read one transaction (real-time status)',
          security: [{ apiKey: [] }],
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new ApiError(400, messages.transactionIdInvalid);
        // Another merchant's transaction is simply not found (spec: 404, not 403).
        const row = await repository.findPresentedTransaction(db, request.merchant.account.id, request.params.id);
        if (!row) throw new ApiError(404, messages.transactionNotFound);
        return presentTransaction(row);
      },
    );
  };
