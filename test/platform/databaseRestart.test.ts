import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { chargeBody, serverUrl, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * The server drops connections (a restart, a failover, a proxy reaping them, pg_terminate_backend):
 * the `serve` and `worker` processes stay up, answer a clean 503 meanwhile, and work again as soon
 * as the database answers. Real processes, real connection kills, on the PostgreSQL server.
 */
const APPLICATION = `gateway-restart-${process.pid}`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe.runIf(serverUrl)('database connections dropped by the server (PostgreSQL server)', { timeout: 120_000 }, () => {
  let gateway: Gateway;
  let receiver: Receiver;
  let merchant: Merchant;
  let base = '';
  const children: { name: string; child: ChildProcess; output: () => string; exitCode: () => number | null }[] = [];

  const start = (name: string, args: string[], env: Record<string, string>) => {
    const url = new URL(serverUrl!);
    url.searchParams.set('options', `-c search_path=${gateway.schema}`);
    url.searchParams.set('application_name', `${APPLICATION}-${name}`);
    const child = spawn(process.execPath, ['dist/cli.js', ...args], {
      env: { ...process.env, ...gateway.environment, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    let exitCode: number | null = null;
    child.once('exit', (code) => (exitCode = code ?? -1));
    children.push({ name, child, output: () => output, exitCode: () => exitCode });
    return {
      waitFor: async (pattern: RegExp) => {
        const deadline = Date.now() + 60_000;
        while (!pattern.test(output)) {
          if (Date.now() > deadline || exitCode !== null) throw new Error(`${name} did not print ${pattern}:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
    };
  };

  /** Ends every connection of the gateway's processes, as a restart or a failover would. */
  const dropConnections = async () => {
    const { rows } = await sql<{ pid: number }>`
      SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE application_name LIKE ${`${APPLICATION}-%`}`.execute(gateway.database.db);
    return rows.length;
  };

  const balance = async () => {
    const response = await fetch(`${base}/v1/balance`, { headers: { authorization: `Bearer ${merchant.apiKey}` } });
    return { status: response.status, body: (await response.json()) as { error?: string; available?: number } };
  };

  beforeAll(async () => {
    gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
    merchant = await gateway.createMerchant();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await start('serve', ['serve'], { PORT: String(port), HOST: '127.0.0.1' }).waitFor(/listening on/);
    await start('worker', ['worker'], { LOG_LEVEL: 'info' }).waitFor(/worker started/);
  }, 90_000);

  afterAll(async () => {
    for (const { child } of children) child.kill('SIGKILL');
    await receiver?.close();
    await gateway?.close();
  });

  it('serve and worker stay up when every connection is killed, even idle ones', async () => {
    expect((await balance()).status).toBe(200); // the pool holds connections now
    expect(await dropConnections()).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const { name, exitCode, output } of children)
      expect({ name, exitCode: exitCode(), output: output().slice(-500) }).toMatchObject({ name, exitCode: null });
    // The next requests open fresh connections.
    await expect.poll(async () => (await balance()).status, { timeout: 2_000, interval: 100 }).toBe(200);
  });

  it('requests during repeated kills answer 200 or a clean 503, never a broken connection', async () => {
    const answers: { status: number; body: { error?: string } }[] = [];
    let running = true;
    const load = (async () => {
      while (running) answers.push(...(await Promise.all(Array.from({ length: 10 }, balance))));
    })();
    for (let round = 0; round < 5; round++) {
      await dropConnections();
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    running = false;
    await load;
    expect(answers.length).toBeGreaterThan(50);
    for (const answer of answers) {
      if (answer.status !== 200) expect(answer).toEqual({ status: 503, body: { error: messages.serviceUnavailable } });
    }
    expect(children.map(({ exitCode }) => exitCode())).toEqual([null, null]);
    await expect.poll(async () => (await balance()).status, { timeout: 2_000, interval: 100 }).toBe(200);
  });

  it('the worker delivers webhooks again after its connections were killed', async () => {
    const endpoint = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints`, { url: receiver.url('/after-kill') });
    expect(endpoint.status).toBe(201);
    await dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the pool learns of the killed idle connections
    const created = await fetch(`${base}/v1/pix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(chargeBody()),
    });
    expect(created.status).toBe(201);
    const { transactionId } = (await created.json()) as { transactionId: string };
    await dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const paid = await fetch(`${base}/sandbox/v1/pix/${transactionId}/pay`, { method: 'POST', headers: { authorization: `Bearer ${merchant.apiKey}` } });
    expect(paid.status).toBe(200);
    await expect
      .poll(() => receiver.received.filter((request) => request.path === '/after-kill').map((request) => request.headers['x-svc-event']), { timeout: 15_000 })
      .toEqual(['transaction.paid']);
  });
});
