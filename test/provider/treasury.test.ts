import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fund } from '../helpers/api.js';
import {
  ADMIN_TOKEN,
  backend,
  chargeBody,
  NO_CHARGE_FEES,
  providersFile,
  startGateway,
  withdrawalToHolder,
  type Gateway,
  type Merchant,
} from '../helpers/gateway.js';

/**
 * Treasury per PSP (DESIGN.md §14) with two simulated providers: money in and out by the ledger
 * against each PSP's reported balance; withdrawals go first to a provider that covers them; a low
 * cover raises one high alert when it falls.
 */

type Reading = {
  providerId: string;
  ledgerInCents: number;
  ledgerOutCents: number;
  ledgerNetCents: number;
  reportedCents: number | null;
  coverCents: number;
  low: boolean;
  readError: string | null;
};

describe(`treasury per PSP (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;
  const refresh = async (): Promise<Record<string, Reading>> => {
    const answer = await gateway.admin('POST', '/admin/v1/treasury/refresh');
    expect(answer.status).toBe(200);
    return Object.fromEntries((answer.body.providers as Reading[]).map((reading) => [reading.providerId, reading]));
  };
  const providerOf = async (transactionId: string) => (await gateway.admin('GET', `/admin/v1/transactions/${transactionId}`)).body.providerId;
  const lowAlerts = async () =>
    ((await gateway.admin('GET', '/admin/v1/alerts')).body.alerts as { kind: string }[]).filter((alert) => alert.kind === 'treasury_low_cover');

  beforeAll(async () => {
    gateway = await startGateway({
      PROVIDERS_FILE: providersFile([
        { id: 'psp-a', kind: 'simulated', timeoutMs: 20, openingBalanceCents: 5_000, lowCoverCents: 3_000 },
        { id: 'psp-b', kind: 'simulated', timeoutMs: 20 },
      ]),
      SANDBOX_SETTLE_MS: 'manual',
    });
    merchant = await gateway.createMerchant({ ...NO_CHARGE_FEES, limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } });
    await fund(gateway, merchant, 1_000_000);
    const routed = await gateway.admin('PUT', '/admin/v1/routing', {
      charges: [{ providerId: 'psp-a', weight: 1 }],
      // psp-a first by weight: only a treasury that cannot cover a withdrawal sends it to psp-b.
      withdrawals: [
        { providerId: 'psp-a', weight: 1e9 },
        { providerId: 'psp-b', weight: 1e-9 },
      ],
    });
    expect(routed.status).toBe(200);
  });
  afterAll(() => gateway.close());

  it('reads each PSP: the ledger’s money in and out, and the balance the PSP reports', async () => {
    expect((await gateway.admin('GET', '/admin/v1/treasury')).body).toEqual({ providers: [] });
    const first = await refresh();
    expect(first['psp-a']).toMatchObject({
      ledgerInCents: 0,
      ledgerOutCents: 0,
      ledgerNetCents: 0,
      reportedCents: 5_000,
      coverCents: 5_000,
      low: false,
      readError: null,
    });
    for (const amountCents of [1_000, 1_500]) {
      const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents }) });
      expect((await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, { key: merchant.apiKey })).status).toBe(200);
    }
    const second = await refresh();
    expect(second['psp-a']).toMatchObject({ ledgerInCents: 2_500, ledgerOutCents: 0, ledgerNetCents: 2_500, reportedCents: 7_500, coverCents: 7_500 });
    expect(second['psp-b']).toMatchObject({ ledgerNetCents: 0, reportedCents: 100_000_000 });
    const listed = await gateway.admin('GET', '/admin/v1/treasury');
    expect(listed.body.providers.map((reading: Reading) => reading.providerId)).toEqual(['psp-a', 'psp-b']);
    const metrics = await gateway.call('GET', '/metrics');
    expect(metrics.body).toContain('pix_gateway_provider_balance_cents{provider="psp-a",source="ledger"} 2500');
    expect(metrics.body).toContain('pix_gateway_provider_balance_cents{provider="psp-a",source="reported"} 7500');
  });

  it('sends a withdrawal first to a provider whose cover is enough for it', async () => {
    const large = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 10_000 }) });
    expect(large.status).toBe(201);
    expect(await providerOf(large.body.transactionId)).toBe('psp-b');
    const small = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 3_000 }) });
    expect(small.status).toBe(201);
    expect(await providerOf(small.body.transactionId)).toBe('psp-a');
    expect(
      (await gateway.call('POST', `/sandbox/v1/withdrawals/${small.body.transactionId}/settle`, { key: merchant.apiKey, body: { outcome: 'paid' } })).status,
    ).toBe(200);
  });

  it('raises one high alert when a cover falls below its mark, and says so on every reading', async () => {
    expect(await lowAlerts()).toEqual([]);
    const low = await refresh();
    expect(low['psp-a']).toMatchObject({
      ledgerInCents: 2_500,
      ledgerOutCents: 3_000,
      ledgerNetCents: -500,
      reportedCents: 4_500,
      coverCents: 4_500,
      low: false,
    });
    const third = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 2_000 }) });
    expect(await providerOf(third.body.transactionId)).toBe('psp-a');
    await gateway.call('POST', `/sandbox/v1/withdrawals/${third.body.transactionId}/settle`, { key: merchant.apiKey, body: { outcome: 'paid' } });
    expect((await refresh())['psp-a']).toMatchObject({ reportedCents: 2_500, low: true });
    expect((await refresh())['psp-a']?.low).toBe(true);
    const alerts = await lowAlerts();
    expect(alerts).toMatchObject([{ accountId: null, severity: 'high', details: { providerId: 'psp-a', coverCents: 2_500, lowCoverCents: 3_000 } }]);
    const audit = await gateway.admin('GET', '/admin/v1/audit');
    expect(audit.body.entries.some((entry: { action: string }) => entry.action === 'POST /admin/v1/treasury/refresh')).toBe(true);
  });

  it('a PSP that cannot answer keeps its ledger figures, says why, and is measured by them', async () => {
    await gateway.call('POST', '/sandbox/v1/providers/psp-b/outage', { key: ADMIN_TOKEN, body: { mode: 'down' } });
    const reading = (await refresh())['psp-b'];
    expect(reading).toMatchObject({ reportedCents: null, readError: 'simulated provider psp-b is down (connection refused)' });
    expect(reading?.coverCents).toBe(reading?.ledgerNetCents);
    await gateway.call('POST', '/sandbox/v1/providers/psp-b/outage', { key: ADMIN_TOKEN, body: { mode: 'up' } });
    expect((await gateway.call('POST', '/admin/v1/treasury/refresh', { key: merchant.apiKey })).status).toBe(401);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
