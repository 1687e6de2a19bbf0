import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/** Probes and request ids: what a load balancer and an operator rely on. */
let gateway: Gateway;
let merchant: Merchant;
let logs = '';

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk) => (logs += chunk));
  gateway = await startGateway({ LOG_LEVEL: 'info' }, { logs: stream });
  merchant = await gateway.createMerchant();
});
afterAll(async () => {
  await gateway.close();
});

describe('probes (no key needed)', () => {
  it('/healthz answers while the process runs', async () => {
    expect(await gateway.call('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('/readyz answers 200 when the database answers and its migrations are current', async () => {
    expect(await gateway.call('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('/readyz answers 503 naming a migration the database lacks, and 200 again once it is there', async () => {
    const db = gateway.database.db;
    await db.deleteFrom('schemaMigrations').where('version', '=', '005_states_and_provider.sql').execute();
    try {
      expect(await gateway.call('GET', '/readyz')).toMatchObject({ status: 503, body: { error: messages.migrationsPending(['005_states_and_provider.sql']) } });
    } finally {
      await db.insertInto('schemaMigrations').values({ version: '005_states_and_provider.sql' }).execute();
    }
    expect((await gateway.call('GET', '/readyz')).status).toBe(200);
  });

  it('/readyz answers 503 when the database does not answer', async () => {
    const stopped = await startGateway();
    await stopped.database.close();
    try {
      expect(await stopped.call('GET', '/readyz')).toMatchObject({ status: 503, body: { error: messages.databaseUnreachable } });
      expect((await stopped.call('GET', '/healthz')).status).toBe(200);
    } finally {
      await stopped.app.close();
    }
  });
});

describe('X-Request-Id', () => {
  it('every response carries one, a new UUID when the caller sent none, errors included', async () => {
    const ok = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
    const refused = await gateway.call('GET', '/v1/balance');
    const missing = await gateway.call('GET', '/nowhere');
    for (const reply of [ok, refused, missing])
      expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set([ok, refused, missing].map((reply) => reply.headers.get('x-request-id'))).size).toBe(3);
  });

  it("keeps a sane incoming id and puts it on the request's log lines", async () => {
    const id = 'lb-2026.11.23:abc_123';
    const reply = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey, headers: { 'x-request-id': id } });
    expect(reply.headers.get('x-request-id')).toBe(id);
    const lines = logs
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { reqId?: string; msg?: string });
    const ofRequest = lines.filter((line) => line.reqId === id);
    expect(ofRequest.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
  });

  it.each([['a'.repeat(129)], ['has space'], ['semi;colon'], ['quote"x'], ['<script>']])(
    'replaces an incoming id that is not 1–128 of A-Z a-z 0-9 . _ : - (%#)',
    async (id) => {
      const reply = await fetch(`${gateway.url}/healthz`, { headers: { 'x-request-id': id } });
      expect(reply.headers.get('x-request-id')).not.toBe(id);
      expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    },
  );
});
