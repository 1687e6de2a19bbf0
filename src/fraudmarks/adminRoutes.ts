import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { ADMIN_TOKEN_ACTOR } from '../platform/adminAuth.js';
import { isId } from '../platform/ids.js';
import { errorResponses, hasMoreField } from '../platform/schemas.js';
import { fraudMarkBody, fraudMarkListQuery, fraudMarkSchema } from './schemas.js';
import type { FraudMarkService } from './service.js';

/** The operators' list of fraud-marked keys and documents (DESIGN.md §19); every change is audited by the /admin/v1 hook. */
export const fraudMarkAdminRoutes =
  ({ fraudMarks }: { fraudMarks: FraudMarkService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: marcações de fraude'], security: [{ adminToken: [] }] };

    app.post(
      '/fraud-marks',
      {
        schema: {
          ...common,
          summary: 'Marca uma chave ou um documento: saques e destinatários para ele são recusados, PIX recebidos dele ficam retidos',
          body: fraudMarkBody,
          response: { 201: fraudMarkSchema, ...errorResponses(400, 401, 422) },
        },
      },
      async (request, reply) => reply.code(201).send(await fraudMarks.add(request.body, request.auditActor ?? ADMIN_TOKEN_ACTOR)),
    );

    app.get(
      '/fraud-marks',
      {
        schema: {
          ...common,
          summary: 'Marcações ativas, da mais recente à mais antiga',
          querystring: fraudMarkListQuery,
          response: { 200: z.object({ marks: z.array(fraudMarkSchema), count: z.int(), hasMore: hasMoreField }), ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        const { limit, before } = request.query;
        if (before !== undefined && !isId(before)) throw new InvalidRequestError(messages.fraudMarkCursorInvalid);
        const { marks, hasMore } = await fraudMarks.list({ limit, before });
        return { marks, count: marks.length, hasMore };
      },
    );

    app.delete(
      '/fraud-marks/:id',
      {
        schema: {
          ...common,
          summary: 'Remove uma marcação: a partir daí nada é recusado (fica guardada, com quem a removeu)',
          params: z.object({ id: z.string() }),
          response: { 204: z.null(), ...errorResponses(400, 401, 404) },
        },
      },
      async (request, reply) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.fraudMarkIdInvalid);
        request.auditBefore = await fraudMarks.remove(request.params.id, request.auditActor ?? ADMIN_TOKEN_ACTOR);
        return reply.code(204).send(null);
      },
    );
  };
