import { spawn, type ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BodyOf } from './helpers/admin.js';
import type { Method } from './helpers/contract.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

/** The README's quickstart and walk-through, on a real compiled `serve` process (what `npm start` runs) with a fresh data folder. */
const start = join(process.cwd(), 'scripts/start.mjs');
const dataDir = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
const children: ChildProcess[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [start, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const waitFor = async (pattern: RegExp, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = pattern.exec(output);
      if (match) return match;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting for ${pattern}; output:\n${output}`);
  };
  return { child, exited, waitFor, output: () => output };
}

let base = '';
let apiKey = '';
let adminToken = '';
let demoAccountId = '';
let owner = { email: '', password: '' };
let server: ReturnType<typeof run>;
let receiver: Receiver;

beforeAll(async () => {
  const port = await freePort();
  base = `http://localhost:${port}`;
  // Private receivers allowed, as the README's development walk-through says, for the local receiver.
  server = run(['serve'], { PORT: String(port), HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: 'true' });
  receiver = await startReceiver();
  const demo = await server.waitFor(/Demo merchant ([0-9a-f-]{36}) — API key \(shown once\): (svck_[0-9a-f]{64})/);
  demoAccountId = demo[1] ?? '';
  apiKey = demo[2] ?? '';
  const dashboard = await server.waitFor(/Dashboard: \S+\/dashboard — sign in as (\S+) with password (\S+) \(shown once\)/);
  owner = { email: dashboard[1] ?? '', password: dashboard[2] ?? '' };
  adminToken = (await server.waitFor(/Admin token \(shown once; kept in .*secrets\.json\): (adm_[0-9a-f]+)/))[1] ?? '';
}, 90_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.on('exit', resolve)))));
  rmSync(dataDir, { recursive: true, force: true });
  await receiver.close();
});

const call = async <M extends Method, P extends string>(method: M, path: P, body?: unknown, token = apiKey) => {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as BodyOf<M, P> };
};

// Child processes start PGlite from disk: slow on a loaded 2-core machine.
describe('npm start on a fresh machine', { timeout: 120_000 }, () => {
  it('prints the demo key and admin token once and keeps secrets out of reach of others', () => {
    expect(apiKey).toMatch(/^svck_[0-9a-f]{64}$/);
    expect(adminToken).toMatch(/^adm_/);
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o077).toBe(0);
  });

  it('prints the demo owner, who signs in to the dashboard with that password', async () => {
    expect(owner.email).toBe('demo@example.com');
    const form = await fetch(`${base}/dashboard/entrar`);
    const csrfCookie = (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrfToken = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const signedIn = await fetch(`${base}/dashboard/entrar`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
      body: new URLSearchParams({ _csrf: csrfToken, email: owner.email, password: owner.password }).toString(),
      redirect: 'manual',
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard');
    const session =
      signedIn.headers
        .getSetCookie()
        .find((cookie) => cookie.startsWith('svc_session='))
        ?.split(';')[0] ?? '';
    const home = await fetch(`${base}/dashboard`, { headers: { cookie: session }, redirect: 'manual' });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<h1>Início</h1>');
  });

  it('runs the README walk-through: webhook, charge, payment, balance, withdrawals to the holder and to a recipient, a refund, a MED case', async () => {
    const endpoint = await call('POST', `/admin/v1/accounts/${demoAccountId}/webhook-endpoints`, { url: receiver.url('/pix') }, adminToken);
    expect(endpoint.status).toBe(201);
    const created = await call('POST', '/v1/pix', {
      amountCents: 1500,
      externalRef: 'pedido-1001',
      customer: { name: 'Ana Souza', email: 'ana@example.com', phone: '11987654321', document: { number: '529.982.247-25', type: 'cpf' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.pixPayload).toMatch(/^000201010212.*br\.gov\.bcb\.pix.*localhost\/pix\/v2\//);
    const paid = await call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`);
    expect(paid.body.status).toBe('paid');
    const read = await call('GET', `/v1/transactions/${created.body.transactionId}`);
    expect(read.body).toMatchObject({ status: 'paid', amountCents: 1500, feeCents: 50, netCents: 1450 });
    expect(read.body.endToEndId).toMatch(/^E[0-9A-Z]{8}\d{12}[a-zA-Z0-9]{11}$/);
    const balance = await call('GET', '/v1/balance');
    expect(balance.body).toMatchObject({ available: 1450, pending: 0, currency: 'BRL' });
    const list = await call('GET', '/v1/transactions?type=pix_in&limit=10');
    expect(list.body.count).toBe(1);

    const toHolder = await call('POST', '/v1/withdraw', { amountCents: 500, pixKey: '529.982.247-25', pixKeyType: 'cpf', externalRef: 'saque-1' });
    expect(toHolder.body).toMatchObject({ status: 'processing', amountCents: 500, feeCents: 100, totalDeducted: 600 });
    const recipient = await call('POST', '/v1/recipients', {
      legalName: 'Fornecedor Ltda',
      document: '390.533.447-05',
      documentType: 'cpf',
      pixKey: '390.533.447-05',
      pixKeyType: 'cpf',
    });
    expect(recipient.body.status).toBe('pending_review');
    const approved = await call(
      'POST',
      `/admin/v1/accounts/${demoAccountId}/recipients/${recipient.body.recipientId}/approve`,
      { label: 'Fornecedor' },
      adminToken,
    );
    expect(approved.status).toBe(200);
    expect((await call('GET', '/v1/recipients')).body.count).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // one withdrawal per second
    const toRecipient = await call('POST', '/v1/withdraw', {
      amountCents: 300,
      pixKey: '39053344705',
      pixKeyType: 'cpf',
      recipientId: recipient.body.recipientId,
    });
    expect(toRecipient.body.status).toBe('processing');
    // The simulator settles both after SANDBOX_SETTLE_MS (1.5 s by default), through the in-process worker.
    const deadline = Date.now() + 20_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(
        [toHolder, toRecipient].map(async (reply) => (await call('GET', `/v1/transactions/${reply.body.transactionId}`)).body.status),
      );
      if (statuses.every((status) => status === 'paid')) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(statuses).toEqual(['paid', 'paid']);
    expect((await call('GET', '/v1/balance')).body.available).toBe(1450 - 600 - 400);

    // 7. A partial refund, settled by the simulator after SANDBOX_SETTLE_MS.
    const refund = await call('POST', `/v1/transactions/${created.body.transactionId}/refunds`, {
      amountCents: 200,
      externalRef: 'devolucao-1',
      reason: 'item em falta',
    });
    expect(refund.body).toMatchObject({ kind: 'merchant', amountCents: 200, status: 'processing' });
    await expect
      .poll(async () => (await call('GET', `/v1/transactions/${created.body.transactionId}`)).body, { timeout: 20_000 })
      .toMatchObject({ status: 'partially_refunded', refundedCents: 200 });
    expect((await call('GET', `/v1/transactions/${created.body.transactionId}/refunds`)).body.refunds[0]).toMatchObject({ status: 'refunded' });
    // 8. A MED case in the sandbox: blocked, defended, closed for the merchant.
    const infraction = await call('POST', `/sandbox/v1/pix/${created.body.transactionId}/infraction`, {
      amountCents: 300,
      reason: 'fraud',
      recoveryId: 'REC-1',
      hop: 1,
      situation: 'scam',
    });
    expect(infraction.body).toMatchObject({ status: 'open', recoveryId: 'REC-1', hop: 1, situation: 'scam' });
    // The block takes the 250 left after the withdrawals; the 50 it lacks is the shortfall the next credits block.
    expect((await call('GET', '/v1/balance')).body).toMatchObject({ available: 250, blocked: 250, withdrawable: 0, shortfall: 50, owed: 0 });
    const defended = await call('POST', `/v1/infractions/${infraction.body.infractionId}/defense`, { text: 'Pedido entregue; nota fiscal 1001.' });
    expect(defended.body.status).toBe('in_defense');
    const closed = await call('POST', `/sandbox/v1/infractions/${infraction.body.infractionId}/close`, { outcome: 'rejected' });
    expect(closed.body.status).toBe('rejected');
    expect((await call('GET', '/v1/infractions?status=rejected')).body.count).toBe(1);
    expect((await call('GET', '/v1/balance')).body).toMatchObject({ available: 250, blocked: 0, withdrawable: 250 });
    const account = await call(
      'POST',
      '/admin/v1/accounts',
      {
        name: 'Minha Loja',
        email: 'loja@example.com',
        emailVerified: true,
        city: 'Recife',
        responsible: { name: 'João Lima', cpf: '529.982.247-25' },
        kycStatus: 'approved',
      },
      adminToken,
    );
    expect(account.status).toBe(201);
    expect((await call('POST', `/admin/v1/accounts/${account.body.accountId}/api-keys`, undefined, adminToken)).status).toBe(201);
    const docs = await fetch(`${base}/openapi.json`);
    expect(docs.status).toBe(200);

    // The in-process worker delivered the events, signed for the endpoint's secret.
    // Twelve events in all: the charge paid, created, processing and paid for each withdrawal, the
    // refund, and the MED case's infraction, blocked, protest and dispute.
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(12);
    const paidEvent = receiver.received.find((request) => request.headers['x-svc-event'] === 'transaction.paid')!;
    const body = new Webhook(endpoint.body.secret).verify(paidEvent.body, paidEvent.headers as Record<string, string>);
    expect(body).toMatchObject({ event: 'transaction.paid', transactionId: created.body.transactionId, status: 'paid' });
    expect(receiver.received.map((request) => request.headers['x-svc-event']).sort()).toEqual(
      [
        'transaction.paid',
        'transfer.created',
        'transfer.created',
        'transfer.paid',
        'transfer.paid',
        'transfer.processing',
        'transfer.processing',
        'transaction.partially_refunded',
        'transaction.infraction',
        'transaction.blocked',
        'transaction.protest',
        'transaction.dispute',
      ].sort(),
    );
  });

  it('refuses a second process on the same data folder with a clear message', async () => {
    const second = run(['serve'], { PORT: String(await freePort()) });
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(/data folder .* is in use by process \d+/);
  });

  it('migrate applies the migrations once, on its own data folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gateway-migrate-'));
    try {
      const first = run(['migrate'], { DATA_DIR: folder });
      expect(await first.exited).toBe(0);
      expect(first.output()).toMatch(/Applied: 001_core\.sql/);
      const second = run(['migrate'], { DATA_DIR: folder });
      expect(await second.exited).toBe(0);
      expect(second.output()).toContain('Database is up to date.');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a restart keeps the data and the admin token and prints no new key', async () => {
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const port = Number(new URL(base).port);
    const restarted = run(['serve'], { PORT: String(port), HOST: '127.0.0.1' });
    await restarted.waitFor(/listening on/);
    expect(restarted.output()).not.toMatch(/svck_|adm_/);
    const balance = await call('GET', '/v1/balance');
    expect(balance.body.available).toBe(250);
    const doctor = run(['doctor'], {});
    // The data folder is locked by the running server: doctor refuses rather than corrupting it.
    expect(await doctor.exited).toBe(1);
  });
});
