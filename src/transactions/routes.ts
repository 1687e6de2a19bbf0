import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { compiledSerializer } from '../platform/serialization.js';
import type { TransactionService } from './service.js';
import { presentTransaction } from './presenter.js';
import { listTransactionsQuery, transactionIdParams, transactionListResponse, transactionSchema } from './schemas.js';

export const transactionRoutes =
  ({ transactions }: { transactions: TransactionService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/transactions',
      {
        serializerCompiler: compiledSerializer,
        schema: {
          tags: ['Transações'],
          summary: 'Lista as transações, da mais recente à mais antiga; filtros e paginação por cursor',
          description: [
            'Without the optional parameters: the newest `limit` (default 50), as the spec describes, plus `hasMore`. With `startingAfter` = the last transactionId of a page: the next page in the same order (createdAt desc, transactionId desc). docs/history.md.',
            '',
            '400 messages:',
            ...[
              messages.transactionTypeInvalid('<valor>'),
              messages.listLimitInvalid,
              messages.startingAfterInvalid,
              messages.createdFromInvalid,
              messages.createdToInvalid,
              messages.createdRangeInvalid,
              messages.transactionStatusInvalid('<valor>'),
              messages.externalRefInvalid,
              messages.endToEndIdInvalid,
            ].map((text) => `- \`${text}\``),
          ].join('\n'),
          security: [{ apiKey: [] }],
          querystring: listTransactionsQuery,
          response: { 200: transactionListResponse, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => {
        const { rows, hasMore } = await transactions.page(request.merchant.account.id, request.query);
        return { transactions: rows.map(presentTransaction), count: rows.length, hasMore };
      },
    );

    app.get(
      '/transactions/:id',
      {
        serializerCompiler: compiledSerializer,
        schema: {
          tags: ['Transações'],
          summary: 'Consulta uma transação (status em tempo real)',
          security: [{ apiKey: [] }],
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        return presentTransaction(await transactions.get(request.merchant.account.id, request.params.id));
      },
    );
  };
