import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { sql } from 'kysely';
import { serverUrl, type Gateway } from './gateway.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export type GatewayProcess = {
  name: string;
  child: ChildProcess;
  output: () => string;
  exitCode: () => number | null;
  waitFor: (pattern: RegExp) => Promise<void>;
};

/**
 * Compiled `serve` and `worker` processes on the test gateway's schema of the PostgreSQL server,
 * each connecting as `<application>-<name>` so that its connections can be told apart and killed.
 */
export function gatewayProcesses(gateway: Gateway, application: string) {
  const children: GatewayProcess[] = [];
  const start = (name: string, args: string[], env: Record<string, string>): GatewayProcess => {
    if (!serverUrl) throw new Error('processes need the PostgreSQL server');
    const url = new URL(serverUrl);
    url.searchParams.set('options', `-c search_path=${gateway.schema}`);
    url.searchParams.set('application_name', `${application}-${name}`);
    const child = spawn(process.execPath, ['dist/cli.js', ...args], {
      env: { ...process.env, ...gateway.environment, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    let exitCode: number | null = null;
    child.once('exit', (code) => (exitCode = code ?? -1));
    const started: GatewayProcess = {
      name,
      child,
      output: () => output,
      exitCode: () => exitCode,
      waitFor: async (pattern: RegExp) => {
        const deadline = Date.now() + 60_000;
        while (!pattern.test(output)) {
          if (Date.now() > deadline || exitCode !== null) throw new Error(`${name} did not print ${pattern}:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
    };
    children.push(started);
    return started;
  };
  return {
    children,
    start,
    /** Ends every connection of the processes, as a restart or a failover would; answers how many. */
    dropConnections: async () => {
      const { rows } = await sql<{ pid: number }>`
        SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE application_name LIKE ${`${application}-%`}`.execute(gateway.database.db);
      return rows.length;
    },
    killAll: () => {
      for (const { child } of children) child.kill('SIGKILL');
    },
  };
}
