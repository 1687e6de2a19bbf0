/** The benchmark's knobs, all from the environment so a run is one command (`npm run bench`). */
export type BenchConfig = {
  /** Measured seconds per scenario (and per baseline). */
  durationSeconds: number;
  /** Seconds of the same load before each measurement: JIT, caches and pools warm up. */
  warmupSeconds: number;
  connections: number;
  /** Merchant accounts the load is spread over, so per-account rate limits and row locks are not what is measured. */
  accounts: number;
  /** Charges paid in the webhook scenario. */
  webhookPayments: number;
  /** PostgreSQL server the gateway and pgbench use (superuser: the bench drops and creates its databases). */
  postgresUrl: string;
  pgbench: string;
  pgbenchScale: number;
  /** Write a CPU profile of the gateway per scenario to bench/profiles/ (the figures are then slower). */
  profile: boolean;
  /** Transactions seeded in one account for the history scenario (DESIGN.md §15). */
  historyRows: number;
  /** Scenario ids to run (hello, pgbench, 1, 2a, 2b, 3, 4, 5, 5b, 6, 7, history); all when absent. */
  only: Set<string> | null;
};

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function loadBenchConfig(): BenchConfig {
  const only = process.env.BENCH_ONLY?.split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return {
    durationSeconds: positiveNumber('BENCH_DURATION', 10),
    warmupSeconds: positiveNumber('BENCH_WARMUP', 3),
    connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 50)),
    accounts: Math.round(positiveNumber('BENCH_ACCOUNTS', 50)),
    webhookPayments: Math.round(positiveNumber('BENCH_WEBHOOK_PAYMENTS', 5000)),
    postgresUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432',
    pgbench: process.env.PGBENCH ?? 'pgbench',
    pgbenchScale: Math.round(positiveNumber('BENCH_PGBENCH_SCALE', 10)),
    profile: process.env.BENCH_PROFILE === '1' || process.env.BENCH_PROFILE === 'true',
    historyRows: Math.round(positiveNumber('BENCH_HISTORY_ROWS', 1_000_000)),
    only: only?.length ? new Set(only) : null,
  };
}

/** The server URL with another database name. */
export function databaseUrl(config: BenchConfig, database: string): string {
  const url = new URL(config.postgresUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** BENCH_ONLY=2 also selects 2a and 2b. */
export const shouldRun = (config: BenchConfig, id: string): boolean => config.only === null || config.only.has(id) || config.only.has(id.replace(/[a-z]$/, ''));
