import Fastify, { type FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messages } from '../messages.js';
import { errorResponses } from '../platform/schemas.js';
import type { Metrics } from './metrics.js';
import type { HealthService } from './service.js';

/** Probes for load balancers and orchestrators (DESIGN.md §13): no key, no body to send. */
export const operationsRoutes =
  ({ health, metrics }: { health: HealthService; metrics: Metrics }, options: { metricsHere: boolean }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operação'] };

    if (options.metricsHere) {
      app.get('/metrics', { schema: { ...common, summary: 'Métricas Prometheus (formato texto), para um coletor na rede privada' } }, async (_request, reply) =>
        reply.type(metrics.contentType).send(await metrics.text()),
      );
    }

    // `/health` is the older name of the same probe, kept for existing checks.
    for (const path of ['/healthz', '/health']) {
      app.get(path, { schema: { ...common, summary: 'O processo está no ar', response: { 200: z.object({ status: z.literal('ok') }) } } }, async () => ({
        status: 'ok' as const,
      }));
    }

    app.get(
      '/readyz',
      {
        schema: {
          ...common,
          summary: 'O processo pode atender: o banco responde e as migrações estão em dia (503 caso contrário)',
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

/** METRICS_PORT: /metrics alone on a port of its own (serve and worker), for a scraper that should not reach the API. */
export async function startMetricsServer(metrics: Metrics, port: number, host: string): Promise<FastifyInstance> {
  const server = Fastify({ logger: false });
  server.get('/metrics', async (_request, reply) => reply.type(metrics.contentType).send(await metrics.text()));
  await server.listen({ port, host });
  return server;
}
