import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { REFUND_END_TO_END_ID_PATTERN } from '../../src/pix/endToEndId.js';
import { createCharge, eventNames, eventsOf, fund, paidCharge, readTransaction } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant, NO_CHARGE_FEES } from '../helpers/gateway.js';

/** Merchant refunds (DESIGN.md §9): rules, messages, money, settlement and events. Charges of 1000 cents, fee 0 by default. */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(async () => {
  await gateway.close();
});

const DAY = 86_400_000;

const refund = (merchant: Merchant, transactionId: string, body?: unknown) =>
  gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, ...(body === undefined ? {} : { body }) });
const settleRefund = (merchant: Merchant, refundId: string, outcome: 'refunded' | 'failed') =>
  gateway.call('POST', `/sandbox/v1/refunds/${refundId}/settle`, { key: merchant.apiKey, body: { outcome } });
const balance = async (merchant: Merchant) => (await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body;

describe('POST /v1/transactions/{id}/refunds', () => {
  it('refunds the remainder by default: debited at once, refunded on settlement, charge refunded with its events', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    expect((await balance(merchant)).available).toBe(1000);

    const before = gateway.clock.now().getTime();
    const created = await refund(merchant, id, { reason: 'cliente desistiu' });
    expect(created.status).toBe(201);
    expect(created.body.createdAt).toBeGreaterThanOrEqual(before);
    expect(created.body.createdAt).toBeLessThanOrEqual(gateway.clock.now().getTime());
    expect(created.body).toEqual({
      refundId: expect.any(String),
      transactionId: id,
      kind: 'merchant',
      amountCents: 1000,
      status: 'processing',
      reason: 'cliente desistiu',
      externalRef: null,
      createdAt: expect.any(Number),
      settledAt: null,
    });
    expect(await balance(merchant)).toMatchObject({ available: 0, blocked: 0, withdrawable: 0 });
    expect((await readTransaction(gateway, merchant, id)).status).toBe('paid');

    const settled = await settleRefund(merchant, created.body.refundId, 'refunded');
    expect(settled.status).toBe(200);
    expect(settled.body.status).toBe('refunded');
    expect(settled.body.refundEndToEndId).toMatch(REFUND_END_TO_END_ID_PATTERN);
    expect(settled.body.settledAt).toBeGreaterThanOrEqual(created.body.createdAt);

    const charge = await readTransaction(gateway, merchant, id);
    expect(charge).toMatchObject({ status: 'refunded', refundedCents: 1000, endToEndId: expect.any(String) });
    expect(await eventNames(gateway, id)).toEqual(['transaction.paid', 'transaction.refunded']);
    const refunded = (await eventsOf(gateway, id))[1]!.payload;
    expect(refunded).toMatchObject({
      event: 'transaction.refunded',
      status: 'refunded',
      refundedCents: 1000,
      endToEndId: charge.endToEndId,
      payer: charge.payer,
    });
    expect(refunded.refund).toEqual(settled.body);
    expect(refunded).not.toHaveProperty('refundEndToEndId');
    expect((await balance(merchant)).available).toBe(0);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('partial refunds move the charge to partially_refunded, then refunded when they reach the amount', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const first = await refund(merchant, id, { amountCents: 300 });
    expect(first.body).toMatchObject({ amountCents: 300, status: 'processing' });
    await settleRefund(merchant, first.body.refundId, 'refunded');
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'partially_refunded', refundedCents: 300 });

    const second = await refund(merchant, id);
    expect(second.body.amountCents).toBe(700);
    await settleRefund(merchant, second.body.refundId, 'refunded');
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'refunded', refundedCents: 1000 });
    expect(await eventNames(gateway, id)).toEqual(['transaction.paid', 'transaction.partially_refunded', 'transaction.refunded']);

    const list = await gateway.call('GET', `/v1/transactions/${id}/refunds`, { key: merchant.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    expect(list.body.refunds.map((row: { refundId: string }) => row.refundId)).toEqual([second.body.refundId, first.body.refundId]);
  });

  it('a failed refund credits the money back and frees the remainder; no charge event', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const created = await refund(merchant, id, { amountCents: 400 });
    expect((await balance(merchant)).available).toBe(600);
    const failed = await settleRefund(merchant, created.body.refundId, 'failed');
    expect(failed.body).toMatchObject({ status: 'failed', settledAt: expect.any(Number) });
    expect(failed.body).not.toHaveProperty('refundEndToEndId');
    expect((await balance(merchant)).available).toBe(1000);
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'paid' });
    expect(await readTransaction(gateway, merchant, id)).not.toHaveProperty('refundedCents');
    expect(await eventNames(gateway, id)).toEqual(['transaction.paid']);
    expect((await refund(merchant, id)).body.amountCents).toBe(1000);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('settling a refund twice is 422; an unknown refund 404; a malformed id 400', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const created = await refund(merchant, id);
    await settleRefund(merchant, created.body.refundId, 'refunded');
    expect(await settleRefund(merchant, created.body.refundId, 'failed')).toMatchObject({
      status: 422,
      body: { error: messages.refundNotProcessing('refunded') },
    });
    const other = await gateway.createMerchant(NO_CHARGE_FEES);
    expect(await settleRefund(other, created.body.refundId, 'failed')).toMatchObject({ status: 404, body: { error: messages.refundNotFound } });
    expect(await settleRefund(merchant, 'nope', 'failed')).toMatchObject({ status: 400, body: { error: messages.refundIdInvalid } });
    expect(
      await gateway.call('POST', `/sandbox/v1/refunds/${created.body.refundId}/settle`, { key: merchant.apiKey, body: { outcome: 'paid' } }),
    ).toMatchObject({
      status: 400,
      body: { error: messages.sandboxRefundOutcomeInvalid },
    });
  });

  it('externalRef makes a retry answer 200 with the same refund, nothing debited twice', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const first = await refund(merchant, id, { amountCents: 100, externalRef: 'dev-1' });
    const again = await refund(merchant, id, { amountCents: 100, externalRef: 'dev-1' });
    expect(first.status).toBe(201);
    expect(again).toMatchObject({ status: 200, body: { ...first.body, idempotent: true } });
    expect((await balance(merchant)).available).toBe(900);
    expect(first.body.externalRef).toBe('dev-1');
  });

  it('the provider refusing answers 502: nothing debited, the externalRef free for a retry', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const armed = await gateway.call('POST', '/sandbox/v1/provider/next-refund', { key: merchant.apiKey, body: { outcome: 'provider_error' } });
    expect(armed.status).toBe(201);
    expect(await refund(merchant, id, { externalRef: 'dev-2' })).toMatchObject({ status: 502, body: { error: messages.refundProviderFailed } });
    expect((await balance(merchant)).available).toBe(1000);
    const retry = await refund(merchant, id, { externalRef: 'dev-2' });
    expect(retry).toMatchObject({ status: 201, body: { amountCents: 1000, status: 'processing' } });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  const refusals: { name: string; setup: (merchant: Merchant) => Promise<string>; body?: unknown; status: number; error: string }[] = [
    { name: 'a pending charge', setup: (merchant) => createCharge(gateway, merchant), status: 422, error: messages.refundChargeNotPaid('pending') },
    {
      name: 'a cancelled charge',
      setup: async (merchant) => {
        const id = await createCharge(gateway, merchant);
        await gateway.call('POST', `/v1/pix/${id}/cancel`, { key: merchant.apiKey });
        return id;
      },
      status: 422,
      error: messages.refundChargeNotPaid('cancelled'),
    },
    {
      name: 'more than the remainder',
      setup: (merchant) => paidCharge(gateway, merchant),
      body: { amountCents: 1001 },
      status: 422,
      error: messages.refundAboveRemainder(1000),
    },
    { name: 'a zero amount', setup: (merchant) => paidCharge(gateway, merchant), body: { amountCents: 0 }, status: 400, error: messages.positiveAmountInvalid },
    {
      name: 'a fractional amount',
      setup: (merchant) => paidCharge(gateway, merchant),
      body: { amountCents: 1.5 },
      status: 400,
      error: messages.positiveAmountInvalid,
    },
    {
      name: 'a text amount',
      setup: (merchant) => paidCharge(gateway, merchant),
      body: { amountCents: '100' },
      status: 400,
      error: messages.positiveAmountInvalid,
    },
    {
      name: 'a long reason',
      setup: (merchant) => paidCharge(gateway, merchant),
      body: { reason: 'x'.repeat(141) },
      status: 400,
      error: messages.refundReasonTooLong,
    },
    {
      name: 'an empty externalRef',
      setup: (merchant) => paidCharge(gateway, merchant),
      body: { externalRef: '' },
      status: 400,
      error: messages.externalRefInvalid,
    },
    { name: 'a body that is not an object', setup: (merchant) => paidCharge(gateway, merchant), body: [1], status: 400, error: messages.bodyNotObject },
    {
      name: 'a withdrawal',
      setup: async (merchant) => {
        await fund(gateway, merchant, 5000);
        const created = await gateway.call('POST', '/v1/withdraw', {
          key: merchant.apiKey,
          body: { amountCents: 1000, pixKey: '52998224725', pixKeyType: 'cpf' },
        });
        return created.body.transactionId;
      },
      status: 404,
      error: messages.transactionNotFound,
    },
    { name: 'a malformed id', setup: () => Promise.resolve('abc'), status: 400, error: messages.transactionIdInvalid },
  ];
  it.each(refusals)('refuses $name', async ({ setup, body, status, error }) => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await setup(merchant);
    const before = (await balance(merchant)).available;
    expect(await refund(merchant, id, body)).toMatchObject({ status, body: { error } });
    expect((await balance(merchant)).available).toBe(before);
  });

  it('a pending charge whose validity elapsed is refused as expired', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await createCharge(gateway, merchant, { expiresInDays: 1 });
    gateway.clock.advance(DAY);
    expect(await refund(merchant, id)).toMatchObject({ status: 422, body: { error: messages.refundChargeNotPaid('expired') } });
  });

  it("another merchant's charge is 404, for the refund and the list", async () => {
    const owner = await gateway.createMerchant(NO_CHARGE_FEES);
    const other = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, owner);
    expect(await refund(other, id)).toMatchObject({ status: 404, body: { error: messages.transactionNotFound } });
    expect(await gateway.call('GET', `/v1/transactions/${id}/refunds`, { key: other.apiKey })).toMatchObject({
      status: 404,
      body: { error: messages.transactionNotFound },
    });
  });

  it('90 days after the payment the window is closed', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    gateway.clock.advance(90 * DAY - 60_000);
    const inTime = await refund(merchant, id, { amountCents: 100 });
    expect(inTime.status).toBe(201);
    gateway.clock.advance(60_000);
    expect(await refund(merchant, id, { amountCents: 100 })).toMatchObject({ status: 422, body: { error: messages.refundWindowExpired } });
  });

  it('the withdrawable balance must cover the refund: an operator block counts', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const block = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/blocks`, { amountCents: 500, reason: 'análise' });
    expect(block.status).toBe(201);
    expect(await balance(merchant)).toMatchObject({ available: 1000, blocked: 500, withdrawable: 500 });
    expect(await refund(merchant, id, { amountCents: 501 })).toMatchObject({ status: 422, body: { error: messages.refundInsufficientBalance } });
    expect((await refund(merchant, id, { amountCents: 500 })).status).toBe(201);
  });

  it('the fee is kept: a charge with a fee refunds its full amount from the net credited', async () => {
    const merchant = await gateway.createMerchant({ fees: { pixIn: { fixedCents: 100, bps: 0, minCents: 0, maxCents: 1000 } } });
    await fund(gateway, merchant, 100);
    const id = await paidCharge(gateway, merchant);
    expect((await balance(merchant)).available).toBe(1000);
    const created = await refund(merchant, id);
    expect(created.body.amountCents).toBe(1000);
    expect((await balance(merchant)).available).toBe(0);
  });
});

describe('reconciliation of refunds still processing', () => {
  it('a refund whose send left no result (the process stopped during the call) is sent again once its lease lapses', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const created = await refund(merchant, id, { amountCents: 250 });
    // As if the process died during the provider call, before the network took it: no result recorded.
    await gateway.database.db.deleteFrom('sandboxRefunds').where('refundId', '=', created.body.refundId).execute();
    await gateway.database.db
      .updateTable('providerSends')
      .set({ state: 'unsent', acknowledged: false, attemptStartedAt: gateway.clock.now(), leaseUntil: new Date(gateway.clock.now().getTime() + 5_000) })
      .where('id', '=', created.body.refundId)
      .execute();
    expect(await gateway.services.refunds.sendUnsent()).toBe(0); // its lease still holds
    expect(await gateway.database.db.selectFrom('sandboxRefunds').select('refundId').where('refundId', '=', created.body.refundId).execute()).toEqual([]);
    gateway.clock.advance(5_000);
    expect(await gateway.services.refunds.sendUnsent()).toBe(1);
    const resent = await gateway.database.db.selectFrom('sandboxRefunds').select('refundId').where('refundId', '=', created.body.refundId).execute();
    expect(resent).toHaveLength(1);
    expect((await settleRefund(merchant, created.body.refundId, 'refunded')).body.status).toBe('refunded');
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'partially_refunded', refundedCents: 250 });
    expect((await balance(merchant)).available).toBe(750);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});

describe('automatic settlement (SANDBOX_SETTLE_MS)', () => {
  it('the worker step settles a processing refund as refunded once its time has come, not before', async () => {
    const timed = await startGateway({ SANDBOX_SETTLE_MS: '60000' });
    try {
      const merchant = await timed.createMerchant(NO_CHARGE_FEES);
      const id = await paidCharge(timed, merchant);
      const created = await timed.call('POST', `/v1/transactions/${id}/refunds`, { key: merchant.apiKey, body: { amountCents: 400 } });
      expect(created.status).toBe(201);
      await timed.services.sandbox!.settleDue();
      expect((await readTransaction(timed, merchant, id)).status).toBe('paid');
      timed.clock.advance(60_000);
      expect(await timed.services.sandbox!.settleDue()).toBe(1);
      expect(await readTransaction(timed, merchant, id)).toMatchObject({ status: 'partially_refunded', refundedCents: 400 });
      const list = await timed.call('GET', `/v1/transactions/${id}/refunds`, { key: merchant.apiKey });
      expect(list.body.refunds[0]).toMatchObject({ refundId: created.body.refundId, status: 'refunded' });
      expect(await timed.ledgerProblems()).toEqual([]);
    } finally {
      await timed.close();
    }
  });
});

describe('cancelling a charge', () => {
  it('merchant: pending → cancelled with transaction.cancelled; then 422', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await createCharge(gateway, merchant);
    const cancelled = await gateway.call('POST', `/v1/pix/${id}/cancel`, { key: merchant.apiKey });
    expect(cancelled).toMatchObject({ status: 200, body: { transactionId: id, status: 'cancelled' } });
    expect(await eventNames(gateway, id)).toEqual(['transaction.cancelled']);
    expect(await gateway.call('POST', `/v1/pix/${id}/cancel`, { key: merchant.apiKey })).toMatchObject({
      status: 422,
      body: { error: messages.chargeNotCancellable('cancelled') },
    });
    expect(await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey })).toMatchObject({
      status: 422,
      body: { error: messages.chargeNotPending('cancelled') },
    });
  });

  it('a charge whose validity elapsed is expired to the cancel too', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await createCharge(gateway, merchant, { expiresInDays: 1 });
    gateway.clock.advance(DAY);
    expect(await gateway.call('POST', `/v1/pix/${id}/cancel`, { key: merchant.apiKey })).toMatchObject({
      status: 422,
      body: { error: messages.chargeNotCancellable('expired') },
    });
  });

  it("another merchant's charge is 404; the operator cancels any", async () => {
    const owner = await gateway.createMerchant(NO_CHARGE_FEES);
    const other = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await createCharge(gateway, owner);
    expect(await gateway.call('POST', `/v1/pix/${id}/cancel`, { key: other.apiKey })).toMatchObject({
      status: 404,
      body: { error: messages.transactionNotFound },
    });
    expect(await gateway.admin('POST', `/admin/v1/transactions/${id}/cancel`)).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    const paid = await paidCharge(gateway, owner);
    expect(await gateway.admin('POST', `/admin/v1/transactions/${paid}/cancel`)).toMatchObject({
      status: 422,
      body: { error: messages.chargeNotCancellable('paid') },
    });
  });
});

describe('the provider removes a charge (sandbox fail)', () => {
  it('pending → failed with transaction.failed; a paid one is 422', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await createCharge(gateway, merchant);
    expect(await gateway.call('POST', `/sandbox/v1/pix/${id}/fail`, { key: merchant.apiKey })).toMatchObject({ status: 200, body: { status: 'failed' } });
    expect(await eventNames(gateway, id)).toEqual(['transaction.failed']);
    const paid = await paidCharge(gateway, merchant);
    expect(await gateway.call('POST', `/sandbox/v1/pix/${paid}/fail`, { key: merchant.apiKey })).toMatchObject({
      status: 422,
      body: { error: messages.chargeNotPending('paid') },
    });
  });
});

describe('a payment that arrives for a charge no longer pending', () => {
  it.each(['cancel', 'expire', 'fail'] as const)('after %s: returned to the payer in full, never credited', async (ending) => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await createCharge(gateway, merchant);
    const path = ending === 'cancel' ? (`/v1/pix/${id}/cancel` as const) : (`/sandbox/v1/pix/${id}/${ending}` as const);
    const ended = await gateway.call('POST', path, { key: merchant.apiKey });
    expect(ended.status).toBe(200);
    const late = await gateway.call('POST', `/sandbox/v1/pix/${id}/late-payment`, { key: merchant.apiKey });
    expect(late).toMatchObject({ status: 201, body: { kind: 'returned_payment', amountCents: 1000, status: 'processing', transactionId: id } });
    const settled = await settleRefund(merchant, late.body.refundId, 'refunded');
    expect(settled.body.status).toBe('refunded');
    expect((await balance(merchant)).available).toBe(0);
    expect((await readTransaction(gateway, merchant, id)).status).toBe(ended.body.status);
    expect((await eventNames(gateway, id)).length).toBe(1);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('the amount the payer sent must be a positive integer', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await createCharge(gateway, merchant);
    await gateway.call('POST', `/v1/pix/${id}/cancel`, { key: merchant.apiKey });
    for (const amountCents of [-5, 0, 1.5, 1e20, '10']) {
      expect(await gateway.call('POST', `/sandbox/v1/pix/${id}/late-payment`, { key: merchant.apiKey, body: { amountCents } })).toMatchObject({
        status: 400,
        body: { error: messages.positiveAmountInvalid },
      });
    }
    const partial = await gateway.call('POST', `/sandbox/v1/pix/${id}/late-payment`, { key: merchant.apiKey, body: { amountCents: 999 } });
    expect(partial).toMatchObject({ status: 201, body: { amountCents: 999, kind: 'returned_payment' } });
  });

  it('a pending charge is 422 (the payment would be credited)', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await createCharge(gateway, merchant);
    expect(await gateway.call('POST', `/sandbox/v1/pix/${id}/late-payment`, { key: merchant.apiKey })).toMatchObject({
      status: 422,
      body: { error: messages.sandboxChargeStillPending },
    });
  });
});
