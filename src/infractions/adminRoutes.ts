import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { InfractionService } from './service.js';
import { transactionIdParams } from '../transactions/schemas.js';
import { presentInfraction } from './presenter.js';
import { requireInfractionId, acceptInfractionBody, infractionIdParams, infractionSchema, openInfractionBody } from './schemas.js';

/** The service team's side of MED cases: open one, analyse it, close it either way. */
export const infractionAdminRoutes =
  ({ infractions }: { infractions: InfractionService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: disputas MED'], security: [{ adminToken: [] }] };

    app.post(
      '/transactions/:id/infractions',
      {
        schema: {
          ...common,
          summary: 'Abre um caso MED em uma cobrança paga (bloqueia o valor)',
          params: transactionIdParams,
          body: openInfractionBody,
          response: { 201: infractionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request, reply) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        const opened = await infractions.open(request.params.id, request.body);
        return reply.code(201).send(presentInfraction(opened));
      },
    );

    app.post(
      '/infractions/:id/analysis',
      {
        schema: {
          ...common,
          summary: 'Inicia a análise de um caso MED',
          params: infractionIdParams,
          response: { 200: infractionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request) => presentInfraction(await infractions.analyze(requireInfractionId(request.params.id))),
    );

    app.post(
      '/infractions/:id/reject',
      {
        schema: {
          ...common,
          summary: 'Encerra um caso MED a favor do lojista (bloqueio liberado)',
          params: infractionIdParams,
          response: { 200: infractionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request) => presentInfraction(await infractions.reject(requireInfractionId(request.params.id))),
    );

    app.post(
      '/infractions/:id/accept',
      {
        schema: {
          ...common,
          summary: 'Encerra um caso MED contra o lojista: devolução debitada, bloqueio liberado',
          params: infractionIdParams,
          body: acceptInfractionBody,
          response: { 200: infractionSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request) => presentInfraction(await infractions.accept(requireInfractionId(request.params.id), request.body?.amountCents)),
    );
  };
