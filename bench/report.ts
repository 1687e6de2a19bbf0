import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BenchConfig } from './config.js';
import { formatProfile } from './cpuProfile.js';
import type { Machine } from './machine.js';
import { ROOT } from './processes.js';
import { cpuBesidePgbench, describeTarget, percentOf, verdict, type Baselines, type ScenarioResult } from './results.js';

const integer = (value: number | null | undefined) => (value === null || value === undefined ? '—' : Math.round(value).toLocaleString('en-US'));
const millis = (value: number | null | undefined) => (value === null || value === undefined ? '—' : String(Math.round(value * 10) / 10));
const mebibytes = (bytes: number | null | undefined) => (bytes ? `${Math.round(bytes / 2 ** 20)} MiB` : '—');
const percent = (value: number | null) => (value === null ? '—' : `${value.toFixed(0)}%`);
const otherLoad = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${value.toFixed(0)}%`);

function versusBaseline(result: ScenarioResult, baselines: Baselines): string {
  const hello = `${percent(percentOf(result.requestsPerSecond, baselines.helloWorld?.requestsPerSecond))} of hello-world`;
  if (result.baseline === 'hello') return hello;
  if (result.baseline === 'pgbench+hello') {
    const beside = cpuBesidePgbench(result, baselines);
    const cpu = beside ? ` · gw+pg CPU ${beside.multiple.toFixed(1)}× pgbench's (target ${beside.targetMultiple.toFixed(1)}×)` : '';
    return `${percent(percentOf(result.requestsPerSecond, baselines.pgbench?.tps))} of pgbench TPS · ${hello}${cpu}`;
  }
  return '—';
}

const CPU_LABELS: Record<string, string> = { gateway: 'gw', workers: 'wk', postgres: 'pg', bench: 'ac' };

/** CPU ms per request of the gateway, the webhook workers, PostgreSQL and the load generator (autocannon). */
function cpuShares(cpu: Record<string, number | null>): string {
  const parts = Object.keys(CPU_LABELS)
    .filter((name) => name in cpu)
    .map((name) => {
      const value = cpu[name];
      return `${CPU_LABELS[name]} ${value === null || value === undefined ? '—' : value.toFixed(2)}`;
    });
  return parts.length ? parts.join(' · ') : '—';
}

function failures(result: ScenarioResult): string {
  if (result.unavailable) return '—';
  return `${integer(result.non2xx)} / ${integer(result.errors)}`;
}

/** One markdown table: the baselines first, then every scenario next to its target and baseline. */
export function formatTable(results: ScenarioResult[], baselines: Baselines, config: BenchConfig): string {
  const rows: string[][] = [];
  const hello = baselines.helloWorld;
  if (hello) {
    rows.push([
      'B1',
      'Fastify hello-world (HTTP ceiling)',
      '—',
      integer(hello.requestsPerSecond),
      millis(hello.p50Ms),
      millis(hello.p99Ms),
      `${integer(hello.non2xx)} / ${integer(hello.errors)}`,
      mebibytes(hello.peakRssBytes),
      cpuShares(hello.cpuMsPerRequest),
      otherLoad(hello.othersPercentOfCore),
      'baseline',
      '100%',
      '—',
    ]);
  }
  const pgbench = baselines.pgbench;
  if (pgbench) {
    rows.push([
      'B2',
      `pgbench -N, ${pgbench.clients} clients, scale ${pgbench.scale} (commit ceiling)`,
      'postgres',
      `${integer(pgbench.tps)} TPS`,
      '—',
      '—',
      '—',
      '—',
      cpuShares({ postgres: pgbench.postgresCpuMsPerTransaction }),
      '—',
      'baseline',
      `avg latency ${millis(pgbench.latencyAverageMs)} ms`,
      '—',
    ]);
  }
  for (const result of results) {
    const { met, misses } = verdict(result, baselines);
    const outcome = result.unavailable ?? (met === null ? 'figure only' : met ? 'met' : `MISSED: ${misses.join('; ')}`);
    rows.push([
      result.id,
      result.title,
      result.database,
      result.unit ? `${integer(result.requestsPerSecond)} ${result.unit}` : integer(result.requestsPerSecond),
      millis(result.p50Ms),
      millis(result.p99Ms),
      failures(result),
      mebibytes(result.peakRssBytes),
      cpuShares(result.cpuMsPerRequest),
      otherLoad(result.othersPercentOfCore),
      describeTarget(result),
      versusBaseline(result, baselines),
      outcome,
    ]);
  }
  const header = [
    '#',
    'scenario',
    'db',
    'req/s',
    'p50 ms',
    'p99 ms',
    'non-2xx / errors',
    'peak RSS',
    'CPU ms/req',
    'other CPU',
    'target',
    'vs baseline',
    'result',
  ];
  const lines = [header, header.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`);
  return [
    `${config.connections} connections, ${config.durationSeconds} s measured after ${config.warmupSeconds} s warm-up, ${config.accounts} merchant accounts.`,
    'CPU ms/req: CPU time per request over the measured window — gw gateway (serve), wk webhook workers, pg all PostgreSQL processes, ac this process (autocannon).',
    'other CPU: CPU the machine spent outside those processes in the window (other work on a shared machine, kernel network time), in % of one core.',
    '',
    ...lines,
  ].join('\n');
}

export function formatNotes(results: ScenarioResult[]): string {
  return results
    .filter((result) => result.notes.length || result.checks.length)
    .map((result) =>
      [
        `${result.id}. ${result.title}`,
        ...result.checks.map((check) => `   ${check.ok ? 'ok' : 'FAILED'} ${check.name}: ${check.detail}`),
        ...result.notes.map((note) => `   ${note}`),
      ].join('\n'),
    )
    .join('\n');
}

export function formatProfiles(results: ScenarioResult[]): string {
  return results
    .filter((result) => result.profile)
    .map((result) => formatProfile(`CPU profile, scenario ${result.id} (${result.title})`, result.profile!))
    .join('\n\n');
}

/** Profiled runs are slower: they go to their own file and leave latest.json to plain runs. */
const resultsFile = (config: BenchConfig): string => join(ROOT, 'bench/results', config.profile ? 'latest-profiled.json' : 'latest.json');

export function writeResults(contents: { config: BenchConfig; machine: Machine; baselines: Baselines; results: ScenarioResult[]; table: string }): string {
  const file = resultsFile(contents.config);
  mkdirSync(dirname(file), { recursive: true });
  const results = contents.results.map((result) => ({ ...result, ...verdict(result, contents.baselines) }));
  const document = {
    date: new Date().toISOString(),
    command: [
      ...Object.entries(process.env)
        .filter(([name]) => name.startsWith('BENCH_') || name === 'PGBENCH')
        .map(([name, value]) => `${name}=${value}`),
      'npm run bench',
    ].join(' '),
    config: { ...contents.config, only: contents.config.only ? [...contents.config.only] : null },
    machine: contents.machine,
    baselines: contents.baselines,
    results,
    table: contents.table,
  };
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}
