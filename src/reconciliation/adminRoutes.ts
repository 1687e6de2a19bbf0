import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { ADMIN_TOKEN_ACTOR } from '../platform/adminAuth.js';
import { reconciliationCsv } from './report.js';
import { differenceSchema, presentDifference, presentRun, reconciliationRunSchema, runReconciliationBody } from './schemas.js';
import type { ReconciliationService } from './service.js';

const runIdParams = z.object({ runId: z.string() });

function requireRunId(runId: string): string {
  if (!isId(runId)) throw new InvalidRequestError(messages.reconciliationIdInvalid);
  return runId;
}

/** Reconciliation per PSP (DESIGN.md §14): run on demand, read the runs, download a run's report. */
export const reconciliationAdminRoutes =
  ({ reconciliation }: { reconciliation: ReconciliationService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: provedores'], security: [{ adminToken: [] }] };

    app.post(
      '/reconciliation',
      {
        schema: {
          ...common,
          summary: 'Compara agora o razão com os registros de cada PSP (ou do indicado) em um período',
          body: runReconciliationBody,
          response: { 201: z.object({ runs: z.array(reconciliationRunSchema) }), ...errorResponses(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const { providerId, from, to } = request.body;
        const runs = await reconciliation.runNow({ providerId, from: new Date(from), to: new Date(to) }, request.auditActor ?? ADMIN_TOKEN_ACTOR);
        return reply.code(201).send({ runs: runs.map(presentRun) });
      },
    );

    app.get(
      '/reconciliation',
      {
        schema: {
          ...common,
          summary: 'Últimas conciliações (a diária e as sob demanda), da mais recente à mais antiga',
          querystring: z.object({ providerId: z.string().max(32).optional() }),
          response: { 200: z.object({ runs: z.array(reconciliationRunSchema) }), ...errorResponses(401) },
        },
      },
      async (request) => ({ runs: (await reconciliation.list(request.query.providerId)).map(presentRun) }),
    );

    app.get(
      '/reconciliation/:runId',
      {
        schema: {
          ...common,
          summary: 'Uma conciliação com todas as diferenças encontradas',
          params: runIdParams,
          response: { 200: reconciliationRunSchema.extend({ differences: z.array(differenceSchema) }), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const { run, differences } = await reconciliation.get(requireRunId(request.params.runId));
        return { ...presentRun(run), differences: differences.map(presentDifference) };
      },
    );

    app.get(
      '/reconciliation/:runId/report.csv',
      {
        schema: {
          ...common,
          summary: 'Relatório de uma conciliação para a contabilidade (CSV: totais, depois uma linha por diferença)',
          params: runIdParams,
          produces: ['text/csv'],
          response: { 200: z.string(), ...errorResponses(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const { run, differences } = await reconciliation.get(requireRunId(request.params.runId));
        const day = run.periodFrom.toISOString().slice(0, 10);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="conciliacao-${run.providerId}-${day}.csv"`)
          .send(reconciliationCsv(run, differences));
      },
    );
  };
