import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, fund } from '../helpers/api.js';
import { ADMIN_TOKEN, backend, chargeBody, providersFile, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { withField } from '../helpers/contract.js';

/**
 * Per-PSP caps (DESIGN.md §19): each provider's most per PIX, by day and in its night window
 * (America/Sao_Paulo, crossing midnight), on simulated providers. A charge or withdrawal above one
 * provider's cap goes to another, failover skips a capped provider, and when none can take it the
 * answer is the exact 422 with nothing written. The clock is the gateway's ManualClock, moved to
 * the São Paulo hour each case needs.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
/** São Paulo keeps UTC−3 all year. */
const SAO_PAULO_OFFSET = 3 * 3_600_000;

/** Moves the gateway's clock forward to the next HH:MM:30 of São Paulo (30 s into that minute). */
function toSaoPaulo(gateway: Gateway, clockTime: string): void {
  const [hours = 0, minutes = 0] = clockTime.split(':').map(Number);
  const wanted = hours * 60 * MINUTE + minutes * MINUTE + 30_000;
  const current = (((gateway.clock.now().getTime() - SAO_PAULO_OFFSET) % DAY) + DAY) % DAY;
  gateway.clock.advance((((wanted - current) % DAY) + DAY) % DAY);
}

/** High enough that only the providers' caps refuse. */
const LIMITS = {
  limits: {
    pixPerHour: 100_000,
    withdrawPerSecond: 1000,
    withdrawPerMinute: 1000,
    withdrawPerHour: 1000,
    withdrawMaxCents: 10_000_000,
    withdrawDailyCents: 1_000_000_000,
    withdrawMonthlyCents: 10_000_000_000,
  },
};

async function providerOf(gateway: Gateway, transactionId: string): Promise<string> {
  const read = await gateway.admin('GET', `/admin/v1/transactions/${transactionId}`);
  expect(read.status).toBe(200);
  return read.body.providerId;
}

/** What a refusal must leave as it was: every transaction, ledger entry and idempotency key, and the balance. */
async function written(gateway: Gateway, merchant: Merchant) {
  const count = async (table: 'transactions' | 'ledgerEntries' | 'idempotencyKeys') =>
    Number(
      (
        await gateway.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    transactions: await count('transactions'),
    ledgerEntries: await count('ledgerEntries'),
    idempotencyKeys: await count('idempotencyKeys'),
    balance: await balanceOf(gateway, merchant),
  };
}

const capRefusal = (amount: string) => ({ error: `Valor acima do limite por transação dos provedores disponíveis (${amount}).` });

describe(`caps with two providers, a night window across midnight (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;
  /** A merchant routed to psp-a alone: its night window decides. */
  let nightOnly: Merchant;

  beforeAll(async () => {
    gateway = await startGateway({
      PROVIDERS_FILE: providersFile([
        // R$ 15.000,00 by day, R$ 1.000,00 from 20:00 to 06:00.
        { id: 'psp-a', kind: 'simulated', maxChargeCents: 1_500_000, maxWithdrawalCents: 1_500_000, night: { from: '20:00', to: '06:00', maxCents: 100_000 } },
        { id: 'psp-b', kind: 'simulated', maxChargeCents: 5_000_000, maxWithdrawalCents: 3_000_000 },
      ]),
    });
    merchant = await gateway.createMerchant(LIMITS);
    nightOnly = await gateway.createMerchant(LIMITS);
    await fund(gateway, merchant, 50_000_000);
    await fund(gateway, nightOnly, 50_000_000);
    const onlyA = [{ providerId: 'psp-a', weight: 1 }];
    const everyone = [...onlyA, { providerId: 'psp-b', weight: 1 }];
    const put = await gateway.admin('PUT', '/admin/v1/routing', {
      charges: everyone,
      withdrawals: everyone,
      accounts: { [nightOnly.accountId]: { charges: onlyA, withdrawals: onlyA } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });
  afterAll(() => gateway.close());

  const charge = (who: Merchant, amountCents: number, externalRef?: string) =>
    gateway.call('POST', '/v1/pix', { key: who.apiKey, body: chargeBody({ amountCents, ...(externalRef ? { externalRef } : {}) }) });
  const withdrawal = (who: Merchant, amountCents: number, externalRef?: string) =>
    gateway.call('POST', '/v1/withdraw', { key: who.apiKey, body: withdrawalToHolder({ amountCents, ...(externalRef ? { externalRef } : {}) }) });

  it('by day, a charge and a withdrawal above psp-a’s cap always go to psp-b; at the cap itself either may take it', async () => {
    toSaoPaulo(gateway, '14:00');
    for (let index = 0; index < 6; index++) {
      const created = await charge(merchant, 1_500_001);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(await providerOf(gateway, created.body.transactionId)).toBe('psp-b');
      const sent = await withdrawal(merchant, 2_000_000);
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      expect(await providerOf(gateway, sent.body.transactionId)).toBe('psp-b');
    }
    // Exactly the cap is within it: psp-a still takes its share (the odds of 20 draws all at psp-b are 1 in a million).
    const atCap = [];
    for (let index = 0; index < 20; index++) {
      const created = await charge(merchant, 1_500_000);
      expect(created.status).toBe(201);
      atCap.push(await providerOf(gateway, created.body.transactionId));
    }
    expect(atCap).toContain('psp-a');
  });

  it('none can take it: 422 naming the most one of them takes now, nothing written; the same externalRef then takes a smaller amount', async () => {
    toSaoPaulo(gateway, '14:00');
    const before = await written(gateway, merchant);
    const tooLarge = await withdrawal(merchant, 3_000_001, 'saque-grande');
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.body).toEqual(capRefusal('R$ 30.000,00'));
    const chargeTooLarge = await charge(merchant, 5_000_001, 'cobranca-grande');
    expect(chargeTooLarge.status).toBe(422);
    expect(chargeTooLarge.body).toEqual(capRefusal('R$ 50.000,00'));
    // The same again is refused again: no answer was stored to replay.
    expect((await withdrawal(merchant, 3_000_001, 'saque-grande')).body).toEqual(capRefusal('R$ 30.000,00'));
    expect(await written(gateway, merchant)).toEqual(before);

    // The externalRef was never taken: a retry within the caps is a new withdrawal and a new charge.
    const retried = await withdrawal(merchant, 3_000_000, 'saque-grande');
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(withField(retried.body, 'amountCents').amountCents).toBe(3_000_000);
    expect(await providerOf(gateway, retried.body.transactionId)).toBe('psp-b');
    const chargeRetried = await charge(merchant, 5_000_000, 'cobranca-grande');
    expect(chargeRetried.status).toBe(201);
    expect(await balanceOf(gateway, merchant)).toBe(before.balance - 3_000_000 - 100);
  });

  it('the night window holds on both sides of midnight, for both directions, and ends at 06:00', async () => {
    const takesAt = async (clockTime: string) => {
      toSaoPaulo(gateway, clockTime);
      const sent = await withdrawal(nightOnly, 100_001);
      const created = await charge(nightOnly, 100_001);
      return [sent.status, sent.body, created.status, created.body];
    };
    const refused = [422, capRefusal('R$ 1.000,00'), 422, capRefusal('R$ 1.000,00')];
    expect((await takesAt('19:59')).filter((part) => typeof part === 'number')).toEqual([201, 201]);
    for (const clockTime of ['20:00', '23:59', '00:00', '05:59']) expect(await takesAt(clockTime), clockTime).toEqual(refused);
    expect((await takesAt('06:00')).filter((part) => typeof part === 'number')).toEqual([201, 201]);

    // At night, within the night cap psp-a still takes it; above it, only psp-b for the merchant routed to both.
    toSaoPaulo(gateway, '23:30');
    const small = await withdrawal(nightOnly, 100_000);
    expect(small.status).toBe(201);
    expect(await providerOf(gateway, small.body.transactionId)).toBe('psp-a');
    for (let index = 0; index < 5; index++) {
      const sent = await withdrawal(merchant, 100_001);
      expect(await providerOf(gateway, sent.body.transactionId)).toBe('psp-b');
    }
    toSaoPaulo(gateway, '01:00'); // the next day, still within the window
    const created = await charge(merchant, 200_000);
    expect(await providerOf(gateway, created.body.transactionId)).toBe('psp-b');
  });

  it('GET /admin/v1/providers and /metrics show the caps as configured and the one in force now', async () => {
    const capsOf = async () => {
      const listed = await gateway.admin('GET', '/admin/v1/providers');
      expect(listed.status).toBe(200);
      return Object.fromEntries(
        listed.body.providers.map((provider: { id: string; caps: unknown; capNowCents: unknown }) => [provider.id, [provider.caps, provider.capNowCents]]),
      );
    };
    const configured = {
      'psp-a': { maxChargeCents: 1_500_000, maxWithdrawalCents: 1_500_000, night: { from: '20:00', to: '06:00', maxCents: 100_000 } },
      'psp-b': { maxChargeCents: 5_000_000, maxWithdrawalCents: 3_000_000, night: null },
    };
    toSaoPaulo(gateway, '12:00');
    expect(await capsOf()).toEqual({
      'psp-a': [configured['psp-a'], { charge: 1_500_000, withdrawal: 1_500_000 }],
      'psp-b': [configured['psp-b'], { charge: 5_000_000, withdrawal: 3_000_000 }],
    });
    let metrics = (await gateway.call('GET', '/metrics')).body as string;
    expect(metrics).toContain('pix_gateway_provider_cap_cents{provider="psp-a",direction="charge"} 1500000');
    expect(metrics).toContain('pix_gateway_provider_cap_cents{provider="psp-a",direction="withdrawal"} 1500000');
    expect(metrics).toContain('pix_gateway_provider_cap_cents{provider="psp-b",direction="withdrawal"} 3000000');

    toSaoPaulo(gateway, '22:00');
    expect((await capsOf())['psp-a']).toEqual([configured['psp-a'], { charge: 100_000, withdrawal: 100_000 }]);
    metrics = (await gateway.call('GET', '/metrics')).body as string;
    expect(metrics).toContain('pix_gateway_provider_cap_cents{provider="psp-a",direction="charge"} 100000');
    expect(metrics).toContain('pix_gateway_provider_cap_cents{provider="psp-a",direction="withdrawal"} 100000');
    expect(metrics).toContain('pix_gateway_provider_cap_cents{provider="psp-b",direction="charge"} 5000000');
    expect(metrics.match(/^pix_gateway_provider_cap_cents\{/gm)).toHaveLength(4);
  });

  it('a held withdrawal is routed by the caps at its approval: refused with nothing moved when none takes it, moved to one that does', async () => {
    const manual = await gateway.createMerchant({ ...LIMITS, withdrawalMode: 'manual' });
    await fund(gateway, manual, 10_000_000);
    const onlyA = [{ providerId: 'psp-a', weight: 1 }];
    const rules = (await gateway.admin('GET', '/admin/v1/routing')).body;
    const routeManual = async (withdrawals: unknown) =>
      expect((await gateway.admin('PUT', '/admin/v1/routing', { ...rules, accounts: { ...rules.accounts, [manual.accountId]: { withdrawals } } })).status).toBe(
        200,
      );
    await routeManual(onlyA);
    toSaoPaulo(gateway, '18:00');
    const held = await withdrawal(manual, 1_000_000);
    expect(held.body).toMatchObject({ status: 'pending_approval' });
    expect(await providerOf(gateway, held.body.transactionId)).toBe('psp-a');

    toSaoPaulo(gateway, '21:00');
    const before = await written(gateway, manual);
    const refused = await gateway.admin('POST', `/admin/v1/transactions/${held.body.transactionId}/approve`);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(capRefusal('R$ 1.000,00'));
    expect(await written(gateway, manual)).toEqual(before);
    expect((await gateway.admin('GET', `/admin/v1/transactions/${held.body.transactionId}`)).body).toMatchObject({
      status: 'pending_approval',
      providerId: 'psp-a',
    });

    await routeManual([...onlyA, { providerId: 'psp-b', weight: 1 }]);
    const approved = await gateway.admin('POST', `/admin/v1/transactions/${held.body.transactionId}/approve`);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect((await gateway.admin('GET', `/admin/v1/transactions/${held.body.transactionId}`)).body).toMatchObject({ status: 'processing', providerId: 'psp-b' });
    const atB = await gateway.database.db.selectFrom('sandboxWithdrawals').select('providerId').where('transactionId', '=', held.body.transactionId).execute();
    expect(atB).toEqual([{ providerId: 'psp-b' }]);
    expect(await balanceOf(gateway, manual)).toBe(before.balance - 1_000_000 - 100);
  });
});

describe(`caps with three providers: failover skips a capped one (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  beforeAll(async () => {
    gateway = await startGateway({
      PROVIDERS_FILE: providersFile([
        { id: 'psp-a', kind: 'simulated', timeoutMs: 50, maxChargeCents: 8_000_000, maxWithdrawalCents: 4_000_000 },
        { id: 'psp-b', kind: 'simulated', timeoutMs: 50, maxChargeCents: 1_000_000, maxWithdrawalCents: 1_000_000 },
        {
          id: 'psp-c',
          kind: 'simulated',
          timeoutMs: 50,
          maxChargeCents: 3_000_000,
          maxWithdrawalCents: 2_500_000,
          night: { from: '22:00', to: '05:00', maxCents: 500_000 },
        },
      ]),
    });
    merchant = await gateway.createMerchant(LIMITS);
    await fund(gateway, merchant, 50_000_000);
    // psp-b is drawn before psp-c almost always: without caps the failover would go to psp-b.
    const list = [
      { providerId: 'psp-a', weight: 1000 },
      { providerId: 'psp-b', weight: 1000 },
      { providerId: 'psp-c', weight: 1 },
    ];
    expect((await gateway.admin('PUT', '/admin/v1/routing', { charges: list, withdrawals: list, accounts: {} })).status).toBe(200);
  });
  afterAll(() => gateway.close());

  const outage = (providerId: string, mode: 'down' | 'up') =>
    gateway.call('POST', `/sandbox/v1/providers/${providerId}/outage`, { key: ADMIN_TOKEN, body: { mode } });

  it('with psp-a down, charges and withdrawals above psp-b’s cap fail over to psp-c, never to psp-b', async () => {
    toSaoPaulo(gateway, '10:00');
    expect((await outage('psp-a', 'down')).status).toBe(200);
    for (let index = 0; index < 5; index++) {
      const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 2_000_000 }) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(await providerOf(gateway, created.body.transactionId)).toBe('psp-c');
      const sent = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 2_000_000 }) });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      expect(await providerOf(gateway, sent.body.transactionId)).toBe('psp-c');
    }
    // Within psp-b's cap, the weights send it there.
    const small = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 1_000_000 }) });
    expect(await providerOf(gateway, small.body.transactionId)).toBe('psp-b');
    // A withdrawal that fails over records where it went, and was received by psp-c alone.
    const history = await gateway.database.db.selectFrom('sandboxWithdrawals').select('providerId').distinct().execute();
    expect(history).toEqual([{ providerId: 'psp-c' }]);
    expect((await outage('psp-a', 'up')).status).toBe(200);
  });

  it('none takes it: the highest cap in force is named, by day and in psp-c’s night', async () => {
    const before = await written(gateway, merchant);
    toSaoPaulo(gateway, '12:00');
    const day = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 4_000_001 }) });
    expect([day.status, day.body]).toEqual([422, capRefusal('R$ 40.000,00')]);
    const dayCharge = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 8_000_001 }) });
    expect([dayCharge.status, dayCharge.body]).toEqual([422, capRefusal('R$ 80.000,00')]);
    // With psp-a out of the list, at 23:00 psp-c takes R$ 5.000,00 at most and psp-b R$ 10.000,00.
    const list = [
      { providerId: 'psp-b', weight: 1 },
      { providerId: 'psp-c', weight: 1 },
    ];
    expect((await gateway.admin('PUT', '/admin/v1/routing', { charges: list, withdrawals: list, accounts: {} })).status).toBe(200);
    toSaoPaulo(gateway, '23:00');
    const night = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 1_000_001 }) });
    expect([night.status, night.body]).toEqual([422, capRefusal('R$ 10.000,00')]);
    expect(await written(gateway, merchant)).toEqual(before);
    toSaoPaulo(gateway, '05:00'); // psp-c's night is over: it takes R$ 25.000,00 again
    const morning = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 1_000_001 }) });
    expect(morning.status).toBe(201);
    expect(await providerOf(gateway, morning.body.transactionId)).toBe('psp-c');
  });
});
