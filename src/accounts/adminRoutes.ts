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
    const common = { tags: ['Operator: accounts'], security: [{ adminToken: [] }] };

    app.post(
      '/accounts',
      { schema: { ...common, summary: 'Create a merchant account', body: createAccountBody, response: { 201: accountResponse, ...errorResponses(400, 401) } } },
      async (request, reply) => reply.code(201).send(presentAccount(await accounts.createAccount(request.body))),
    );

    app.get(
      '/accounts/:accountId',
      {
        schema: {
          ...common,
          summary: 'Read an account with its limits and fee plans',
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
          summary: 'Change KYC, block, mode, allowlist, limits or fees (objects merge field by field)',
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
          summary: 'Create an API key (the full key is shown once)',
          params: accountIdParams,
          response: { 201: z.object({ keyId: z.string(), apiKey: z.string(), prefix: z.string() }), ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request, reply) => reply.code(201).send(await accounts.createApiKey(requireAccountId(request.params.accountId))),
    );

    app.delete(
      '/api-keys/:keyId',
      { schema: { ...common, summary: 'Revoke an API key', params: keyIdParams, response: { 204: z.null(), ...errorResponses(400, 401, 404) } } },
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
          summary: "Set a key's own IP allowlist (replaces the account's for that key)",
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
