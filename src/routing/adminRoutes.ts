import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../platform/schemas.js';
import { providerHealthSchema, routingRulesSchema } from './schemas.js';
import type { RoutingService } from './service.js';

/** The operator API of several providers (DESIGN.md §14): their health, and the routing rules. */
export const routingAdminRoutes =
  ({ routing }: { routing: RoutingService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: provedores'], security: [{ adminToken: [] }] };

    app.get(
      '/providers',
      {
        schema: {
          ...common,
          summary: 'Estado do disjuntor e latência de cada provedor configurado, como este processo os vê',
          response: { 200: z.object({ providers: z.array(providerHealthSchema) }), ...errorResponses(401) },
        },
      },
      async () => ({
        providers: routing.health().map(({ lastError, ...provider }) => ({
          ...provider,
          ...(lastError ? { lastError: { message: lastError.message, at: lastError.at.getTime() } } : {}),
        })),
      }),
    );

    app.get(
      '/routing',
      { schema: { ...common, summary: 'Regras de roteamento em vigor', response: { 200: routingRulesSchema, ...errorResponses(401) } } },
      async () => routing.rules(),
    );

    app.put(
      '/routing',
      {
        schema: {
          ...common,
          summary: 'Substitui as regras de roteamento (auditado com antes e depois); vale em todos os processos em até 2 segundos',
          body: routingRulesSchema,
          response: { 200: routingRulesSchema, ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        request.auditBefore = await routing.rules();
        return routing.replace(request.body);
      },
    );
  };
