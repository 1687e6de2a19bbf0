import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { qrImageQuery } from '../charges/schemas.js';
import { NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { presentStaticQr } from './presenter.js';
import { createStaticQrBody, idempotentStaticQrSchema, staticQrIdParams, staticQrSchema } from './schemas.js';
import type { StaticQrService } from './service.js';
import { z } from 'zod';

/** A code id as the service takes it: a malformed one is simply not found. */
const codeIdOf = (id: string) => {
  if (!isId(id)) throw new NotFoundError(messages.staticQrNotFound);
  return id;
};

export const staticQrRoutes =
  ({ staticQr }: { staticQr: StaticQrService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['QR Codes estáticos'], security: [{ apiKey: [] }] };

    app.post(
      '/pix/static',
      {
        schema: {
          ...common,
          summary: 'Cria um QR Code estático',
          description:
            'A reusable BR Code (optionally with a fixed amount, a description and a txid): every PIX paid to it is a new pix_in transaction, created paid, with transaction.paid. With an externalRef already used, answers 200 with that code and idempotent: true.',
          body: createStaticQrBody,
          response: { 201: staticQrSchema, 200: idempotentStaticQrSchema, ...errorResponses(400, 401, 403, 422) },
        },
      },
      async (request, reply) => {
        const { outcome, code } = await staticQr.create(request.merchant.account, request.body);
        if (outcome === 'replayed') return reply.code(200).send({ ...presentStaticQr(code), idempotent: true as const });
        return reply.code(201).send(presentStaticQr(code));
      },
    );

    app.get(
      '/pix/static',
      {
        schema: {
          ...common,
          summary: 'QR Codes estáticos da conta, do mais recente ao mais antigo (no máximo 100)',
          response: { 200: z.object({ codes: z.array(staticQrSchema) }), ...errorResponses(401, 403) },
        },
      },
      async (request) => ({ codes: (await staticQr.list(request.merchant.account.id)).map(presentStaticQr) }),
    );

    app.get(
      '/pix/static/:id',
      {
        schema: {
          ...common,
          summary: 'Consulta um QR Code estático',
          params: staticQrIdParams,
          response: { 200: staticQrSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => presentStaticQr(await staticQr.get(request.merchant.account.id, codeIdOf(request.params.id))),
    );

    app.post(
      '/pix/static/:id/deactivate',
      {
        schema: {
          ...common,
          summary: 'Desativa um QR Code estático',
          description: 'It takes no PIX any more (the sandbox refuses to pay it with 422). 422 when it is already inactive.',
          params: staticQrIdParams,
          response: { 200: staticQrSchema, ...errorResponses(401, 403, 404, 422) },
        },
      },
      async (request) => presentStaticQr(await staticQr.deactivate(request.merchant.account.id, codeIdOf(request.params.id))),
    );

    app.get(
      '/pix/static/:id/qrcode',
      {
        schema: {
          ...common,
          summary: 'Imagem do QR Code (PNG ou SVG)',
          description: 'As GET /v1/pix/{id}/qrcode: 200 image/png (default) or image/svg+xml; errors as { error }: 400 (format, size), 401, 403, 404.',
          params: staticQrIdParams,
          querystring: qrImageQuery,
          produces: ['image/png', 'image/svg+xml'],
        },
      },
      async (request, reply) => {
        const image = await staticQr.qrImage(request.merchant.account.id, codeIdOf(request.params.id), request.query.format ?? 'png', request.query.size);
        return reply.type(image.contentType).header('cache-control', 'private, max-age=3600').send(image.body);
      },
    );
  };
