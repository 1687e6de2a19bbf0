import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { ChargeService } from './service.js';
import { presentTransaction } from '../transactions/presenter.js';
import { transactionIdParams, transactionSchema } from '../transactions/schemas.js';
import { createChargeBody, createdChargeResponse, idempotentChargeResponse, qrImageQuery } from './schemas.js';

export const chargeRoutes =
  ({ charges }: { charges: ChargeService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/pix',
      {
        schema: {
          tags: ['Charges'],
          summary: 'Create a dynamic PIX charge',
          description: 'Returns the copy-and-paste BR Code. With an externalRef already used in the last 7 days, answers 200 with the original charge.',
          security: [{ apiKey: [] }],
          body: createChargeBody,
          response: { 201: createdChargeResponse, 200: idempotentChargeResponse, ...errorResponses(400, 401, 403, 429, 502) },
        },
      },
      async (request, reply) => {
        const { outcome, charge } = await charges.createCharge(request.merchant.account, request.body);
        const body = { ...charge, expiresAt: Math.floor(charge.expiresAt.getTime() / 1000) };
        if (outcome === 'replayed') return reply.code(200).send({ ...body, idempotent: true as const });
        return reply.code(201).send({ ...body, status: 'pending' as const });
      },
    );

    app.post(
      '/pix/:id/cancel',
      {
        schema: {
          tags: ['Charges'],
          summary: 'Cancel a pending charge',
          description: 'A payment that still arrives for it is returned to the payer in full, never credited.',
          security: [{ apiKey: [] }],
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        return presentTransaction(await charges.cancelCharge(request.params.id, request.merchant.account.id));
      },
    );

    app.get(
      '/pix/:id/qrcode',
      {
        schema: {
          tags: ['Charges'],
          summary: "The charge's QR image (PNG or SVG) of its pixPayload",
          description:
            'Answers 200 image/png (default) or image/svg+xml, an image that decodes to the exact pixPayload; errors as { error }: 400 (format, size, transactionId), 401, 403, 404.',
          security: [{ apiKey: [] }],
          params: transactionIdParams,
          querystring: qrImageQuery,
        },
      },
      async (request, reply) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        const image = await charges.qrImage(request.merchant.account.id, request.params.id, request.query.format ?? 'png', request.query.size);
        return reply.type(image.contentType).header('cache-control', 'private, max-age=3600').send(image.body);
      },
    );
  };
