import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { RefundService } from './service.js';
import { transactionIdParams } from '../transactions/schemas.js';
import { presentRefund } from './presenter.js';
import { createRefundBody, idempotentRefundSchema, refundListResponse, refundSchema } from './schemas.js';

export const refundRoutes =
  ({ refunds }: { refunds: RefundService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Devoluções'], security: [{ apiKey: [] }] };
    const requireId = (id: string) => {
      if (!isId(id)) throw new InvalidRequestError(messages.transactionIdInvalid);
      return id;
    };

    app.post(
      '/transactions/:id/refunds',
      {
        schema: {
          ...common,
          summary: 'Devolve uma cobrança paga, total ou parcialmente',
          description:
            'Debits the amount from the withdrawable balance at once (credited back if the refund fails); the fee is kept. With an externalRef already used in the last 7 days, answers 200 with that refund.',
          params: transactionIdParams,
          body: createRefundBody,
          response: { 201: refundSchema, 200: idempotentRefundSchema, ...errorResponses(400, 401, 403, 404, 422, 502) },
        },
      },
      async (request, reply) => {
        const body = request.body ?? {};
        const { outcome, refund } = await refunds.create(request.merchant.account.id, requireId(request.params.id), {
          amountCents: body.amountCents,
          externalRef: body.externalRef ?? undefined,
          reason: body.reason ?? undefined,
        });
        if (outcome === 'replayed') return reply.code(200).send({ ...presentRefund(refund), idempotent: true as const });
        return reply.code(201).send(presentRefund(refund));
      },
    );

    app.get(
      '/transactions/:id/refunds',
      {
        schema: {
          ...common,
          summary: 'Devoluções de uma cobrança, da mais recente à mais antiga',
          params: transactionIdParams,
          response: { 200: refundListResponse, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const rows = await refunds.list(request.merchant.account.id, requireId(request.params.id));
        return { refunds: rows.map(presentRefund), count: rows.length, hasMore: false };
      },
    );
  };
