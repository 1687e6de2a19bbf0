import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../platform/schemas.js';
import type { OperatorService } from './service.js';
import { invitedOperatorResponse, inviteOperatorBody } from './schemas.js';

/** Operator users of the back-office, invited with the admin token (the first one on a server database). */
export const operatorAdminRoutes =
  ({ operators }: { operators: OperatorService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/operators',
      {
        schema: {
          tags: ['Operador: usuários do back-office'],
          summary: 'Convida um operador do back-office (admin, compliance ou suporte): link de uso único, 72 h',
          security: [{ adminToken: [] }],
          body: inviteOperatorBody,
          response: { 201: invitedOperatorResponse, ...errorResponses(400, 401, 422) },
        },
      },
      async (request, reply) => reply.code(201).send(await operators.invite(request.body)),
    );
  };
