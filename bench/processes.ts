import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The repository root: children run from there, as `npm start` would. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Secrets of the bench's gateway processes (a server database requires both). */
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const SECRET_KEY = 'bench-secret-key-0123456789abcdef0123456789';

export type NodeProcess = {
  name: string;
  pid: number;
  /** Peak resident set size so far (VmHWM), in bytes; null where /proc is not available. */
  peakRssBytes(): number | null;
  /** What the process wrote, for the error message when it dies. */
  output(): string;
  running(): boolean;
  stop(): Promise<void>;
};

export type HttpProcess = NodeProcess & { url: string };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function readStatusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

const readPeakRss = (pid: number): number | null => readStatusKiB(pid, 'VmHWM');

/** Resident set size now (VmRSS), in bytes; null where /proc is not available. */
export const readRss = (pid: number): number | null => readStatusKiB(pid, 'VmRSS');

/**
 * Spawns `node [flags] <script> [args]` directly (no npx or shell in between), so the pid is the
 * Node process itself: its VmHWM is the gateway's peak RSS. TypeScript scripts run through tsx;
 * the gateway runs compiled (dist/), as `npm start` does.
 */
function startNode(name: string, script: string, args: string[], env: Record<string, string>, nodeFlags: string[] = []): NodeProcess {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, ...loader, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${name}: could not start`);
  const pid = child.pid;
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let lastPeak: number | null = null;

  return {
    name,
    pid,
    peakRssBytes() {
      lastPeak = readPeakRss(pid) ?? lastPeak;
      return lastPeak;
    },
    output: () => output,
    running: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      lastPeak = readPeakRss(pid) ?? lastPeak;
      child.kill('SIGTERM');
      // A graceful stop lets --cpu-prof write its profile; a stuck process is killed.
      const stopped = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** Polls `url` until it answers (any status) or the process dies. */
async function waitUntilAnswering(child: NodeProcess, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      return;
    } catch {
      if (!child.running()) break;
      await sleep(100);
    }
  }
  await child.stop();
  throw new Error(`${child.name} did not start answering ${url}:\n${child.output()}`);
}

export type GatewayOptions = {
  name: string;
  databaseUrl: string;
  env?: Record<string, string>;
  /**
   * Folder under bench/profiles/ for the CPU profiles; no profiling when absent. One profile per
   * thread: the main thread's has tid 0.
   */
  profileName?: string;
};

export const PROFILE_DIR = 'bench/profiles';

const gatewayEnv = (databaseUrl: string, port: number, extra: Record<string, string> = {}): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  SECRET_KEY,
  ADMIN_TOKEN,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  // Withdrawals stay `processing`: the withdrawal scenario's balance check counts them exactly.
  SANDBOX_SETTLE_MS: 'manual',
  ...extra,
});

/** `dist/cli.js serve`, the way production runs it; resolves once it answers HTTP. */
export async function startGateway(options: GatewayOptions): Promise<HttpProcess> {
  const port = await freePort();
  // BENCH_NODE_FLAGS: node flags for every serve process, to compare a setting against the default (e.g. --heap-growing-percent=0).
  const extra = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const flags = [...extra, ...(options.profileName ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, options.profileName)}`] : [])];
  const child = startNode(options.name, 'dist/cli.js', ['serve'], gatewayEnv(options.databaseUrl, port, options.env), flags);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(child, `${url}/openapi.json`);
  return { ...child, url };
}

/** `dist/cli.js worker` on the same database (background jobs, webhook dispatch). */
export function startWorker(name: string, databaseUrl: string, env: Record<string, string> = {}): NodeProcess {
  const profile = process.env.BENCH_PROFILE_WORKERS ? [`--cpu-prof`, `--cpu-prof-dir=${join(ROOT, PROFILE_DIR, 'workers')}`] : [];
  return startNode(name, 'dist/cli.js', ['worker'], gatewayEnv(databaseUrl, 0, env), profile);
}

/** The HTTP baseline: a Fastify hello-world in its own process. */
export async function startHelloWorld(): Promise<HttpProcess> {
  const port = await freePort();
  const child = startNode('hello-world', 'bench/helloWorld.ts', [], { PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(child, url);
  return { ...child, url };
}

/** A one-shot `src/cli.ts <command>` (e.g. doctor) on a database: its exit code and output. */
export function runCli(command: string, databaseUrl: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', command],
      { cwd: ROOT, env: { ...process.env, ...gatewayEnv(databaseUrl, 0) } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`.trim() });
      },
    );
  });
}

/** The main thread's profile (CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile) in a --cpu-prof-dir. */
export function mainThreadProfile(directory: string): string | null {
  if (!existsSync(directory)) return null;
  const file = readdirSync(directory).find((name) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(name));
  return file ? join(directory, file) : null;
}
