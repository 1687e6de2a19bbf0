import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messages } from '../messages.js';
import { errorResponses } from '../platform/schemas.js';
import type { TransactionRow } from '../platform/schema.js';
import type { WithdrawalService } from './service.js';
import { createWithdrawalBody, idempotentWithdrawalResponse, indeterminateWithdrawalResponse, withdrawalBodyFor, withdrawalResponse } from './schemas.js';

const summary = (row: TransactionRow) => ({
  transactionId: row.id,
  status: row.status,
  amountCents: row.amountCents,
  feeCents: row.feeCents,
  totalDeducted: row.amountCents + row.feeCents,
});

/** The body is not validated before the handler: the spec's order puts the account's own limits right after the amount rule. */
const acceptAsIs = () => (value: unknown) => ({ value });

export const withdrawalRoutes =
  ({ withdrawals }: { withdrawals: WithdrawalService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/withdraw',
      {
        // Parsed once, in the handler, with the schema of the account's limits; the schema here documents it.
        validatorCompiler: acceptAsIs,
        schema: {
          tags: ['Saques'],
          summary: 'Inicia um saque PIX',
          description:
            "Mode 1 (no recipientId): to the holder's own CPF/CNPJ. Mode 2: to an approved recipient. With an externalRef already used, answers 200 with the original withdrawal.",
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
        const { outcome, withdrawal } = await withdrawals.createWithdrawal(account, input);
        switch (outcome) {
          case 'created':
            return reply.code(201).send(summary(withdrawal));
          case 'replayed':
            return reply.code(200).send({ ...summary(withdrawal), idempotent: true as const });
          case 'indeterminate':
            return reply.code(202).send({ error: messages.withdrawalIndeterminate, transactionId: withdrawal.id, status: 'failed_unknown' as const });
        }
      },
    );
  };
