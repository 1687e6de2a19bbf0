import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { dayAfter, dayOf, dayStart } from '../../src/platform/saoPauloDay.js';
import { createCharge, eventsOf, fund, readTransaction, withdraw } from '../helpers/api.js';
import type { AuditPage } from '../helpers/admin.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * The cautionary block (DESIGN.md §19, Res. BCB 506; docs/refunds.md "Cautionary block"): a
 * received PIX the PSP holds is paid, credited and blocked at once; then released (sandbox,
 * operator, or its 72 hours running out: the worker's step) or returned by the PSP, its whole
 * movement reversed, fee included.
 */

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

const HOUR = 3_600_000;

const balance = async (merchant: Merchant) => (await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body;

/** A charge of 10,00 (fee 0,50 on the default plan, net 9,50) paid held through the sandbox; its id and the pay reply's body. */
async function heldCharge(merchant: Merchant) {
  const id = await createCharge(gateway, merchant, { externalRef: `held-${newId()}` });
  const paid = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey, body: { held: true } });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return { id, paid: paid.body };
}

/** The sums of each book's entries for one transaction. */
async function booksOf(transactionId: string) {
  const rows = await gateway.database.db
    .selectFrom('ledgerEntries')
    .select(['book', 'amountCents', 'kind'])
    .where('transactionId', '=', transactionId)
    .orderBy('id')
    .execute();
  const sums: Record<string, number> = {};
  for (const row of rows) sums[row.book] = (sums[row.book] ?? 0) + row.amountCents;
  return { rows, sums };
}

const blocksOf = (transactionId: string) =>
  gateway.database.db.selectFrom('blocks').select(['kind', 'amountCents', 'status', 'transactionId']).where('transactionId', '=', transactionId).execute();

describe('a PIX received held', () => {
  it('is paid with held and heldUntil (paid + 72 h), its net credited and blocked: not withdrawable, not refundable; transaction.paid then transaction.blocked', async () => {
    const merchant = await gateway.createMerchant();
    const { id, paid } = await heldCharge(merchant);
    const paidAt = paid.paidAt ?? 0;
    expect(paid).toMatchObject({ status: 'paid', amountCents: 1000, feeCents: 50, netCents: 950, held: true, heldUntil: paidAt + 72 * HOUR });
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ held: true, heldUntil: paidAt + 72 * HOUR });
    expect(await balance(merchant)).toMatchObject({ available: 950, blocked: 950, withdrawable: 0 });
    expect(await blocksOf(id)).toEqual([{ kind: 'cautionary', amountCents: 950, status: 'active', transactionId: id }]);

    const events = await eventsOf(gateway, id);
    expect(events.map((event) => event.name)).toEqual(['transaction.paid', 'transaction.blocked']);
    const { pixPayload: _payload, endToEndId, payer, ...view } = paid;
    expect(events[0]?.payload).toEqual({ eventId: expect.any(String), event: 'transaction.paid', ...view, endToEndId, payer, occurredAt: paidAt });
    // The PSP's block: no MED case in the body; `held` says why.
    expect(events[1]?.payload).toEqual({ eventId: expect.any(String), event: 'transaction.blocked', ...view, occurredAt: paidAt });

    // The money is not the merchant's yet: no withdrawal, no refund.
    const withdrawal = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 100 }));
    expect(withdrawal).toMatchObject({ status: 422, body: { error: 'Saldo insuficiente para realizar o saque.' } });
    const refund = await gateway.call('POST', `/v1/transactions/${id}/refunds`, { key: merchant.apiKey, body: { amountCents: 100 } });
    expect(refund).toMatchObject({
      status: 422,
      body: { error: 'Cobrança retida pelo PSP (bloqueio cautelar): o valor ainda não está disponível e não pode ser devolvido até a liberação.' },
    });
    expect(await balance(merchant)).toMatchObject({ available: 950, blocked: 950, withdrawable: 0 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('a charge paid without held has neither field', async () => {
    const merchant = await gateway.createMerchant();
    const id = await createCharge(gateway, merchant);
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey, body: { held: false } });
    expect(paid.status).toBe(200);
    expect(paid.body).not.toHaveProperty('held');
    expect(paid.body).not.toHaveProperty('heldUntil');
    expect(await balance(merchant)).toMatchObject({ available: 950, blocked: 0, withdrawable: 950 });
    const bad = await gateway.call('POST', `/sandbox/v1/pix/${await createCharge(gateway, merchant)}/pay`, { key: merchant.apiKey, body: { held: 'sim' } });
    expect(bad).toMatchObject({ status: 400, body: { error: 'held deve ser true ou false.' } });
  });
});

describe('released', () => {
  it('by the sandbox: the block ends, held false, transaction.hold_released with the transaction as body; the money withdrawable and refundable', async () => {
    const merchant = await gateway.createMerchant();
    const { id, paid } = await heldCharge(merchant);
    gateway.clock.advance(HOUR);
    const released = await gateway.call('POST', `/sandbox/v1/pix/${id}/hold/release`, { key: merchant.apiKey });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(released.body).toMatchObject({ status: 'paid', held: false, heldUntil: paid.heldUntil, paidAt: paid.paidAt });
    expect(await balance(merchant)).toMatchObject({ available: 950, blocked: 0, withdrawable: 950 });
    expect(await blocksOf(id)).toEqual([{ kind: 'cautionary', amountCents: 950, status: 'released', transactionId: id }]);

    const events = await eventsOf(gateway, id);
    expect(events.map((event) => event.name)).toEqual(['transaction.paid', 'transaction.blocked', 'transaction.hold_released']);
    const { pixPayload: _payload, endToEndId: _e2e, payer: _payer, ...view } = released.body;
    expect(events[2]?.payload).toEqual({ eventId: expect.any(String), event: 'transaction.hold_released', ...view, occurredAt: view.updatedAt });

    // Released once: the next call has nothing to release, and the ledger did not move.
    const again = await gateway.call('POST', `/sandbox/v1/pix/${id}/hold/release`, { key: merchant.apiKey });
    expect(again).toMatchObject({ status: 422, body: { error: 'Cobrança não está retida.' } });
    expect((await booksOf(id)).rows.map((row) => row.kind)).toEqual(['charge_paid', 'charge_paid', 'charge_paid']);

    const refund = await gateway.call('POST', `/v1/transactions/${id}/refunds`, { key: merchant.apiKey, body: { amountCents: 100 } });
    expect(refund.status).toBe(201);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('by the worker when heldUntil passes undecided (an injected clock), and not a minute before', async () => {
    const merchant = await gateway.createMerchant();
    const { id, paid } = await heldCharge(merchant);
    gateway.clock.advance(72 * HOUR - 60_000);
    await gateway.services.holds.releaseExpired();
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ held: true });
    expect(await balance(merchant)).toMatchObject({ blocked: 950, withdrawable: 0 });

    gateway.clock.advance(60_000);
    expect(await gateway.services.holds.releaseExpired()).toBeGreaterThanOrEqual(1);
    const read = await readTransaction(gateway, merchant, id);
    expect(read).toMatchObject({ status: 'paid', held: false, heldUntil: paid.heldUntil });
    expect(await balance(merchant)).toMatchObject({ available: 950, blocked: 0, withdrawable: 950 });
    const events = await eventsOf(gateway, id);
    expect(events.map((event) => event.name)).toEqual(['transaction.paid', 'transaction.blocked', 'transaction.hold_released']);
    const { pixPayload: _payload, endToEndId: _e2e, payer: _payer, ...view } = read;
    expect(view.updatedAt).toBeGreaterThanOrEqual(paid.heldUntil ?? Infinity);
    expect(events[2]?.payload).toEqual({ eventId: expect.any(String), event: 'transaction.hold_released', ...view, occurredAt: view.updatedAt });
    expect(await gateway.services.holds.releaseExpired()).toBe(0);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});

describe('returned by the PSP', () => {
  it('reverses the whole payment, fee included: the balance exactly as before, the charge refunded by a cautionary_return refund, transaction.refunded', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 5_000);
    const before = await balance(merchant);
    expect(before).toMatchObject({ available: 5_000, blocked: 0, withdrawable: 5_000 });
    const { id, paid } = await heldCharge(merchant);
    expect(await balance(merchant)).toMatchObject({ available: 5_950, blocked: 950, withdrawable: 5_000 });
    gateway.clock.advance(HOUR);

    const returned = await gateway.call('POST', `/sandbox/v1/pix/${id}/hold/return`, { key: merchant.apiKey });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    expect(returned.body).toMatchObject({ status: 'refunded', refundedCents: 1000, held: false, heldUntil: paid.heldUntil });
    expect(await balance(merchant)).toMatchObject({ available: 5_000, blocked: 0, withdrawable: 5_000 });
    expect(await blocksOf(id)).toEqual([{ kind: 'cautionary', amountCents: 950, status: 'released', transactionId: id }]);

    // Every book back where it was: the merchant's net, the platform's fee and the settlement's amount.
    const { rows, sums } = await booksOf(id);
    expect(sums).toEqual({ settlement: 0, merchant: 0, fees: 0 });
    expect(rows.filter((row) => row.kind === 'cautionary_return')).toEqual([
      { book: 'settlement', amountCents: 1000, kind: 'cautionary_return' },
      { book: 'merchant', amountCents: -950, kind: 'cautionary_return' },
      { book: 'fees', amountCents: -50, kind: 'cautionary_return' },
    ]);

    const refunds = await gateway.call('GET', `/v1/transactions/${id}/refunds`, { key: merchant.apiKey });
    expect(refunds.body.refunds).toEqual([
      {
        refundId: expect.any(String),
        transactionId: id,
        kind: 'cautionary_return',
        amountCents: 1000,
        status: 'refunded',
        reason: null,
        externalRef: null,
        refundEndToEndId: expect.stringMatching(/^D[0-9A-Za-z]{31}$/),
        createdAt: returned.body.updatedAt,
        settledAt: returned.body.updatedAt,
      },
    ]);
    const events = await eventsOf(gateway, id);
    expect(events.map((event) => event.name)).toEqual(['transaction.paid', 'transaction.blocked', 'transaction.refunded']);
    const { pixPayload: _payload, endToEndId, payer, ...view } = returned.body;
    expect(events[2]?.payload).toEqual({
      eventId: expect.any(String),
      event: 'transaction.refunded',
      ...view,
      endToEndId,
      payer,
      refund: refunds.body.refunds[0],
      occurredAt: returned.body.updatedAt,
    });

    // Nothing left to return, release or refund; the history shows the return with its fee given back.
    expect(await gateway.call('POST', `/sandbox/v1/pix/${id}/hold/return`, { key: merchant.apiKey })).toMatchObject({
      status: 422,
      body: { error: 'Cobrança não está retida.' },
    });
    expect(await gateway.call('POST', `/sandbox/v1/pix/${id}/hold/release`, { key: merchant.apiKey })).toMatchObject({ status: 422 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('after a MED chargeback took the balance below zero: the return lands where the balance would be without the PIX, and doctor stays clean', async () => {
    const merchant = await gateway.createMerchant();
    const earlier = await createCharge(gateway, merchant, { amountCents: 10_000 });
    expect((await gateway.call('POST', `/sandbox/v1/pix/${earlier}/pay`, { key: merchant.apiKey })).status).toBe(200);
    // Most of it withdrawn, then a MED case on that charge closes against the merchant (100,00 taken, below zero).
    const out = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 9_000 }));
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    const { id: held } = await heldCharge(merchant);
    const opened = await gateway.call('POST', `/sandbox/v1/pix/${earlier}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud' } });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const closed = await gateway.call('POST', `/sandbox/v1/infractions/${opened.body.infractionId}/close`, {
      key: merchant.apiKey,
      body: { outcome: 'accepted' },
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const withChargeback = (await balance(merchant)).available;
    expect(withChargeback).toBeLessThan(0);
    const returned = await gateway.call('POST', `/sandbox/v1/pix/${held}/hold/return`, { key: merchant.apiKey });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    expect((await balance(merchant)).available).toBe(withChargeback - 950);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});

describe('refusals', () => {
  it("a charge not held is 422 Cobrança não está retida.; another merchant's 404; a malformed id 400", async () => {
    const [merchant, stranger] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const pending = await createCharge(gateway, merchant);
    const paid = await createCharge(gateway, merchant);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${paid}/pay`, { key: merchant.apiKey })).status).toBe(200);
    for (const id of [pending, paid]) {
      for (const step of ['release', 'return']) {
        const reply = await gateway.call('POST', `/sandbox/v1/pix/${id}/hold/${step}`, { key: merchant.apiKey });
        expect(reply, `${step} ${id}`).toMatchObject({ status: 422, body: { error: 'Cobrança não está retida.' } });
      }
    }
    const { id: held } = await heldCharge(merchant);
    for (const step of ['release', 'return']) {
      expect(await gateway.call('POST', `/sandbox/v1/pix/${held}/hold/${step}`, { key: stranger.apiKey })).toMatchObject({
        status: 404,
        body: { error: 'Transação não encontrada.' },
      });
      expect(await gateway.call('POST', `/sandbox/v1/pix/${newId()}/hold/${step}`, { key: merchant.apiKey })).toMatchObject({ status: 404 });
      expect(await gateway.call('POST', `/sandbox/v1/pix/nope/hold/${step}`, { key: merchant.apiKey })).toMatchObject({
        status: 400,
        body: { error: 'transactionId inválido.' },
      });
    }
    expect(await readTransaction(gateway, merchant, held)).toMatchObject({ held: true });
    expect(await balance(merchant)).toMatchObject({ available: 1900, blocked: 950, withdrawable: 950 });
  });
});

describe('operator', () => {
  it('releases and returns with the PSP’s return id, each audited; 404 and 422 as the sandbox', async () => {
    const merchant = await gateway.createMerchant();
    const { id: first } = await heldCharge(merchant);
    const { id: second } = await heldCharge(merchant);
    // Its block is not released by its id: the charge would stay held without it.
    const [block] = await gateway.database.db.selectFrom('blocks').select('id').where('transactionId', '=', first).execute();
    expect(await gateway.admin('DELETE', `/admin/v1/blocks/${block?.id ?? ''}`)).toMatchObject({
      status: 422,
      body: { error: `Bloqueio cautelar de um PIX retido: libere-o pela transação (POST /admin/v1/transactions/${first}/hold/release).` },
    });
    const released = await gateway.admin('POST', `/admin/v1/transactions/${first}/hold/release`);
    expect(released).toMatchObject({ status: 200, body: { held: false, status: 'paid' } });
    const badReturn = await gateway.admin('POST', `/admin/v1/transactions/${second}/hold/return`, { refundEndToEndId: 'curto' });
    expect(badReturn).toMatchObject({ status: 400, body: { error: 'endToEndId deve ter 32 letras e dígitos.' } });
    const e2e = `D00000000${'2026120721000000000000'.slice(0, 22)}X`;
    const returned = await gateway.admin('POST', `/admin/v1/transactions/${second}/hold/return`, { refundEndToEndId: e2e });
    expect(returned).toMatchObject({ status: 200, body: { held: false, status: 'refunded', refundedCents: 1000 } });
    expect(await gateway.admin('POST', `/admin/v1/transactions/${second}/hold/release`)).toMatchObject({
      status: 422,
      body: { error: 'Cobrança não está retida.' },
    });
    expect(await gateway.admin('POST', `/admin/v1/transactions/${newId()}/hold/release`)).toMatchObject({
      status: 404,
      body: { error: 'Transação não encontrada.' },
    });
    const refunds = await gateway.call('GET', `/v1/transactions/${second}/refunds`, { key: merchant.apiKey });
    expect(refunds.body.refunds).toMatchObject([{ kind: 'cautionary_return', refundEndToEndId: e2e }]);
    expect(await balance(merchant)).toMatchObject({ available: 950, blocked: 0, withdrawable: 950 });

    const audit = await gateway.admin<AuditPage>('GET', `/admin/v1/audit?accountId=${merchant.accountId}`);
    const holdEntries = audit.body.entries.filter((entry) => entry.action.includes('/hold/'));
    expect(holdEntries.map((entry) => [entry.action, entry.objectId])).toEqual([
      ['POST /admin/v1/transactions/:id/hold/return', second],
      ['POST /admin/v1/transactions/:id/hold/release', first],
    ]);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});

describe('statements', () => {
  it("a closed day's statement shows the block placed and released, and the return with its fee given back", async () => {
    // Start at 00:20 of a day so that every step stays within it.
    const now = gateway.clock.now();
    const next = dayStart(dayAfter(dayOf(now)));
    if (!next) throw new Error('day');
    gateway.clock.advance(next.getTime() - now.getTime() + 20 * 60_000);
    const day = dayOf(gateway.clock.now());
    const merchant = await gateway.createMerchant();
    const { id: released } = await heldCharge(merchant);
    const { id: returned } = await heldCharge(merchant);
    gateway.clock.advance(60_000);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${released}/hold/release`, { key: merchant.apiKey })).status).toBe(200);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${returned}/hold/return`, { key: merchant.apiKey })).status).toBe(200);
    const tomorrow = dayStart(dayAfter(day));
    if (!tomorrow) throw new Error('day');
    gateway.clock.advance(tomorrow.getTime() - gateway.clock.now().getTime() + 60 * 60_000);
    while ((await gateway.services.history.closeDays()) > 0);

    const statement = await gateway.call('GET', `/v1/statements/${day}`, { key: merchant.apiKey });
    expect(statement.status, JSON.stringify(statement.body)).toBe(200);
    const body = statement.body as {
      movements: Record<string, unknown>[];
      blocks: Record<string, unknown>[];
      closingBalanceCents: number;
      closingBlockedCents: number;
    };
    expect(body.movements.map((movement) => [movement.kind, movement.transactionId, movement.amountCents, movement.feeCents])).toEqual([
      ['charge_paid', released, 950, 50],
      ['charge_paid', returned, 950, 50],
      ['cautionary_return', returned, -950, -50],
    ]);
    expect(body.blocks.map((block) => [block.event, block.amountCents, block.reason])).toEqual([
      ['placed', 950, `Bloqueio cautelar do PSP sobre o PIX ${released}`],
      ['placed', 950, `Bloqueio cautelar do PSP sobre o PIX ${returned}`],
      ['released', 950, `Bloqueio cautelar do PSP sobre o PIX ${released}`],
      ['released', 950, `Bloqueio cautelar do PSP sobre o PIX ${returned}`],
    ]);
    expect(body).toMatchObject({ closingBalanceCents: 950, closingBlockedCents: 0 });
  });
});

describe('doctor', () => {
  it('reports a charge and its cautionary block that disagree, and nothing once they agree again', async () => {
    const merchant = await gateway.createMerchant();
    const { id } = await heldCharge(merchant);
    const [block] = await gateway.database.db.selectFrom('blocks').select('id').where('transactionId', '=', id).execute();
    const setHoldStatus = (status: 'held' | 'released') =>
      gateway.database.db.updateTable('transactions').set({ holdStatus: status }).where('id', '=', id).execute();
    await setHoldStatus('released');
    try {
      expect(await gateway.ledgerProblems()).toEqual([`active cautionary block ${block?.id ?? ''} of charge ${id} that is not held`]);
    } finally {
      await setHoldStatus('held');
    }
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
