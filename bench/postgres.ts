import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { databaseUrl, type BenchConfig } from './config.js';
import { postgresCpu } from './cpuTime.js';

const run = promisify(execFile);

async function withAdminClient<T>(config: BenchConfig, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl(config, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Drops and creates `name`: every run starts from an empty database. */
export async function recreateDatabase(config: BenchConfig, name: string): Promise<string> {
  const quoted = `"${name.replaceAll('"', '""')}"`;
  await withAdminClient(config, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoted}`);
  });
  return databaseUrl(config, name);
}

async function dropDatabase(config: BenchConfig, name: string): Promise<void> {
  await withAdminClient(config, (client) => client.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`));
}

export async function serverVersion(config: BenchConfig): Promise<string> {
  return withAdminClient(config, async (client) => {
    const { rows } = await client.query<{ version: string }>('SELECT version()');
    return rows[0]?.version.split(' on ')[0] ?? 'unknown';
  });
}

/** Queries one database of the server (checks that the API does not expose, e.g. sums over all rows). */
export async function queryDatabase<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export type PgbenchResult = {
  tps: number;
  latencyAverageMs: number | null;
  clients: number;
  scale: number;
  /** PostgreSQL's CPU milliseconds per pgbench transaction, to compare with the gateway's per request. */
  postgresCpuMsPerTransaction: number | null;
};

function connectionArgs(config: BenchConfig): string[] {
  const url = new URL(config.postgresUrl);
  return ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
}

/**
 * The commit ceiling: `pgbench -N` (TPC-B without the contended branch/teller updates: three
 * writes and a read per transaction) with as many clients as the gateway's load has connections.
 */
export async function runPgbench(config: BenchConfig): Promise<PgbenchResult> {
  const database = 'bench_pgbench';
  await recreateDatabase(config, database);
  const common = [...connectionArgs(config)];
  const password = new URL(config.postgresUrl).password;
  const env = { ...process.env, ...(password ? { PGPASSWORD: decodeURIComponent(password) } : {}) };
  await run(config.pgbench, ['-i', '-q', '-s', String(config.pgbenchScale), ...common, database], { env });
  const clients = config.connections;
  const threads = 2;
  const bench = (seconds: number) =>
    run(config.pgbench, ['-N', '-c', String(clients), '-j', String(threads), '-T', String(seconds), ...common, database], { env, maxBuffer: 10_000_000 });
  await bench(Math.max(1, Math.round(config.warmupSeconds)));
  const meter = postgresCpu('postgres');
  const cpuBefore = meter.read();
  const { stdout } = await bench(Math.round(config.durationSeconds));
  const cpuAfter = meter.read();
  const tps = /^tps = ([\d.]+)/m.exec(stdout);
  if (!tps?.[1]) throw new Error(`pgbench printed no tps line:\n${stdout}`);
  const latency = /^latency average = ([\d.]+) ms/m.exec(stdout);
  const transactions = Number(/^number of transactions actually processed: (\d+)/m.exec(stdout)?.[1] ?? 0);
  await dropDatabase(config, database);
  return {
    tps: Number(tps[1]),
    latencyAverageMs: latency?.[1] ? Number(latency[1]) : null,
    clients,
    scale: config.pgbenchScale,
    postgresCpuMsPerTransaction: cpuBefore === null || cpuAfter === null || !transactions ? null : ((cpuAfter - cpuBefore) * 1000) / transactions,
  };
}
