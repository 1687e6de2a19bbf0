import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messages } from '../messages.js';
import { errorResponses } from '../platform/schemas.js';
import type { Services } from '../services.js';

/** Probes for load balancers and orchestrators (DESIGN.md §13): no key, no body to send. */
export const operationsRoutes =
  ({ health }: Pick<Services, 'health'>): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operations'] };

    app.get('/healthz', { schema: { ...common, summary: 'The process is alive', response: { 200: z.object({ status: z.literal('ok') }) } } }, async () => ({
      status: 'ok' as const,
    }));

    app.get(
      '/readyz',
      {
        schema: {
          ...common,
          summary: 'The process can serve: the database answers and its migrations are current (503 otherwise)',
          response: { 200: z.object({ status: z.literal('ready') }), ...errorResponses(503) },
        },
      },
      async (_request, reply) => {
        const readiness = await health.readiness();
        if (readiness.ready) return reply.code(200).send({ status: 'ready' as const });
        const error = readiness.reason === 'database_unreachable' ? messages.databaseUnreachable : messages.migrationsPending(readiness.pending ?? []);
        return reply.code(503).send({ error });
      },
    );
  };
