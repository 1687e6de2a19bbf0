import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundService } from '../../src/inbound/service.js';
import { makePspCertificates } from '../psp/certificates.js';
import { CLIENT_ID, CLIENT_SECRET } from '../psp/double.js';
import { fund } from '../helpers/api.js';
import { ADMIN_TOKEN, backend, chargeBody, providersFile, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Several PSPs at once (DESIGN.md §14), with simulated providers: routing by weight and per
 * account, failover of charges within the request when a provider is down or times out, the orphan
 * charge removed when it recovers, withdrawals that move only when provably never received, and
 * never sent twice whatever the faults (a property over random fault sequences).
 */

/** Simulated providers with short timeouts: a `timeout` outage makes each call wait this long. */
const simulated = (ids: string[], timeoutMs = 50) => providersFile(ids.map((id) => ({ id, kind: 'simulated', timeoutMs })));

const LIMITS = { limits: { pixPerHour: 100_000, withdrawPerSecond: 1000, withdrawPerMinute: 1000, withdrawPerHour: 1000 } };

async function providerOf(gateway: Gateway, transactionId: string): Promise<string> {
  const read = await gateway.admin('GET', `/admin/v1/transactions/${transactionId}`);
  expect(read.status).toBe(200);
  return read.body.providerId;
}

const outage = (gateway: Gateway, providerId: string, mode: 'down' | 'timeout' | 'up') =>
  gateway.call('POST', `/sandbox/v1/providers/${providerId}/outage`, { key: ADMIN_TOKEN, body: { mode } });

/** A breaker opened by failures lets a probe through after 2 s (its first open period). */
const BREAKER_OPEN_MS = 2_000;

describe(`several providers: routing (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  beforeAll(async () => {
    gateway = await startGateway({ PROVIDERS_FILE: simulated(['psp-a', 'psp-b', 'psp-c']) });
    merchant = await gateway.createMerchant(LIMITS);
  });
  afterAll(() => gateway.close());

  it('without rules every configured provider takes a share, weight 1 each', async () => {
    const rules = await gateway.admin('GET', '/admin/v1/routing');
    expect(rules.status).toBe(200);
    const everyone = ['psp-a', 'psp-b', 'psp-c'].map((providerId) => ({ providerId, weight: 1 }));
    expect(rules.body).toEqual({ charges: everyone, withdrawals: everyone, accounts: {} });
    const providers = await gateway.admin('GET', '/admin/v1/providers');
    expect(providers.body.providers.map((provider: { id: string; kind: string; state: string }) => [provider.id, provider.kind, provider.state])).toEqual([
      ['psp-a', 'simulated', 'up'],
      ['psp-b', 'simulated', 'up'],
      ['psp-c', 'simulated', 'up'],
    ]);
  });

  it('splits charges by weight among the providers of the default list, and an account list replaces it', async () => {
    const other = await gateway.createMerchant(LIMITS);
    const put = await gateway.admin('PUT', '/admin/v1/routing', {
      charges: [
        { providerId: 'psp-a', weight: 3 },
        { providerId: 'psp-b', weight: 1 },
      ],
      withdrawals: [{ providerId: 'psp-c', weight: 1 }],
      accounts: { [other.accountId]: { charges: [{ providerId: 'psp-c', weight: 1 }] } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const counts: Record<string, number> = {};
    for (let index = 0; index < 160; index++) {
      const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
      expect(created.status).toBe(201);
      const providerId = await providerOf(gateway, created.body.transactionId);
      counts[providerId] = (counts[providerId] ?? 0) + 1;
    }
    expect(Object.keys(counts).sort()).toEqual(['psp-a', 'psp-b']);
    // 3:1 → 120 expected at psp-a; far outside this band only with a broken draw (p < 1e-6).
    expect(counts['psp-a']).toBeGreaterThan(90);
    expect(counts['psp-a']).toBeLessThan(150);

    for (let index = 0; index < 5; index++) {
      const created = await gateway.call('POST', '/v1/pix', { key: other.apiKey, body: chargeBody() });
      expect(await providerOf(gateway, created.body.transactionId)).toBe('psp-c');
    }
    await fund(gateway, merchant, 100_000);
    const sent = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(sent.status).toBe(201);
    expect(await providerOf(gateway, sent.body.transactionId)).toBe('psp-c');
    // The operator's view names the provider; the merchant's does not.
    const merchantView = await gateway.call('GET', `/v1/transactions/${sent.body.transactionId}`, { key: merchant.apiKey });
    expect(merchantView.body).not.toHaveProperty('providerId');
  });

  it('refuses bad rules with a clear 400 and changes nothing', async () => {
    const before = (await gateway.admin('GET', '/admin/v1/routing')).body;
    const refusals: [unknown, string][] = [
      [{ charges: [{ providerId: 'psp-x', weight: 1 }], withdrawals: [{ providerId: 'psp-a', weight: 1 }] }, "charges: provedor desconhecido 'psp-x'."],
      [
        { charges: [{ providerId: 'psp-a', weight: 0 }], withdrawals: [{ providerId: 'psp-a', weight: 1 }] },
        'charges[].weight deve ser um número maior que zero.',
      ],
      [
        { charges: [{ providerId: 'psp-a', weight: -2 }], withdrawals: [{ providerId: 'psp-a', weight: 1 }] },
        'charges[].weight deve ser um número maior que zero.',
      ],
      [{ charges: [], withdrawals: [{ providerId: 'psp-a', weight: 1 }] }, 'charges deve ter ao menos um provedor.'],
      [{ charges: [{ providerId: 'psp-a', weight: 1 }], withdrawals: [] }, 'withdrawals deve ter ao menos um provedor.'],
      [
        {
          charges: [
            { providerId: 'psp-a', weight: 1 },
            { providerId: 'psp-a', weight: 2 },
          ],
          withdrawals: [{ providerId: 'psp-a', weight: 1 }],
        },
        "charges: provedor 'psp-a' repetido.",
      ],
      [
        { charges: [{ providerId: 'psp-a', weight: 1 }], withdrawals: [{ providerId: 'psp-a', weight: 1 }], accounts: { 'not-an-account': {} } },
        "accounts: conta não encontrada 'not-an-account'.",
      ],
      [
        {
          charges: [{ providerId: 'psp-a', weight: 1 }],
          withdrawals: [{ providerId: 'psp-a', weight: 1 }],
          accounts: { [merchant.accountId]: { withdrawals: [{ providerId: 'nope', weight: 1 }] } },
        },
        `accounts.${merchant.accountId}.withdrawals: provedor desconhecido 'nope'.`,
      ],
    ];
    for (const [body, error] of refusals) {
      const refused = await gateway.admin('PUT', '/admin/v1/routing', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toEqual({ error });
    }
    expect((await gateway.admin('GET', '/admin/v1/routing')).body).toEqual(before);
    expect((await gateway.call('PUT', '/admin/v1/routing', { key: null, body: before })).status).toBe(401);
  });

  it('audits every change of the rules with before and after', async () => {
    const before = (await gateway.admin('GET', '/admin/v1/routing')).body;
    const after = { charges: [{ providerId: 'psp-b', weight: 2.5 }], withdrawals: [{ providerId: 'psp-a', weight: 1 }], accounts: {} };
    expect((await gateway.admin('PUT', '/admin/v1/routing', after)).status).toBe(200);
    const audit = await gateway.admin('GET', '/admin/v1/audit');
    const entry = audit.body.entries.find((candidate: { action: string }) => candidate.action === 'PUT /admin/v1/routing');
    expect(entry).toMatchObject({ actor: 'admin-token', changes: { before, after } });
  });
});

describe(`several providers: failover (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  beforeAll(async () => {
    gateway = await startGateway({ PROVIDERS_FILE: simulated(['psp-a', 'psp-b']), SANDBOX_SETTLE_MS: 'manual' });
    merchant = await gateway.createMerchant(LIMITS);
    await fund(gateway, merchant, 10_000_000);
  });
  afterAll(() => gateway.close());

  const charge = async () => {
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { transactionId: created.body.transactionId, providerId: await providerOf(gateway, created.body.transactionId) };
  };

  const health = async () =>
    Object.fromEntries(
      ((await gateway.admin('GET', '/admin/v1/providers')).body.providers as { id: string; state: string }[]).map((provider) => [provider.id, provider.state]),
    );

  it('the outage switch is the operator’s: 401 without the admin token, 404 for a provider that is not simulated, 400 for a bad mode', async () => {
    expect((await gateway.call('POST', '/sandbox/v1/providers/psp-a/outage', { key: merchant.apiKey, body: { mode: 'down' } })).status).toBe(401);
    const unknown = await outage(gateway, 'psp-z', 'down');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Provedor não encontrado.' });
    const bad = await gateway.call('POST', '/sandbox/v1/providers/psp-a/outage', { key: ADMIN_TOKEN, body: { mode: 'sideways' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "mode deve ser 'down', 'timeout' ou 'up'." });
  });

  it('a provider down mid-stream: every charge answers 201 from the other, none is bound to the dead one, and its breaker opens', async () => {
    for (let index = 0; index < 10; index++) await charge();
    expect((await outage(gateway, 'psp-a', 'down')).status).toBe(200);
    const during = [];
    for (let index = 0; index < 30; index++) during.push(await charge());
    expect(during.every((created) => created.providerId === 'psp-b')).toBe(true);
    expect((await health())['psp-a']).toBe('down');
    const providers = (await gateway.admin('GET', '/admin/v1/providers')).body.providers;
    expect(providers[0]?.lastError?.message).toBe('simulated provider psp-a is down (connection refused)');
    const metrics = await gateway.call('GET', '/metrics');
    expect(metrics.body).toContain('pix_gateway_provider_state{provider="psp-a",state="down"} 1');
    expect(metrics.body).toContain('pix_gateway_provider_call_duration_seconds_count{provider="psp-a",operation="createCharge",outcome="failed"}');

    // Back up: after its open period a probe takes new traffic again, and the breaker closes.
    await outage(gateway, 'psp-a', 'up');
    await sleep(BREAKER_OPEN_MS + 100);
    const after = [];
    for (let index = 0; index < 20; index++) after.push(await charge());
    expect(after.some((created) => created.providerId === 'psp-a')).toBe(true);
    expect((await health())['psp-a']).not.toBe('down');
  });

  it('a provider that times out: charges still answer 201 from the other; the orphan charge it kept is removed when it recovers', async () => {
    await outage(gateway, 'psp-b', 'timeout');
    // Routing draws psp-b first about half the time: charge until it has had a go (12 charges
    // left it untried once in a few thousand runs), then a few more while its breaker is open.
    const orphansAtB = () => gateway.database.db.selectFrom('orphanCharges').selectAll().where('providerId', '=', 'psp-b').execute();
    const during = [];
    while ((await orphansAtB()).length === 0 && during.length < 200) during.push(await charge());
    for (let index = 0; index < 5; index++) during.push(await charge());
    expect(during.every((created) => created.providerId === 'psp-a')).toBe(true);
    const orphans = await orphansAtB();
    expect(orphans.length).toBeGreaterThanOrEqual(1);
    // Each orphan is a charge the gateway made elsewhere (same id): never shown with psp-b's code.
    for (const orphan of orphans) expect(await providerOf(gateway, orphan.transactionId)).toBe('psp-a');
    const kept = await gateway.database.db.selectFrom('sandboxCharges').select(['transactionId', 'status']).where('providerId', '=', 'psp-b').execute();
    expect(kept.map((row) => row.status)).toEqual(orphans.map(() => 'active'));

    // While it is down, nothing is removed; once it is back and taken by a probe, every orphan goes.
    expect(await gateway.services.charges.removeOrphans()).toBe(0);
    await outage(gateway, 'psp-b', 'up');
    await sleep(BREAKER_OPEN_MS + 100);
    for (let index = 0; index < 10; index++) await charge();
    expect((await health())['psp-b']).not.toBe('down');
    // A removal tried while it was still timing out waits for its next attempt (backing off from 10 s).
    gateway.clock.advance(3_600_000);
    expect(await gateway.services.charges.removeOrphans()).toBe(orphans.length);
    const removed = await gateway.database.db.selectFrom('sandboxCharges').select('status').where('providerId', '=', 'psp-b').execute();
    expect(removed.every((row) => row.status === 'removed')).toBe(true);
    const left = await gateway.database.db.selectFrom('orphanCharges').select('removedAt').where('providerId', '=', 'psp-b').execute();
    expect(left.every((row) => row.removedAt !== null)).toBe(true);
    expect(await gateway.services.charges.removeOrphans()).toBe(0);
  });

  it('no provider up: 502 with the spec’s message, nothing recorded', async () => {
    await outage(gateway, 'psp-a', 'down');
    await outage(gateway, 'psp-b', 'down');
    const count = async () =>
      Number(
        (
          await gateway.database.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const refused = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({ error: 'Erro ao comunicar com gateway. Tente novamente.' });
    expect(await count()).toBe(before);
    await outage(gateway, 'psp-a', 'up');
    await outage(gateway, 'psp-b', 'up');
    await sleep(BREAKER_OPEN_MS + 100);
  });

  it('a withdrawal moves to the other provider only when the first provably never received it; one that may have been received stays', async () => {
    await gateway.admin('PUT', '/admin/v1/routing', {
      charges: [{ providerId: 'psp-a', weight: 1 }],
      withdrawals: [
        { providerId: 'psp-a', weight: 1000 },
        { providerId: 'psp-b', weight: 0.001 },
      ],
    });
    const received = async (transactionId: string) =>
      gateway.database.db.selectFrom('sandboxWithdrawals').select('providerId').where('transactionId', '=', transactionId).execute();

    // Refused at once (down): nothing reached psp-a, so psp-b sends it.
    await outage(gateway, 'psp-a', 'down');
    const moved = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ externalRef: 'moved-1' }) });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect(moved.body.status).toBe('processing');
    expect(await providerOf(gateway, moved.body.transactionId)).toBe('psp-b');
    expect(await received(moved.body.transactionId)).toEqual([{ providerId: 'psp-b' }]);
    const send = await gateway.admin('GET', `/admin/v1/provider-sends/${moved.body.transactionId}`);
    expect(send.body.history[0]).toMatchObject({ step: 'send', answer: 'not_sent' });
    expect(send.body.history[0]?.detail).toContain('moved to provider psp-b');

    // Timed out after sending: it may be at psp-a — it stays there, failed_unknown, and is never sent to psp-b.
    await outage(gateway, 'psp-a', 'timeout');
    await sleep(BREAKER_OPEN_MS + 100);
    const unknown = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ externalRef: 'stays-1' }) });
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(202);
    expect(unknown.body.status).toBe('failed_unknown');
    expect(await providerOf(gateway, unknown.body.transactionId)).toBe('psp-a');
    expect(await received(unknown.body.transactionId)).toEqual([{ providerId: 'psp-a' }]);
    await outage(gateway, 'psp-a', 'up');
  });

  it('credits a received PIX only from the provider that issued its charge; one another provider received is returned through it', async () => {
    const { transactionId, providerId } = await charge();
    const other = providerId === 'psp-a' ? 'psp-b' : 'psp-a';
    const { charges, refunds, infractions, clock, staticQr, accounts, recurrences } = gateway.services;
    const before = (await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body.available;
    const wrong = new InboundService(other, gateway.database.db, clock, charges, refunds, infractions, staticQr, accounts, recurrences);
    const atOther = { transactionId, endToEndId: 'E99999999202611261200abcdefghijk', amountCents: 1000, payer: null };
    expect(await wrong.paymentReceived(atOther)).toBe('other_provider');
    expect(await wrong.paymentReceived(atOther)).toBe('duplicate');
    expect((await gateway.call('GET', `/v1/transactions/${transactionId}`, { key: merchant.apiKey })).body.status).toBe('pending');
    const returned = await gateway.database.db
      .selectFrom('refunds')
      .select(['kind', 'providerId', 'amountCents'])
      .where('transactionId', '=', transactionId)
      .execute();
    expect(returned).toEqual([{ kind: 'returned_payment', providerId: other, amountCents: 1000 }]);
    const sentBack = await gateway.database.db.selectFrom('sandboxRefunds').select('providerId').where('accountId', '=', merchant.accountId).execute();
    expect(sentBack).toEqual([{ providerId: other }]);
    const right = new InboundService(providerId, gateway.database.db, clock, charges, refunds, infractions, staticQr, accounts, recurrences);
    expect(await right.paymentReceived({ ...atOther, endToEndId: 'E99999999202611261200abcdefghijm' })).toBe('credited');
    // Fees are charged on the credited PIX only.
    const credited = (await gateway.call('GET', `/v1/transactions/${transactionId}`, { key: merchant.apiKey })).body;
    expect(credited.status).toBe('paid');
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body.available).toBe(before + 1000 - credited.feeCents);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});

describe(`several providers: a withdrawal is never sent twice, whatever the faults (${backend})`, { timeout: 240_000 }, () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({ PROVIDERS_FILE: simulated(['psp-a', 'psp-b'], 20), SANDBOX_SETTLE_MS: 'manual' });
  });
  afterAll(() => gateway.close());

  const mode = fc.constantFrom<'up' | 'down' | 'timeout'>('up', 'up', 'down', 'timeout');
  const step = fc.record({
    a: mode,
    b: mode,
    directive: fc.constantFrom<null | 'provider_error' | 'unknown' | 'interrupted'>(null, null, 'provider_error', 'unknown', 'interrupted'),
    retry: fc.boolean(),
  });

  it('after each step: at most one provider holds each withdrawal, only the one it is bound to, and only debited ones; the ledger and the PSPs agree at the end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const merchant = await gateway.createMerchant(LIMITS);
        await fund(gateway, merchant, 1_000_000);
        const ids = new Set<string>();
        const db = gateway.database.db;
        const checkAtMostOnce = async () => {
          for (const id of ids) {
            const rows = await db.selectFrom('sandboxWithdrawals').select('providerId').where('transactionId', '=', id).execute();
            expect(rows.length).toBeLessThanOrEqual(1);
            if (rows[0]) expect(rows[0].providerId).toBe(await providerOf(gateway, id));
          }
          // The PSPs' side: whatever a PSP received is debited in the ledger (never reversed), so what they hold never exceeds the debits.
          const received = await db
            .selectFrom('sandboxWithdrawals')
            .innerJoin('transactions', 'transactions.id', 'sandboxWithdrawals.transactionId')
            .select(['transactions.status', 'sandboxWithdrawals.amountCents'])
            .where('sandboxWithdrawals.accountId', '=', merchant.accountId)
            .execute();
          expect(received.filter((row) => !['processing', 'failed_unknown', 'paid'].includes(row.status))).toEqual([]);
          const debited = await db
            .selectFrom('transactions')
            .select('amountCents')
            .where('accountId', '=', merchant.accountId)
            .where('status', 'in', ['processing', 'failed_unknown', 'paid'])
            .execute();
          const sum = (rows: { amountCents: number | null }[]) => rows.reduce((total, row) => total + Number(row.amountCents ?? 0), 0);
          expect(sum(received)).toBeLessThanOrEqual(sum(debited));
        };
        for (const [index, fault] of steps.entries()) {
          await outage(gateway, 'psp-a', fault.a);
          await outage(gateway, 'psp-b', fault.b);
          if (fault.directive) await gateway.call('POST', '/sandbox/v1/provider/next-withdrawal', { key: merchant.apiKey, body: { outcome: fault.directive } });
          const body = withdrawalToHolder({ amountCents: 1000 + index, externalRef: `w-${index}` });
          const answered = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body });
          expect([201, 202, 502]).toContain(answered.status);
          if (answered.body.transactionId) ids.add(answered.body.transactionId);
          if (fault.retry) {
            const again = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body });
            if (again.body.transactionId) ids.add(again.body.transactionId);
          }
          const listed = await gateway.call('GET', '/v1/transactions?type=withdrawal', { key: merchant.apiKey });
          for (const row of listed.body.transactions) ids.add(row.transactionId);
          await checkAtMostOnce();
          expect(await gateway.ledgerProblems()).toEqual([]);
        }
        // Everything up; the settling window passes; the network settles what it received and the checks conclude.
        await outage(gateway, 'psp-a', 'up');
        await outage(gateway, 'psp-b', 'up');
        const undecided = await db
          .selectFrom('sandboxWithdrawals')
          .select('transactionId')
          .where('accountId', '=', merchant.accountId)
          .where('outcome', 'is', null)
          .execute();
        for (const { transactionId } of undecided) {
          // The network pays what it received; the gateway learns it by its notification or its checks.
          await gateway.call('POST', `/sandbox/v1/withdrawals/${transactionId}/settle`, { key: merchant.apiKey, body: { outcome: 'paid' } });
        }
        for (let round = 0; round < 4; round++) {
          gateway.clock.advance(3_600_000);
          await gateway.services.withdrawals.sendUnsent();
          await gateway.services.withdrawals.reconcile();
        }
        await checkAtMostOnce();
        const rows = await db
          .selectFrom('transactions')
          .select(['id', 'status', 'amountCents', 'feeCents'])
          .where('accountId', '=', merchant.accountId)
          .execute();
        expect(rows.filter((row) => row.status === 'processing' || row.status === 'failed_unknown')).toEqual([]);
        const paid = rows.filter((row) => row.status === 'paid');
        const atPsps = await db.selectFrom('sandboxWithdrawals').select(['transactionId', 'outcome']).where('accountId', '=', merchant.accountId).execute();
        // Every paid withdrawal was paid by exactly one PSP, and no PSP paid one the ledger does not debit.
        expect(
          atPsps
            .filter((row) => row.outcome === 'paid')
            .map((row) => row.transactionId)
            .sort(),
        ).toEqual(paid.map((row) => row.id).sort());
        const balance = (await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body.available;
        expect(balance).toBe(1_000_000 - paid.reduce((sum, row) => sum + row.amountCents + row.feeCents, 0));
        expect(await gateway.ledgerProblems()).toEqual([]);
      }),
      { numRuns: 12 },
    );
  });
});

describe(`several providers: simulated beside a real PSP (${backend})`, () => {
  let gateway: Gateway;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'mixed-'));
    const certificates = makePspCertificates(folder);
    const secret = join(folder, 'client-secret');
    writeFileSync(secret, CLIENT_SECRET);
    const real = {
      id: 'efi',
      kind: 'apipix',
      // Never called here: the charges below go to the simulator.
      baseUrl: 'https://127.0.0.1:9/v2',
      clientId: CLIENT_ID,
      clientSecretFile: secret,
      certFile: certificates.gatewayClientCert,
      keyFile: certificates.gatewayClientKey,
      caFile: certificates.caCert,
      pixKey: 'recebimentos@gateway.example',
    };
    gateway = await startGateway({ PROVIDERS_FILE: providersFile([{ id: 'sim', kind: 'simulated' }, real]) });
  });
  afterAll(async () => {
    await gateway.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('a merchant cannot play the sandbox (its own charge paid with play money, then withdrawn for real); the operator keeps the outage switch', async () => {
    const merchant = await gateway.createMerchant(LIMITS);
    await gateway.admin('PUT', '/admin/v1/routing', { charges: [{ providerId: 'sim', weight: 1 }], withdrawals: [{ providerId: 'sim', weight: 1 }] });
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect(created.status).toBe(201);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, { key: merchant.apiKey })).status).toBe(404);
    expect((await gateway.call('POST', '/sandbox/v1/provider/next-charge', { key: merchant.apiKey, body: { outcome: 'provider_error' } })).status).toBe(404);
    expect((await outage(gateway, 'sim', 'down')).status).toBe(200);
    expect((await outage(gateway, 'efi', 'down')).status).toBe(404);
    await outage(gateway, 'sim', 'up');
  });
});
