/**
 * `npm run bench`: the gateway under load against the PostgreSQL server, each figure next to
 * baselines measured in the same run (these machines are shared and noisy). Prints one table and
 * writes bench/results/latest.json. A report, not a test: missed targets do not fail it.
 */
import { execFileSync } from 'node:child_process';
import { helloWorldBaseline } from './baselines.js';
import { loadBenchConfig, shouldRun, type BenchConfig } from './config.js';
import { describeMachine, formatMachine } from './machine.js';
import { recreateDatabase, runPgbench } from './postgres.js';
import { ROOT } from './processes.js';
import { formatNotes, formatProfiles, formatTable, writeResults } from './report.js';
import type { Baselines, ScenarioResult } from './results.js';
import {
  balanceScenario,
  chargeScenario,
  failoverScenario,
  listScenario,
  readTransactionScenario,
  unavailableScenario,
  withdrawalScenario,
  type Fleet,
} from './scenarios.js';
import { historyScenarios } from './historyScenario.js';
import { homeScenario } from './homeScenario.js';
import { webhookDrainScenario, webhookScenario } from './webhookScenario.js';

const log = (message: string) => process.stderr.write(`${message}\n`);

/** A step yields one row of the table, or several (the history scenario: one per measured read). */
type Step = { id: string; title: string; database: ScenarioResult['database']; run: () => Promise<ScenarioResult | ScenarioResult[]> };

function steps(config: BenchConfig): Step[] {
  // One server database for scenarios 1–4 (their merchants and charges carry over); the webhook
  // scenario gets its own, so scenario 4's outbox of transfer events does not load its workers.
  let server: Fleet | null = null;
  const serverFleet = async () => (server ??= { databaseUrl: await recreateDatabase(config, 'bench_gateway'), backend: 'postgres', merchants: null });
  return [
    { id: '1', title: 'POST /v1/pix (new charges)', database: 'postgres', run: async () => chargeScenario(config, await serverFleet(), '1') },
    { id: '2a', title: 'GET /v1/transactions/{id}', database: 'postgres', run: async () => readTransactionScenario(config, await serverFleet()) },
    { id: '2b', title: 'GET /v1/balance', database: 'postgres', run: async () => balanceScenario(config, await serverFleet()) },
    { id: '3', title: 'GET /v1/transactions?limit=50', database: 'postgres', run: async () => listScenario(config, await serverFleet()) },
    { id: '4', title: 'POST /v1/withdraw (funded accounts)', database: 'postgres', run: async () => withdrawalScenario(config, await serverFleet()) },
    {
      id: '5',
      title: 'sandbox pay → webhook delivered',
      database: 'postgres',
      run: async () => webhookScenario(config, { databaseUrl: await recreateDatabase(config, 'bench_webhooks'), backend: 'postgres', merchants: null }),
    },
    {
      id: '5b',
      title: 'webhook backlog drained by 2 workers',
      database: 'postgres',
      run: async () => webhookDrainScenario(config, { databaseUrl: await recreateDatabase(config, 'bench_webhooks'), backend: 'postgres', merchants: null }),
    },
    {
      id: '6',
      title: 'POST /v1/pix, PGlite memory://',
      database: 'pglite',
      run: () => chargeScenario(config, { databaseUrl: 'memory://', backend: 'pglite', merchants: null }, '6'),
    },
    {
      id: '7',
      title: 'failover: POST /v1/pix, one of two PSPs killed mid-run',
      database: 'postgres',
      run: async () => failoverScenario(config, { databaseUrl: await recreateDatabase(config, 'bench_failover'), backend: 'postgres', merchants: null }),
    },
    {
      id: 'history',
      title: `history at scale: ${config.historyRows.toLocaleString('en-US')} transactions in one account (DESIGN.md §15)`,
      database: 'postgres',
      run: async () => historyScenarios(config, { databaseUrl: await recreateDatabase(config, 'bench_history'), backend: 'postgres', merchants: null }),
    },
    {
      id: 'home',
      title: `Início (GET /dashboard) on ${config.historyRows.toLocaleString('en-US')} transactions in one account (DESIGN.md §24)`,
      database: 'postgres',
      run: async () => homeScenario(config, { databaseUrl: await recreateDatabase(config, 'bench_home'), backend: 'postgres', merchants: null }),
    },
  ];
}

async function main(): Promise<void> {
  // The gateway is measured compiled, as `npm start` runs it.
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  const config = loadBenchConfig();
  const machine = await describeMachine(config);
  log(formatMachine(machine));
  if (config.profile) log('BENCH_PROFILE=1: the gateway runs with --cpu-prof (bench/profiles/); its figures are lower than without.');

  const baselines: Baselines = { helloWorld: null, pgbench: null };
  if (shouldRun(config, 'hello')) {
    log('▶ baseline: Fastify hello-world');
    baselines.helloWorld = await helloWorldBaseline(config);
  }
  if (shouldRun(config, 'pgbench')) {
    log('▶ baseline: pgbench -N');
    baselines.pgbench = await runPgbench(config);
  }

  const results: ScenarioResult[] = [];
  let crashed = false;
  for (const step of steps(config)) {
    if (!shouldRun(config, step.id)) continue;
    log(`▶ scenario ${step.id}: ${step.title}`);
    try {
      results.push(...[await step.run()].flat());
    } catch (error) {
      // One broken scenario still leaves the others' figures.
      crashed = true;
      const message = error instanceof Error ? error.message : String(error);
      log(`  scenario ${step.id} failed: ${message}`);
      results.push(unavailableScenario(step.id, step.title, step.database, `error: ${message.split('\n')[0]}`));
    }
  }

  const table = formatTable(results, baselines, config);
  const peak = Math.max(0, ...results.map((result) => result.peakRssBytes ?? 0));
  const output = [
    '',
    formatMachine(machine),
    '',
    table,
    '',
    `Peak RSS of the gateway (serve) process: ${Math.round(peak / 2 ** 20)} MiB (highest of the scenarios; one process per scenario)`,
    '',
    formatNotes(results),
    ...(config.profile ? ['', formatProfiles(results)] : []),
    '',
  ];
  process.stdout.write(`${output.join('\n')}\n`);
  log(`results written to ${writeResults({ config, machine, baselines, results, table })}`);
  if (crashed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
