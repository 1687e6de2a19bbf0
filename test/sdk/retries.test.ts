import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PixGatewayAbortError, PixGatewayConnectionError, PixGatewayError, PixGatewayTimeoutError, type PixGateway } from '../../packages/sdk/src/index.js';
import { backoffMs } from '../../packages/sdk/src/transport.js';
import { balanceOf, fund } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { RELAXED_WITHDRAWALS, clientFor, closedPort, customer, recordingFetch, startFaultyNetwork, type Fault } from './helpers.js';

// The spec's retry table ("Errors › Retry rules") as the SDK applies it (docs/sdk.md): what is sent
// again, with which externalRef, and what never is. Provider faults are armed through the sandbox;
// network faults come from a TCP proxy in front of the real gateway.

let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(() => gateway.close());

const HOLDER_CPF = { pixKey: '52998224725', pixKeyType: 'cpf' as const };
const UNAVAILABLE = { status: 503, error: 'Serviço temporariamente indisponível. Tente novamente em instantes.' };

/** A merchant with R$ 100,00 and loose withdrawal limits. */
async function fundedMerchant(): Promise<Merchant> {
  const merchant = await gateway.createMerchant(RELAXED_WITHDRAWALS);
  await fund(gateway, merchant, 10_000);
  return merchant;
}

/** A client behind a faulty network (one fault per new connection, then a sound one), recording each attempt. */
async function behindFaults(merchant: Merchant, faults: Fault[], options: { timeoutMs?: number; maxRetries?: number } = {}) {
  const network = await startFaultyNetwork(gateway.url, faults);
  const recorder = recordingFetch();
  const client = clientFor(gateway, merchant, { baseUrl: network.url, fetch: recorder.fetch, ...options });
  return { client, sent: recorder.sent, network };
}

const countByExternalRef = async (client: PixGateway, externalRef: string) => (await client.transactions.list({ externalRef }).page()).count;

describe('POST /v1/pix: a 502, a timeout or a network error is sent again with the same externalRef', () => {
  it('a provider 502 is retried once, with the generated externalRef, and makes one charge', async () => {
    const merchant = await gateway.createMerchant();
    const recorder = recordingFetch();
    const client = clientFor(gateway, merchant, { fetch: recorder.fetch });
    await client.sandbox.failNextCharge();
    const charge = await client.charges.create({ amountCents: 1000, customer: customer() });
    expect(charge.status).toBe('pending');
    const attempts = recorder.sent.filter((sent) => sent.url.endsWith('/v1/pix'));
    expect(attempts).toHaveLength(2);
    const [first, second] = attempts.map((attempt) => attempt.body.externalRef);
    expect(first).toMatch(/^charge_/);
    expect(second).toBe(first);
    expect(await countByExternalRef(client, first!)).toBe(1);
  });

  it("the caller's own externalRef is the one sent again", async () => {
    const merchant = await gateway.createMerchant();
    const recorder = recordingFetch();
    const client = clientFor(gateway, merchant, { fetch: recorder.fetch });
    await client.sandbox.failNextCharge();
    const charge = await client.charges.create({ amountCents: 1000, customer: customer(), externalRef: 'pedido-42' });
    expect(recorder.sent.slice(1).map((sent) => sent.body.externalRef)).toEqual(['pedido-42', 'pedido-42']);
    expect((await client.transactions.get(charge.transactionId)).externalRef).toBe('pedido-42');
  });

  it('with maxRetries 0 the 502 rejects: retryable, the externalRef to retry with', async () => {
    const merchant = await gateway.createMerchant();
    const client = clientFor(gateway, merchant, { maxRetries: 0 });
    await client.sandbox.failNextCharge();
    const error = await client.charges.create({ amountCents: 1000, customer: customer() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PixGatewayError);
    expect(error).toMatchObject({ status: 502, message: 'Erro ao comunicar com gateway. Tente novamente.', retryable: true, attempts: 1 });
    const externalRef = (error as PixGatewayError).externalRef ?? '';
    expect(externalRef).toMatch(/^charge_/);
    expect(await countByExternalRef(client, externalRef)).toBe(0);
    // Sent again by the caller with that externalRef: one charge.
    await client.charges.create({ amountCents: 1000, customer: customer(), externalRef });
    expect(await countByExternalRef(client, externalRef)).toBe(1);
  });

  it('a timeout after the gateway created the charge: the retry answers that charge (200, idempotent), never a second one', async () => {
    const merchant = await gateway.createMerchant();
    const { client, sent, network } = await behindFaults(merchant, ['withhold'], { timeoutMs: 2500 });
    try {
      const charge = await client.charges.create({ amountCents: 1000, customer: customer() });
      expect(charge).toMatchObject({ idempotent: true, status: 'pending' });
      expect(sent).toHaveLength(2);
      expect(sent[1]?.body.externalRef).toBe(sent[0]?.body.externalRef);
      expect(await countByExternalRef(client, sent[0]!.body.externalRef!)).toBe(1);
    } finally {
      await network.close();
    }
  });

  it('a network error is retried the same way', async () => {
    const merchant = await gateway.createMerchant();
    const { client, sent, network } = await behindFaults(merchant, ['reset']);
    try {
      const charge = await client.charges.create({ amountCents: 1000, customer: customer() });
      expect(charge.status).toBe('pending');
      expect(sent).toHaveLength(2);
      expect(sent[1]?.body.externalRef).toBe(sent[0]?.body.externalRef);
    } finally {
      await network.close();
    }
  });

  it('a 503 is not in the table for POST /v1/pix: not retried', async () => {
    const merchant = await gateway.createMerchant();
    const { client, sent, network } = await behindFaults(merchant, [UNAVAILABLE]);
    try {
      await expect(client.charges.create({ amountCents: 1000, customer: customer() })).rejects.toMatchObject({ status: 503, retryable: false, attempts: 1 });
      expect(sent).toHaveLength(1);
    } finally {
      await network.close();
    }
  });
});

describe('POST /v1/withdraw: only "O valor não foi debitado." is sent again', () => {
  it('a 502 not debited is retried with the same externalRef: one withdrawal, debited once', async () => {
    const merchant = await fundedMerchant();
    const recorder = recordingFetch();
    const client = clientFor(gateway, merchant, { fetch: recorder.fetch });
    await client.sandbox.failNextWithdrawal('provider_error');
    const withdrawal = await client.withdrawals.create({ amountCents: 1000, ...HOLDER_CPF });
    expect(withdrawal).toMatchObject({ status: 'processing', amountCents: 1000 });
    const attempts = recorder.sent.filter((sent) => sent.url.endsWith('/v1/withdraw'));
    expect(attempts.map((attempt) => attempt.body.externalRef)).toEqual([attempts[0]?.body.externalRef, attempts[0]?.body.externalRef]);
    expect(attempts[0]?.body.externalRef).toMatch(/^withdrawal_/);
    expect(await balanceOf(gateway, merchant)).toBe(10_000 - ('totalDeducted' in withdrawal ? withdrawal.totalDeducted : 0));
    // The refused attempt stays in the history as failed (nothing debited); one withdrawal goes out.
    const withRef = (await client.transactions.list({ externalRef: attempts[0]?.body.externalRef }).page()).transactions;
    expect(withRef.map((tx) => tx.status).sort()).toEqual(['failed', 'processing']);
  });

  it('"Saque iniciado mas confirmação interrompida" is never retried: the error names the withdrawal to query', async () => {
    const merchant = await fundedMerchant();
    const recorder = recordingFetch();
    const client = clientFor(gateway, merchant, { fetch: recorder.fetch, maxRetries: 5 });
    await client.sandbox.failNextWithdrawal('interrupted');
    const error = await client.withdrawals.create({ amountCents: 1000, ...HOLDER_CPF }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PixGatewayError);
    const interrupted = error as PixGatewayError;
    expect(interrupted).toMatchObject({ status: 502, retryable: false, attempts: 1 });
    expect(interrupted.message).toBe(`Saque iniciado mas confirmação interrompida. Consulte /v1/transactions/${interrupted.transactionId}`);
    expect(recorder.sent.filter((sent) => sent.url.endsWith('/v1/withdraw'))).toHaveLength(1);
    expect(await client.transactions.get(interrupted.transactionId ?? '')).toMatchObject({ type: 'withdrawal', status: 'processing' });
    expect(await countByExternalRef(client, interrupted.externalRef ?? '')).toBe(1);
  });

  it('the 202 failed_unknown resolves, once: never resent', async () => {
    const merchant = await fundedMerchant();
    const recorder = recordingFetch();
    const client = clientFor(gateway, merchant, { fetch: recorder.fetch });
    await client.sandbox.failNextWithdrawal('unknown');
    expect(await client.withdrawals.create({ amountCents: 1000, ...HOLDER_CPF })).toMatchObject({ status: 'failed_unknown' });
    expect(recorder.sent.filter((sent) => sent.url.endsWith('/v1/withdraw'))).toHaveLength(1);
  });

  it('a timeout is never retried (the money may have left): the error carries the externalRef to look it up by', async () => {
    const merchant = await fundedMerchant();
    const { client, sent, network } = await behindFaults(merchant, ['withhold'], { timeoutMs: 2500 });
    try {
      const error = await client.withdrawals.create({ amountCents: 1000, ...HOLDER_CPF }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PixGatewayTimeoutError);
      expect(error).toMatchObject({ status: 0, retryable: false, attempts: 1 });
      expect(sent).toHaveLength(1);
      const [found] = (await client.transactions.list({ externalRef: (error as PixGatewayError).externalRef ?? '', type: 'withdrawal' }).page()).transactions;
      expect(found).toMatchObject({ type: 'withdrawal', status: 'processing', externalRef: sent[0]?.body.externalRef });
    } finally {
      await network.close();
    }
  });

  it('a network error is never retried either', async () => {
    const merchant = await fundedMerchant();
    const { client, sent, network } = await behindFaults(merchant, ['reset']);
    try {
      await expect(client.withdrawals.create({ amountCents: 1000, ...HOLDER_CPF })).rejects.toBeInstanceOf(PixGatewayConnectionError);
      expect(sent).toHaveLength(1);
      expect(await balanceOf(gateway, merchant)).toBe(10_000);
    } finally {
      await network.close();
    }
  });
});

describe('GETs: a network error, a timeout or a 503 is sent again; no 4xx ever is', () => {
  it('a 503 and a reset connection, then the answer', async () => {
    const merchant = await gateway.createMerchant();
    const { client, sent, network } = await behindFaults(merchant, [UNAVAILABLE, 'reset']);
    try {
      expect(await client.balance.get()).toMatchObject({ currency: 'BRL' });
      expect(sent).toHaveLength(3);
    } finally {
      await network.close();
    }
  });

  it('a timeout, then the answer', async () => {
    const merchant = await gateway.createMerchant();
    const { client, sent, network } = await behindFaults(merchant, ['hang'], { timeoutMs: 1500 });
    try {
      expect((await client.recipients.list()).count).toBe(0);
      expect(sent).toHaveLength(2);
    } finally {
      await network.close();
    }
  });

  it('an answer cut short (headers, then the body stops) is a timeout: sent again', async () => {
    const merchant = await gateway.createMerchant();
    const { client, sent, network } = await behindFaults(merchant, ['truncate'], { timeoutMs: 1500 });
    try {
      expect(await client.balance.get()).toMatchObject({ currency: 'BRL' });
      expect(sent).toHaveLength(2);
      // Not retried where the table does not allow it: a registration's answer cut short is a timeout error.
      const { client: once, network: again } = await behindFaults(merchant, ['truncate'], { timeoutMs: 500 });
      await expect(
        once.recipients.create({ legalName: 'Fornecedor Ltda', document: '39053344705', documentType: 'cpf', pixKey: '39053344705', pixKeyType: 'cpf' }),
      ).rejects.toBeInstanceOf(PixGatewayTimeoutError);
      await again.close();
    } finally {
      await network.close();
    }
  });

  it('maxRetries bounds the attempts: 1 + maxRetries, then the last error', async () => {
    const merchant = await gateway.createMerchant();
    const { client, sent, network } = await behindFaults(merchant, [UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE], { maxRetries: 3 });
    try {
      await expect(client.balance.get()).rejects.toMatchObject({ status: 503, message: UNAVAILABLE.error, retryable: true, attempts: 4 });
      expect(sent).toHaveLength(4);
    } finally {
      await network.close();
    }
  });

  it('a refused connection is retried, then rejects as a connection error', async () => {
    const merchant = await gateway.createMerchant();
    const recorder = recordingFetch();
    const client = clientFor(gateway, merchant, { baseUrl: await closedPort(), fetch: recorder.fetch, maxRetries: 2 });
    const error = await client.transactions.get('0190a0a0-0000-7000-8000-000000000000').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PixGatewayConnectionError);
    expect(error).toMatchObject({ status: 0, retryable: true, attempts: 3 });
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(recorder.sent).toHaveLength(3);
  });
});

describe('never retried', () => {
  it('a 4xx, on any call: 400, 401, 404, 422 and 429 (retryable after a wait, not at once)', async () => {
    const merchant = await fundedMerchant();
    await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { limits: { pixPerHour: 1 } });
    const recorder = recordingFetch();
    const client = clientFor(gateway, merchant, { fetch: recorder.fetch, maxRetries: 5 });
    const cases: [() => Promise<unknown>, number, boolean][] = [
      [() => client.charges.create({ amountCents: 5, customer: customer() }), 400, false],
      [() => clientFor(gateway, { ...merchant, apiKey: 'svck_nope' }, { fetch: recorder.fetch }).balance.get(), 401, false],
      [() => client.transactions.get('0190a0a0-0000-7000-8000-000000000000'), 404, false],
      [() => client.withdrawals.create({ amountCents: 1_000_000, ...HOLDER_CPF }), 422, false],
      [() => client.charges.create({ amountCents: 1000, customer: customer() }), 201, false],
      [() => client.charges.create({ amountCents: 1000, customer: customer() }), 429, true],
    ];
    for (const [call, status, retryable] of cases) {
      const before = recorder.sent.length;
      const outcome = await call().then(
        () => ({ status: 201, retryable: false }),
        (error: unknown) => error,
      );
      expect(outcome, `HTTP ${status}`).toMatchObject({ status, retryable });
      expect(recorder.sent.length - before, `HTTP ${status}`).toBe(1);
    }
  });

  it('a network error on other POSTs (a refund)', async () => {
    const merchant = await gateway.createMerchant();
    const client = clientFor(gateway, merchant);
    const charge = await client.charges.create({ amountCents: 1000, customer: customer() });
    await client.sandbox.payCharge(charge.transactionId);
    const { client: faulty, sent, network } = await behindFaults(merchant, ['reset']);
    try {
      await expect(faulty.refunds.create(charge.transactionId)).rejects.toMatchObject({ status: 0, retryable: false, attempts: 1 });
      expect(sent).toHaveLength(1);
    } finally {
      await network.close();
    }
  });
});

describe('backoff and abort', () => {
  it('waits grow exponentially to the cap, with jitter in the upper half', () => {
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffMs(retry, 500, 8000, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffMs(retry, 500, 8000, () => 0))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
    const samples = Array.from({ length: 200 }, () => backoffMs(3, 500, 8000));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...samples)).toBeLessThanOrEqual(2000);
    expect(new Set(samples).size).toBeGreaterThan(10);
  });

  it('the client waits between attempts', async () => {
    const merchant = await gateway.createMerchant();
    const network = await startFaultyNetwork(gateway.url, [UNAVAILABLE, UNAVAILABLE]);
    const slow = clientFor(gateway, merchant, { baseUrl: network.url, retryDelayMs: 200, maxRetryDelayMs: 1000 });
    try {
      const started = Date.now();
      await slow.balance.get();
      // Waits of 100–200 ms, then 200–400 ms.
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    } finally {
      await network.close();
    }
  });

  it('an abort during the wait ends the call at once, with a PixGatewayAbortError', async () => {
    const merchant = await gateway.createMerchant();
    const network = await startFaultyNetwork(gateway.url, [UNAVAILABLE]);
    const client = clientFor(gateway, merchant, { baseUrl: network.url, retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    try {
      const controller = new AbortController();
      const started = Date.now();
      const call = client.balance.get({ signal: controller.signal });
      setTimeout(() => controller.abort(new Error('user gave up')), 200);
      const error = await call.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PixGatewayAbortError);
      expect(error).toMatchObject({ status: 0, attempts: 1, retryable: false });
      expect((error as Error).cause).toEqual(new Error('user gave up'));
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await network.close();
    }
  });
});
