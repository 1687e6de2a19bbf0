import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { UserService } from './service.js';
import { invitedUserResponse, inviteUserBody } from './schemas.js';

/** The operator invites a merchant's users (the first owner, typically). */
export const userAdminRoutes =
  ({ users }: { users: UserService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/accounts/:accountId/users',
      {
        schema: {
          tags: ['Operador: usuários do painel'],
          summary: 'Convida um usuário do painel para uma conta (link de uso único, 72 h)',
          security: [{ adminToken: [] }],
          params: z.object({ accountId: z.string() }),
          body: inviteUserBody,
          response: { 201: invitedUserResponse, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request, reply) => {
        if (!isId(request.params.accountId)) throw new InvalidRequestError(messages.accountIdInvalid);
        const { userId, inviteUrl, emailed, emailError } = await users.invite(request.params.accountId, request.body);
        if (emailed === 'failed') request.log.warn({ userId, err: emailError }, 'invitation e-mail failed; the link is in the response');
        return reply.code(201).send({ userId, inviteUrl });
      },
    );
  };
