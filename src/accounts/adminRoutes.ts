import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messages } from '../messages.js';
import { InvalidRequestError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { AccountService } from './service.js';
import { accountIdParams, requireAccountId, accountResponse, apiKeyAllowlistBody, createAccountBody, keyIdParams, patchAccountBody } from './adminSchemas.js';
import { presentAccount } from './model.js';

function requireKeyId(keyId: string): string {
  if (!isId(keyId)) throw new InvalidRequestError(messages.keyIdInvalid);
  return keyId;
}

export const accountAdminRoutes =
  ({ accounts }: { accounts: AccountService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: contas'], security: [{ adminToken: [] }] };

    app.post(
      '/accounts',
      { schema: { ...common, summary: 'Cria uma conta de lojista', body: createAccountBody, response: { 201: accountResponse, ...errorResponses(400, 401) } } },
      async (request, reply) => reply.code(201).send(presentAccount(await accounts.createAccount(request.body))),
    );

    app.get(
      '/accounts/:accountId',
      {
        schema: {
          ...common,
          summary: 'Consulta uma conta com seus limites e planos de tarifas',
          params: accountIdParams,
          response: { 200: accountResponse, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => presentAccount(await accounts.getAccount(requireAccountId(request.params.accountId))),
    );

    app.patch(
      '/accounts/:accountId',
      {
        schema: {
          ...common,
          summary: 'Altera KYC, bloqueio, modo, IPs permitidos, limites ou tarifas (objetos mesclados campo a campo)',
          params: accountIdParams,
          body: patchAccountBody,
          response: { 200: accountResponse, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const accountId = requireAccountId(request.params.accountId);
        request.auditBefore = presentAccount(await accounts.getAccount(accountId));
        return presentAccount(await accounts.patchAccount(accountId, request.body));
      },
    );

    app.post(
      '/accounts/:accountId/api-keys',
      {
        schema: {
          ...common,
          summary: 'Cria uma chave de API (a chave completa aparece uma única vez)',
          params: accountIdParams,
          response: { 201: z.object({ keyId: z.string(), apiKey: z.string(), prefix: z.string() }), ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request, reply) => reply.code(201).send(await accounts.createApiKey(requireAccountId(request.params.accountId))),
    );

    app.delete(
      '/api-keys/:keyId',
      { schema: { ...common, summary: 'Revoga uma chave de API', params: keyIdParams, response: { 204: z.null(), ...errorResponses(400, 401, 404) } } },
      async (request, reply) => {
        await accounts.revokeApiKey(requireKeyId(request.params.keyId));
        return reply.code(204).send(null);
      },
    );

    app.patch(
      '/api-keys/:keyId',
      {
        schema: {
          ...common,
          summary: 'Define a lista de IPs permitidos de uma chave (substitui a da conta para essa chave)',
          params: keyIdParams,
          body: apiKeyAllowlistBody,
          response: {
            200: z.object({ keyId: z.string(), accountId: z.string(), prefix: z.string(), ipAllowlist: z.array(z.string()).nullable(), revoked: z.boolean() }),
            ...errorResponses(400, 401, 404),
          },
        },
      },
      async (request) => accounts.setApiKeyAllowlist(requireKeyId(request.params.keyId), request.body.ipAllowlist),
    );
  };
