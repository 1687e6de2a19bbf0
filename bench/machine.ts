import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchConfig } from './config.js';
import { serverVersion } from './postgres.js';
import { ROOT } from './processes.js';

export type Machine = {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  pgbench: string;
  autocannon: string;
  /** 1/5/15-minute load averages when the run started: a busy shared machine shows here. */
  loadAverage: number[];
};

export async function describeMachine(config: BenchConfig): Promise<Machine> {
  const cpus = os.cpus();
  const pgbench = await promisify(execFile)(config.pgbench, ['--version'])
    .then(({ stdout }) => stdout.trim())
    .catch(() => 'not found');
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a package.json has a version
  const autocannon = (JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8')) as { version: string }).version;
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: await serverVersion(config),
    pgbench,
    autocannon,
    loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

export function formatMachine(machine: Machine): string {
  return [
    `CPU: ${machine.cpu} × ${machine.cores} cores · RAM ${machine.memoryGiB} GiB · ${machine.os}`,
    `Node ${machine.node} · ${machine.postgres} · ${machine.pgbench} · autocannon ${machine.autocannon}`,
    `load average at start: ${machine.loadAverage.join(' / ')}`,
  ].join('\n');
}
