import type { ProfileSummary } from './cpuProfile.js';
import type { LoadResult } from './load.js';
import type { PgbenchResult } from './postgres.js';

/** What a scenario aims at (issue 5); absent fields are not checked. */
export type Target = {
  minRequestsPerSecond?: number;
  maxP99Ms?: number;
  /** Share of the same run's pgbench -N TPS, in percent. */
  minPgbenchPercent?: number;
  /** Share of the same run's Fastify hello-world requests per second, in percent. */
  minHelloPercent?: number;
  /** CPU milliseconds per request of the gateway and PostgreSQL together (issue 27). */
  maxCpuMsPerRequest?: number;
};

/**
 * PostgreSQL's CPU per `pgbench -N` transaction on the machine issue 27 set maxCpuMsPerRequest on
 * (a 2-core AMD EPYC, 2026-11-25). The issue states its CPU goals beside that figure, because how
 * far a request's CPU is from a limit depends on the machine: the report also shows a request's
 * CPU as a multiple of the same run's pgbench transaction, against the target's multiple there.
 * The verdict stays the absolute figure's.
 */
const TARGET_MACHINE_PGBENCH_CPU_MS = 0.28;

/** The gateway's and PostgreSQL's CPU per request as a multiple of this run's pgbench transaction, with the target's multiple; null without both figures. */
export function cpuBesidePgbench(result: ScenarioResult, baselines: Baselines): { multiple: number; targetMultiple: number } | null {
  const cpu = gatewayAndDatabaseCpu(result);
  const pgbench = baselines.pgbench?.postgresCpuMsPerTransaction;
  const target = result.target?.maxCpuMsPerRequest;
  if (cpu === null || !pgbench || target === undefined) return null;
  return { multiple: cpu / pgbench, targetMultiple: target / TARGET_MACHINE_PGBENCH_CPU_MS };
}

/** A yes/no property checked after the load (e.g. the balance is exact). */
export type Check = { name: string; ok: boolean; detail: string };

export type ScenarioResult = {
  id: string;
  title: string;
  database: 'postgres' | 'pglite';
  /** null when the scenario could not run (the reason is in `unavailable`). */
  requestsPerSecond: number | null;
  /** What requestsPerSecond counts, when not HTTP requests (e.g. deliveries/s). */
  unit?: string;
  p50Ms: number | null;
  p99Ms: number | null;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  peakRssBytes: number | null;
  /** CPU milliseconds per request (per delivery in the webhook scenario) by process group. */
  cpuMsPerRequest: Record<string, number | null>;
  /** CPU other processes used during the measurement, in % of one core (noise on a shared machine). */
  othersPercentOfCore: number | null;
  target: Target | null;
  /** Which baseline the figure is compared with. */
  baseline: 'pgbench+hello' | 'hello' | null;
  checks: Check[];
  notes: string[];
  unavailable?: string;
  load?: LoadResult;
  /** The measured window (monotonic µs) of a scenario without a load run (e.g. a download), to cut its CPU profile to. */
  window?: LoadResult['window'];
  profile?: ProfileSummary;
};

export type Baselines = {
  helloWorld: (LoadResult & { peakRssBytes: number | null }) | null;
  pgbench: PgbenchResult | null;
};

export type Verdict = { met: boolean | null; misses: string[] };

const round = (value: number) => Math.round(value).toLocaleString('en-US');

export const percentOf = (value: number | null, baseline: number | null | undefined): number | null =>
  value === null || !baseline ? null : (100 * value) / baseline;

/** Met when every target and check holds; the misses say by how much. null = figure only. */
export function verdict(result: ScenarioResult, baselines: Baselines): Verdict {
  if (result.unavailable) return { met: null, misses: [] };
  const misses: string[] = [];
  const target = result.target;
  const rps = result.requestsPerSecond ?? 0;
  if (target?.minRequestsPerSecond !== undefined && rps < target.minRequestsPerSecond) {
    misses.push(`${round(rps)} req/s < ${round(target.minRequestsPerSecond)} (${((100 * rps) / target.minRequestsPerSecond).toFixed(0)}% of target)`);
  }
  if (target?.maxP99Ms !== undefined && (result.p99Ms ?? Infinity) >= target.maxP99Ms) {
    misses.push(`p99 ${result.p99Ms} ms ≥ ${target.maxP99Ms} ms`);
  }
  if (target?.minPgbenchPercent !== undefined) {
    const share = percentOf(rps, baselines.pgbench?.tps);
    if (share === null) misses.push('no pgbench baseline');
    else if (share < target.minPgbenchPercent) misses.push(`${share.toFixed(0)}% of pgbench TPS < ${target.minPgbenchPercent}%`);
  }
  if (target?.minHelloPercent !== undefined) {
    const share = percentOf(rps, baselines.helloWorld?.requestsPerSecond);
    if (share === null) misses.push('no hello-world baseline');
    else if (share < target.minHelloPercent) misses.push(`${share.toFixed(0)}% of hello-world < ${target.minHelloPercent}%`);
  }
  if (target?.maxCpuMsPerRequest !== undefined) {
    const cpu = gatewayAndDatabaseCpu(result);
    if (cpu === null) misses.push('no CPU figure');
    else if (cpu > target.maxCpuMsPerRequest) {
      const beside = cpuBesidePgbench(result, baselines);
      const scale = beside
        ? ` (${beside.multiple.toFixed(1)}× this run's pgbench transaction; the target is ${beside.targetMultiple.toFixed(1)}× on its machine, pgbench at ${TARGET_MACHINE_PGBENCH_CPU_MS} ms)`
        : '';
      misses.push(`gw+pg ${cpu.toFixed(2)} ms/req > ${target.maxCpuMsPerRequest} ms${scale}`);
    }
  }
  for (const check of result.checks) if (!check.ok) misses.push(`${check.name}: ${check.detail}`);
  if (!target && result.checks.length === 0) return { met: null, misses };
  return { met: misses.length === 0, misses };
}

/** The gateway's and PostgreSQL's CPU per request together; null when either was not measured. */
function gatewayAndDatabaseCpu(result: ScenarioResult): number | null {
  const gateway = result.cpuMsPerRequest.gateway;
  const database = result.cpuMsPerRequest.postgres;
  return gateway === undefined || gateway === null || database === undefined || database === null ? null : gateway + database;
}

export function describeTarget(result: ScenarioResult): string {
  const target = result.target;
  const parts: string[] = [];
  if (target?.minRequestsPerSecond !== undefined) parts.push(`≥ ${round(target.minRequestsPerSecond)}/s`);
  if (target?.minPgbenchPercent !== undefined) parts.push(`≥ ${target.minPgbenchPercent}% pgbench`);
  if (target?.minHelloPercent !== undefined) parts.push(`≥ ${target.minHelloPercent}% hello-world`);
  if (target?.maxCpuMsPerRequest !== undefined) parts.push(`gw+pg ≤ ${target.maxCpuMsPerRequest} ms/req`);
  if (target?.maxP99Ms !== undefined) parts.push(`p99 < ${target.maxP99Ms} ms`);
  for (const check of result.checks) parts.push(check.name);
  return parts.length ? parts.join(', ') : 'figure only';
}
