import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../platform/schemas.js';
import type { Services } from '../services.js';
import { resolveDestination } from './destination.js';
import { createWithdrawalBody, idempotentWithdrawalResponse, indeterminateWithdrawalResponse, withdrawalBodyFor, withdrawalResponse } from './schemas.js';

export const withdrawalRoutes =
  ({ withdrawals, recipients, config }: Services): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/withdraw',
      {
        // The body is checked in the handler against the account's own amount limits (the spec's
        // order puts them right after the amount rule); the schema here documents it.
        attachValidation: true,
        schema: {
          tags: ['Withdrawals'],
          summary: 'Start a PIX withdrawal',
          description:
            'Mode 1 (no recipientId): to the holder\'s own CPF/CNPJ. Mode 2: to an approved recipient. With an externalRef already used, answers 200 with the original withdrawal.',
          security: [{ apiKey: [] }],
          body: createWithdrawalBody,
          response: {
            201: withdrawalResponse,
            200: idempotentWithdrawalResponse,
            202: indeterminateWithdrawalResponse,
            ...errorResponses(400, 401, 403, 404, 422, 429, 502),
          },
        },
      },
      async (request, reply) => {
        const { account } = request.merchant;
        const input = withdrawalBodyFor(account.limits).parse(request.body);
        const destination = await resolveDestination(account, input, (accountId, recipientId) => recipients.findRecipient(accountId, recipientId), config.serviceName);
        const result = await withdrawals.createWithdrawal(account, input, destination);
        return reply.code(result.statusCode).send(result.body as never);
      },
    );
  };
