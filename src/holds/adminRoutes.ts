import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { transactionIdParams, transactionSchema } from '../transactions/schemas.js';
import type { HoldService } from './service.js';

/** The PSP's return as the operator records it: the end-to-end id of the PIX that gave the money back. */
const returnHoldBody = z.object(
  {
    refundEndToEndId: z
      .string({ error: messages.endToEndIdInvalid })
      .regex(/^[a-zA-Z0-9]{32}$/, messages.endToEndIdInvalid)
      .meta({ description: "The return's PIX as the PSP reports it (32 letters and digits)." }),
  },
  { error: messages.bodyNotObject },
);

function requireTransactionId(id: string): string {
  if (!isId(id)) throw new InvalidRequestError(messages.transactionIdInvalid);
  return id;
}

/**
 * The service team records what a PSP decided on a held PIX (cautionary block) when it is told
 * out of band (the PSP's API has no field for it: docs/refunds.md); audited as every operator action.
 */
export const holdAdminRoutes =
  ({ holds }: { holds: HoldService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: cobranças'], security: [{ adminToken: [] }] };

    app.post(
      '/transactions/:id/hold/release',
      {
        schema: {
          ...common,
          summary: 'O PSP liberou um PIX retido (bloqueio cautelar): o bloqueio termina, transaction.hold_released',
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request) => presentTransaction(await holds.release(requireTransactionId(request.params.id))),
    );

    app.post(
      '/transactions/:id/hold/return',
      {
        schema: {
          ...common,
          summary:
            'O PSP devolveu ao pagador um PIX retido: o movimento do pagamento é estornado, tarifa incluída; devolução cautionary_return, transaction.refunded',
          params: transactionIdParams,
          body: returnHoldBody,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request) => {
        const { charge } = await holds.returnHeld(requireTransactionId(request.params.id), request.body.refundEndToEndId);
        return presentTransaction(charge);
      },
    );
  };
