import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { REFUND_END_TO_END_ID_PATTERN } from '../../src/pix/endToEndId.js';
import { createCharge, eventNames, eventsOf, paidCharge, readTransaction } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant, NO_CHARGE_FEES } from '../helpers/gateway.js';

/** MED cases (DESIGN.md §9): opening and its block, defense, analysis, both closings, the merchant's reads. */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(async () => {
  await gateway.close();
});

const DAY = 86_400_000;

const openCase = (merchant: Merchant, transactionId: string, body: unknown = { reason: 'fraud' }) =>
  gateway.call('POST', `/sandbox/v1/pix/${transactionId}/infraction`, { key: merchant.apiKey, body });
const closeCase = (merchant: Merchant, infractionId: string, outcome: 'accepted' | 'rejected') =>
  gateway.call('POST', `/sandbox/v1/infractions/${infractionId}/close`, { key: merchant.apiKey, body: { outcome } });
const defend = (merchant: Merchant, infractionId: string, text: unknown) =>
  gateway.call('POST', `/v1/infractions/${infractionId}/defense`, { key: merchant.apiKey, body: { text } });
const balance = async (merchant: Merchant) => (await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body;

async function chargeWithCase(body: unknown = { reason: 'fraud' }) {
  const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
  const transactionId = await paidCharge(gateway, merchant);
  const opened = await openCase(merchant, transactionId, body);
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  return { merchant, transactionId, infractionId: opened.body.infractionId, opened: opened.body };
}

describe('opening a case', () => {
  it('opens with the default 5-day deadline, blocks the amount, records infraction then blocked with the case', async () => {
    const before = gateway.clock.now().getTime();
    const { merchant, transactionId, opened } = await chargeWithCase({ reason: 'fraud', amountCents: 600 });
    expect(opened).toEqual({
      infractionId: expect.any(String),
      transactionId,
      status: 'open',
      reason: 'fraud',
      amountCents: 600,
      openedAt: expect.any(Number),
      defenseDeadline: opened.openedAt + 5 * DAY,
      defense: null,
      closedAt: null,
      recoveryId: null,
      hop: 1,
      situation: 'unknown',
      recoveredCents: null,
    });
    expect(opened.openedAt).toBeGreaterThanOrEqual(before);
    expect(await balance(merchant)).toMatchObject({ available: 1000, blocked: 600, withdrawable: 400 });
    const events = await eventsOf(gateway, transactionId);
    expect(events.map((event) => event.name)).toEqual(['transaction.paid', 'transaction.infraction', 'transaction.blocked']);
    for (const event of events.slice(1)) {
      expect(event.payload).toMatchObject({ status: 'paid', transactionId, infraction: opened });
      expect(event.payload).not.toHaveProperty('endToEndId');
      expect(event.payload).not.toHaveProperty('payer');
    }
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid');
  });

  it('the operator opens one the same way; the amount defaults to the refundable remainder', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const transactionId = await paidCharge(gateway, merchant);
    const refund = await gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body: { amountCents: 250 } });
    expect(refund.status).toBe(201);
    const opened = await gateway.admin('POST', `/admin/v1/transactions/${transactionId}/infractions`, { reason: 'operational_flaw' });
    expect(opened).toMatchObject({ status: 201, body: { status: 'open', reason: 'operational_flaw', amountCents: 750 } });
  });

  const refusals: { name: string; setup: (merchant: Merchant) => Promise<string>; body?: unknown; status: number; error: string }[] = [
    { name: 'a pending charge', setup: (merchant) => createCharge(gateway, merchant), status: 422, error: messages.infractionChargeNotPaid },
    {
      name: 'more than a running case leaves',
      setup: async (merchant) => {
        const id = await paidCharge(gateway, merchant);
        expect((await openCase(merchant, id, { reason: 'fraud', amountCents: 100 })).status).toBe(201);
        return id;
      },
      body: { reason: 'fraud', amountCents: 901 },
      status: 422,
      error: messages.infractionAboveRemainder(900),
    },
    {
      name: 'more than the charge',
      setup: (merchant) => paidCharge(gateway, merchant),
      body: { reason: 'fraud', amountCents: 1001 },
      status: 422,
      error: messages.infractionAboveRemainder(1000),
    },
    { name: 'no reason', setup: (merchant) => paidCharge(gateway, merchant), body: {}, status: 400, error: messages.infractionReasonInvalid },
    {
      name: 'an unknown reason',
      setup: (merchant) => paidCharge(gateway, merchant),
      body: { reason: 'other' },
      status: 400,
      error: messages.infractionReasonInvalid,
    },
    {
      name: 'a negative amount',
      setup: (merchant) => paidCharge(gateway, merchant),
      body: { reason: 'fraud', amountCents: -5 },
      status: 400,
      error: messages.positiveAmountInvalid,
    },
    { name: 'a malformed id', setup: () => Promise.resolve('x'), status: 400, error: messages.transactionIdInvalid },
  ];
  it.each(refusals)('refuses $name', async ({ setup, body, status, error }) => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await setup(merchant);
    expect(await openCase(merchant, id, body ?? { reason: 'fraud' })).toMatchObject({ status, body: { error } });
  });

  it("another merchant's charge is 404 in the sandbox", async () => {
    const owner = await gateway.createMerchant(NO_CHARGE_FEES);
    const other = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, owner);
    expect(await openCase(other, id)).toMatchObject({ status: 404, body: { error: messages.transactionNotFound } });
  });
});

describe('defense and analysis', () => {
  it('the merchant defends before the deadline: in_defense with transaction.protest; a second defense is 422', async () => {
    const { merchant, transactionId, infractionId } = await chargeWithCase();
    const defended = await defend(merchant, infractionId, '  Entregamos o produto; nota fiscal 123.  ');
    expect(defended).toMatchObject({ status: 200, body: { status: 'in_defense', defense: 'Entregamos o produto; nota fiscal 123.' } });
    expect(await defend(merchant, infractionId, 'de novo')).toMatchObject({ status: 422, body: { error: messages.infractionNoDefense('in_defense') } });
    expect((await eventNames(gateway, transactionId)).slice(-1)).toEqual(['transaction.protest']);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['too long', 'x'.repeat(2001)],
    ['not text', 42],
  ])('a %s defense is 400', async (_name, text) => {
    const { merchant, infractionId } = await chargeWithCase();
    expect(await defend(merchant, infractionId, text)).toMatchObject({ status: 400, body: { error: messages.defenseTextInvalid } });
  });

  it('after the deadline the defense is refused; the worker step moves the case to analysis with transaction.dispute', async () => {
    const { merchant, transactionId, infractionId } = await chargeWithCase();
    gateway.clock.advance(5 * DAY);
    expect(await defend(merchant, infractionId, 'tarde')).toMatchObject({ status: 422, body: { error: messages.defenseDeadlinePassed } });
    expect(await gateway.services.infractions.analyzeOverdue()).toBeGreaterThanOrEqual(1);
    const read = await gateway.call('GET', `/v1/infractions/${infractionId}`, { key: merchant.apiKey });
    expect(read.body.status).toBe('under_analysis');
    expect((await eventNames(gateway, transactionId)).slice(-1)).toEqual(['transaction.dispute']);
    expect(await defend(merchant, infractionId, 'tarde')).toMatchObject({ status: 422, body: { error: messages.infractionNoDefense('under_analysis') } });
  });

  it('the operator starts the analysis; twice is 422', async () => {
    const { infractionId } = await chargeWithCase();
    expect(await gateway.admin('POST', `/admin/v1/infractions/${infractionId}/analysis`)).toMatchObject({ status: 200, body: { status: 'under_analysis' } });
    expect(await gateway.admin('POST', `/admin/v1/infractions/${infractionId}/analysis`)).toMatchObject({
      status: 422,
      body: { error: messages.infractionWrongStatus('under_analysis') },
    });
  });

  it("another merchant's case is 404; a malformed id 400", async () => {
    const { infractionId } = await chargeWithCase();
    const other = await gateway.createMerchant(NO_CHARGE_FEES);
    expect(await gateway.call('GET', `/v1/infractions/${infractionId}`, { key: other.apiKey })).toMatchObject({
      status: 404,
      body: { error: messages.infractionNotFound },
    });
    expect(await defend(other, infractionId, 'não é meu')).toMatchObject({ status: 404, body: { error: messages.infractionNotFound } });
    expect(await closeCase(other, infractionId, 'accepted')).toMatchObject({ status: 404, body: { error: messages.infractionNotFound } });
    expect(await gateway.call('GET', '/v1/infractions/abc', { key: other.apiKey })).toMatchObject({
      status: 400,
      body: { error: messages.infractionIdInvalid },
    });
  });
});

describe('closing a case', () => {
  it('rejected: block released, transaction.dispute, charge untouched', async () => {
    const { merchant, transactionId, infractionId } = await chargeWithCase();
    const closed = await closeCase(merchant, infractionId, 'rejected');
    expect(closed).toMatchObject({ status: 200, body: { status: 'rejected', closedAt: expect.any(Number) } });
    expect(await balance(merchant)).toMatchObject({ available: 1000, blocked: 0, withdrawable: 1000 });
    const events = await eventsOf(gateway, transactionId);
    expect(events.at(-1)).toMatchObject({ name: 'transaction.dispute', payload: { infraction: closed.body, status: 'paid' } });
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid');
    expect(await closeCase(merchant, infractionId, 'accepted')).toMatchObject({ status: 422, body: { error: messages.infractionWrongStatus('rejected') } });
  });

  it('accepted: chargeback refund of nature MED, block released, amount debited even below zero; chargeback then refunded', async () => {
    const { merchant, transactionId, infractionId } = await chargeWithCase();
    // The merchant withdrew what the block allowed... nothing here, so spend it by an adjustment the operator makes.
    const spend = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: -800, reason: 'teste' });
    expect(spend.status).toBe(201);
    const closed = await closeCase(merchant, infractionId, 'accepted');
    expect(closed).toMatchObject({ status: 200, body: { status: 'accepted' } });
    expect(await balance(merchant)).toMatchObject({ available: -800, blocked: 0, withdrawable: -800 });

    const charge = await readTransaction(gateway, merchant, transactionId);
    expect(charge).toMatchObject({ status: 'refunded', refundedCents: 1000 });
    const names = await eventNames(gateway, transactionId);
    expect(names.slice(-2)).toEqual(['transaction.chargeback', 'transaction.refunded']);
    const events = await eventsOf(gateway, transactionId);
    const chargeback = events.at(-2)!.payload;
    // Written when the case closed, before its refund settled.
    expect(chargeback).toMatchObject({ status: 'paid', infraction: { infractionId, status: 'accepted' } });
    expect(chargeback).not.toHaveProperty('endToEndId');
    const refunded = events.at(-1)!.payload;
    expect(refunded).toMatchObject({ endToEndId: charge.endToEndId, payer: charge.payer, refund: { kind: 'med', amountCents: 1000, status: 'refunded' } });

    const refunds = await gateway.call('GET', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey });
    expect(refunds.body.refunds[0]).toMatchObject({ kind: 'med', status: 'refunded', amountCents: 1000, reason: 'fraud' });
    expect(refunds.body.refunds[0]?.refundEndToEndId).toMatch(REFUND_END_TO_END_ID_PATTERN);
    // Below zero only through the chargeback: the ledger's invariants still hold.
    expect(await gateway.ledgerProblems()).toEqual([]);
    // Withdrawals and refunds wait for the balance to come back.
    const withdrawal = await gateway.call('POST', '/v1/withdraw', {
      key: merchant.apiKey,
      body: { amountCents: 100, pixKey: '52998224725', pixKeyType: 'cpf' },
    });
    expect(withdrawal).toMatchObject({ status: 422, body: { error: messages.insufficientBalance } });
  });

  it('the provider refusing the MED return: the chargeback is recorded, its debit reversed, the charge unchanged', async () => {
    const { merchant, transactionId, infractionId } = await chargeWithCase({ reason: 'operational_flaw', amountCents: 400 });
    expect((await gateway.call('POST', '/sandbox/v1/provider/next-refund', { key: merchant.apiKey, body: { outcome: 'provider_error' } })).status).toBe(201);
    expect(await closeCase(merchant, infractionId, 'accepted')).toMatchObject({ status: 200, body: { status: 'accepted' } });
    expect((await eventNames(gateway, transactionId)).slice(-1)).toEqual(['transaction.chargeback']);
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'paid' });
    const refunds = await gateway.call('GET', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey });
    expect(refunds.body.refunds[0]).toMatchObject({ kind: 'med', status: 'failed', amountCents: 400 });
    expect(await balance(merchant)).toMatchObject({ available: 1000, blocked: 0, withdrawable: 1000 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('the operator tops up a balance a chargeback left negative, in part', async () => {
    const { merchant, infractionId } = await chargeWithCase();
    await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: -1000, reason: 'saque' });
    await closeCase(merchant, infractionId, 'accepted');
    expect((await balance(merchant)).available).toBe(-1000);
    const credit = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: 400, reason: 'aporte' });
    expect(credit).toMatchObject({ status: 201, body: { available: -600 } });
    const debit = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: -1, reason: 'x' });
    expect(debit).toMatchObject({ status: 422, body: { error: messages.adjustmentWouldGoNegative } });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('the operator accepts a smaller chargeback: partially_refunded; more than the case is 422', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const transactionId = await paidCharge(gateway, merchant);
    const opened = await gateway.admin('POST', `/admin/v1/transactions/${transactionId}/infractions`, { reason: 'fraud', amountCents: 500 });
    const infractionId = opened.body.infractionId;
    expect(await gateway.admin('POST', `/admin/v1/infractions/${infractionId}/accept`, { amountCents: 501 })).toMatchObject({
      status: 422,
      body: { error: messages.chargebackAboveCase(500) },
    });
    expect(await gateway.admin('POST', `/admin/v1/infractions/${infractionId}/accept`, { amountCents: 300 })).toMatchObject({
      status: 200,
      body: { status: 'accepted' },
    });
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'partially_refunded', refundedCents: 300 });
    expect(await balance(merchant)).toMatchObject({ available: 700, blocked: 0 });
    expect((await eventNames(gateway, transactionId)).slice(-2)).toEqual(['transaction.chargeback', 'transaction.partially_refunded']);
  });

  it('the sandbox close takes accepted or rejected only; the operator needs its token', async () => {
    const { merchant, infractionId } = await chargeWithCase();
    const bad = await gateway.call('POST', `/sandbox/v1/infractions/${infractionId}/close`, { key: merchant.apiKey, body: { outcome: 'closed' } });
    expect(bad).toMatchObject({ status: 400, body: { error: messages.sandboxInfractionOutcomeInvalid } });
    const noToken = await gateway.call('POST', `/admin/v1/infractions/${infractionId}/accept`, { key: merchant.apiKey, body: {} });
    expect(noToken).toMatchObject({ status: 401, body: { error: messages.adminTokenInvalid } });
    expect((await gateway.call('GET', `/v1/infractions/${infractionId}`, { key: merchant.apiKey })).body.status).toBe('open');
  });

  it('no merchant refund while a case runs; once it closes for the merchant, the whole charge may be refunded', async () => {
    const { merchant, transactionId, infractionId } = await chargeWithCase({ reason: 'fraud', amountCents: 700 });
    const refused = await gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body: { amountCents: 100 } });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 422, body: { error: messages.refundDuringDispute } });
    expect(await balance(merchant)).toMatchObject({ available: 1000, blocked: 700 });
    expect((await closeCase(merchant, infractionId, 'rejected')).status).toBe(200);
    const refund = await gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body: {} });
    expect(refund).toMatchObject({ status: 201, body: { amountCents: 1000, status: 'processing' } });
  });
});

describe('GET /v1/infractions', () => {
  it('lists the merchant’s cases, newest first, filtered by status', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const first = await paidCharge(gateway, merchant);
    const second = await paidCharge(gateway, merchant);
    const a = (await openCase(merchant, first)).body;
    gateway.clock.advance(1000);
    const b = (await openCase(merchant, second)).body;
    await closeCase(merchant, a.infractionId, 'rejected');

    const all = await gateway.call('GET', '/v1/infractions', { key: merchant.apiKey });
    expect(all.body.count).toBe(2);
    expect(all.body.infractions.map((row: { infractionId: string }) => row.infractionId)).toEqual([b.infractionId, a.infractionId]);
    const open = await gateway.call('GET', '/v1/infractions?status=open', { key: merchant.apiKey });
    expect(open.body).toEqual({ infractions: [b], count: 1, hasMore: false });
    expect(await gateway.call('GET', '/v1/infractions?status=closed', { key: merchant.apiKey })).toMatchObject({
      status: 400,
      body: { error: messages.infractionStatusInvalid('closed') },
    });
    const other = await gateway.createMerchant(NO_CHARGE_FEES);
    expect((await gateway.call('GET', '/v1/infractions', { key: other.apiKey })).body).toEqual({ infractions: [], count: 0, hasMore: false });
  });
});
