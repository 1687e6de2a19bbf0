import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { chargeBody, serverUrl, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { freePort, gatewayProcesses, type GatewayProcess } from '../helpers/processes.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * The server drops connections (a restart, a failover, a proxy reaping them, pg_terminate_backend):
 * the `serve` and `worker` processes stay up, answer a clean 503 meanwhile, and work again as soon
 * as the database answers. Real processes, real connection kills, on the PostgreSQL server.
 */
const APPLICATION = `gateway-restart-${process.pid}`;

describe.runIf(serverUrl)('database connections dropped by the server (PostgreSQL server)', { timeout: 120_000 }, () => {
  let gateway: Gateway;
  let receiver: Receiver;
  let merchant: Merchant;
  let base = '';
  let processes: ReturnType<typeof gatewayProcesses>;
  const children: GatewayProcess[] = [];
  const start = (name: string, args: string[], env: Record<string, string>) => {
    const started = processes.start(name, args, env);
    children.push(started);
    return started;
  };
  const dropConnections = () => processes.dropConnections();

  /** The log lines at level error or above (pino's JSON: level 50 and up). */
  const errorLines = (output: string) => output.split('\n').filter((line) => /"level":(5|6)\d/.test(line));

  const balance = async () => {
    const response = await fetch(`${base}/v1/balance`, { headers: { authorization: `Bearer ${merchant.apiKey}` } });
    return { status: response.status, body: (await response.json()) as { error?: string; available?: number } };
  };

  beforeAll(async () => {
    gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    processes = gatewayProcesses(gateway, APPLICATION);
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
    // Judged by what happened, not by speed: at least five kills, and enough answers to span them.
    for (let round = 0; round < 5 || answers.length < 60; round++) {
      await dropConnections();
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    running = false;
    await load;
    expect(answers.length).toBeGreaterThanOrEqual(60);
    for (const answer of answers) {
      if (answer.status !== 200) expect(answer).toEqual({ status: 503, body: { error: messages.serviceUnavailable } });
    }
    expect(children.map(({ exitCode }) => exitCode())).toEqual([null, null]);
    await expect.poll(async () => (await balance()).status, { timeout: 2_000, interval: 100 }).toBe(200);
  });

  it('the worker logs a lost database as a warning, not as an error, while its steps fail', { timeout: 30_000 }, async () => {
    const worker = children.find((child) => child.name === 'worker');
    if (!worker) throw new Error('no worker process');
    const before = worker.output().length;
    // Connections ended every 20 ms until a step of the worker was cut mid-query (at most 20 s).
    const until = Date.now() + 20_000;
    while (Date.now() < until && !/database unavailable/.test(worker.output().slice(before))) {
      await dropConnections();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const logged = worker.output().slice(before);
    expect(logged).toMatch(/database unavailable/);
    expect(errorLines(logged)).toEqual([]);
    expect(worker.exitCode()).toBeNull();
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
