import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAccountId, accountIdParams } from '../accounts/adminSchemas.js';
import { messages } from '../messages.js';
import { InvalidRequestError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import type { AccountService } from '../accounts/service.js';
import type { WebhookService } from './service.js';
import {
  accountEndpointParams,
  attemptListResponse,
  createdEndpointSchema,
  deliveriesQuery,
  deliveryParams,
  endpointBody,
  endpointListResponse,
  endpointParams,
  endpointSchema,
  resendResponse,
  rotateSecretBody,
  rotateSecretResponse,
} from './schemas.js';

const requireId = (value: string, message: string): string => {
  if (!isId(value)) throw new InvalidRequestError(message);
  return value;
};

/** Webhook endpoints and delivery history (DESIGN.md §6); the dashboard will call the same service. */
export const webhookAdminRoutes =
  ({ accounts, webhooks }: { accounts: AccountService; webhooks: WebhookService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: webhooks'], security: [{ adminToken: [] }] };

    app.post(
      '/accounts/:accountId/webhook-endpoints',
      {
        schema: {
          ...common,
          summary: 'Cadastra uma URL de webhook (no máximo 6 por conta); o segredo de assinatura aparece uma única vez',
          params: accountIdParams,
          body: endpointBody,
          response: { 201: createdEndpointSchema, ...errorResponses(400, 401, 404, 422) },
        },
      },
      async (request, reply) => reply.code(201).send(await webhooks.registerEndpoint(requireAccountId(request.params.accountId), request.body)),
    );

    app.get(
      '/accounts/:accountId/webhook-endpoints',
      {
        schema: {
          ...common,
          summary: 'URLs de webhook da conta',
          params: accountIdParams,
          response: { 200: endpointListResponse, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const accountId = requireAccountId(request.params.accountId);
        await accounts.getAccount(accountId);
        return webhooks.listEndpoints(accountId);
      },
    );

    app.get(
      '/accounts/:accountId/webhook-endpoints/:endpointId',
      {
        schema: {
          ...common,
          summary: 'Consulta uma URL de webhook',
          params: accountEndpointParams,
          response: { 200: endpointSchema, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) =>
        webhooks.getEndpoint(requireAccountId(request.params.accountId), requireId(request.params.endpointId, messages.webhookEndpointIdInvalid)),
    );

    app.delete(
      '/accounts/:accountId/webhook-endpoints/:endpointId',
      {
        schema: {
          ...common,
          summary: 'Remove uma URL de webhook: as entregas pendentes param; o histórico fica',
          params: accountEndpointParams,
          response: { 204: z.null(), ...errorResponses(400, 401, 404) },
        },
      },
      async (request, reply) => {
        await webhooks.deleteEndpoint(requireAccountId(request.params.accountId), requireId(request.params.endpointId, messages.webhookEndpointIdInvalid));
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/webhook-endpoints/:endpointId/rotate-secret',
      {
        schema: {
          ...common,
          summary: 'Novo segredo de assinatura; o antigo também assina (segunda assinatura) até o fim da sobreposição',
          params: endpointParams,
          body: rotateSecretBody,
          response: { 201: rotateSecretResponse, ...errorResponses(400, 401, 404) },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await webhooks.rotateSecret(requireId(request.params.endpointId, messages.webhookEndpointIdInvalid), request.body?.overlapSeconds)),
    );

    app.get(
      '/accounts/:accountId/webhook-deliveries',
      {
        schema: {
          ...common,
          summary: 'Tentativas de entrega dos webhooks da conta (60 dias), da mais recente à mais antiga',
          params: accountIdParams,
          querystring: deliveriesQuery,
          response: { 200: attemptListResponse, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const accountId = requireAccountId(request.params.accountId);
        const { eventId, transactionId, limit } = request.query;
        if (eventId !== undefined) requireId(eventId, messages.webhookEventIdInvalid);
        if (transactionId !== undefined) requireId(transactionId, messages.transactionIdInvalid);
        await accounts.getAccount(accountId);
        return webhooks.listAttempts(accountId, { eventId, transactionId, limit });
      },
    );

    app.post(
      '/webhook-deliveries/:deliveryId/resend',
      {
        schema: {
          ...common,
          summary: 'Reenvia uma entrega passada: mesmo id de evento e corpo, novo horário e assinatura (10 por hora por conta)',
          params: deliveryParams,
          response: { 202: resendResponse, ...errorResponses(400, 401, 404, 422, 429) },
        },
      },
      async (request, reply) => {
        const { accountId, ...resent } = await webhooks.resend(requireId(request.params.deliveryId, messages.webhookDeliveryIdInvalid));
        // Neither the address nor the answer names the account: the audit log is told it, so that its `accountId` filter finds the resend.
        request.auditAccountId = accountId;
        return reply.code(202).send(resent);
      },
    );
  };
