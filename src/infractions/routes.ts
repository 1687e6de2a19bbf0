import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../platform/schemas.js';
import type { InfractionService } from './service.js';
import { presentInfraction } from './presenter.js';
import { defenseBody, requireInfractionId, infractionIdParams, infractionListResponse, infractionSchema, listInfractionsQuery } from './schemas.js';

/** The merchant's side of MED cases: read them, defend them. */
export const infractionRoutes =
  ({ infractions }: { infractions: InfractionService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Disputas MED'], security: [{ apiKey: [] }] };

    app.get(
      '/infractions',
      {
        schema: {
          ...common,
          summary: 'Casos MED nas suas cobranças, do mais recente ao mais antigo',
          querystring: listInfractionsQuery,
          response: { 200: infractionListResponse, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => {
        const { rows, hasMore } = await infractions.list(request.merchant.account.id, request.query);
        return { infractions: rows.map(presentInfraction), count: rows.length, hasMore };
      },
    );

    app.get(
      '/infractions/:id',
      {
        schema: {
          ...common,
          summary: 'Consulta um caso MED',
          params: infractionIdParams,
          response: { 200: infractionSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => presentInfraction(await infractions.get(request.merchant.account.id, requireInfractionId(request.params.id))),
    );

    app.post(
      '/infractions/:id/defense',
      {
        schema: {
          ...common,
          summary: 'Contesta um caso MED aberto antes do prazo de defesa',
          params: infractionIdParams,
          body: defenseBody,
          response: { 200: infractionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => presentInfraction(await infractions.defend(request.merchant.account.id, requireInfractionId(request.params.id), request.body.text)),
    );
  };
