import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { newId } from '../../src/platform/ids.js';
import { balanceOf, createCharge, eventNames, eventsOf, fund, readTransaction } from '../helpers/api.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

const DAY = 86_400_000;

const entriesOf = (transactionId: string) =>
  gateway.database.db.selectFrom('ledgerEntries').select(['book', 'amountCents', 'kind']).where('transactionId', '=', transactionId).orderBy('book').execute();

describe('charge paid', () => {
  it('credits the net to the merchant, the fee to the platform, against PIX settlement', async () => {
    const merchant = await gateway.createMerchant();
    expect(await balanceOf(gateway, merchant)).toBe(0);
    const id = await createCharge(gateway, merchant, { amountCents: 1500 }); // default plan: max(0.99%, 50) = 50
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', amountCents: 1500, feeCents: 50, netCents: 1450 });
    expect(await balanceOf(gateway, merchant)).toBe(1450);
    expect(await entriesOf(id)).toEqual([
      { book: 'fees', amountCents: 50, kind: 'charge_paid' },
      { book: 'merchant', amountCents: 1450, kind: 'charge_paid' },
      { book: 'settlement', amountCents: -1500, kind: 'charge_paid' },
    ]);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('writes exactly one transaction.paid event carrying endToEndId and payer', async () => {
    const merchant = await gateway.createMerchant();
    const id = await createCharge(gateway, merchant, { externalRef: 'evt-1' });
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey });
    const events = await eventsOf(gateway, id);
    expect(events.map((event) => event.name)).toEqual(['transaction.paid']);
    expect(events[0]?.payload).toMatchObject({
      event: 'transaction.paid',
      transactionId: id,
      type: 'pix_in',
      status: 'paid',
      amountCents: 1000,
      externalRef: 'evt-1',
      endToEndId: paid.body.endToEndId,
      payer: paid.body.payer,
    });
    expect(events[0]?.payload).not.toHaveProperty('pixPayload');
  });

  it('cannot be paid twice, nor with another amount; the balance moves once', async () => {
    const merchant = await gateway.createMerchant();
    const id = await createCharge(gateway, merchant);
    const wrongAmount = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey, body: { amountCents: 999 } });
    expect(wrongAmount).toMatchObject({ status: 400, body: { error: 'amountCents do pagamento deve ser igual ao valor da cobrança.' } });
    expect((await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey, body: { amountCents: 1000 } })).status).toBe(200);
    const again = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey });
    expect(again).toMatchObject({ status: 422, body: { error: 'Cobrança não está pendente (status atual: paid).' } });
    expect(await balanceOf(gateway, merchant)).toBe(950);
    expect(await eventsOf(gateway, id)).toHaveLength(1);
  });

  it("acts only on the caller's own charges", async () => {
    const [owner, stranger] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const id = await createCharge(gateway, owner);
    const reply = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: stranger.apiKey });
    expect(reply).toMatchObject({ status: 404, body: { error: 'Transação não encontrada.' } });
    expect((await gateway.call('POST', `/sandbox/v1/pix/${newId()}/pay`, { key: owner.apiKey })).status).toBe(404);
    expect((await gateway.call('POST', '/sandbox/v1/pix/not-an-id/pay', { key: owner.apiKey })).body).toEqual({ error: 'transactionId inválido.' });
    expect(await balanceOf(gateway, stranger)).toBe(0);
    expect(await balanceOf(gateway, owner)).toBe(0);
  });
});

describe('charge expiry', () => {
  it('sandbox expire: pending → expired with transaction.expired; it can no longer be paid', async () => {
    const merchant = await gateway.createMerchant();
    const id = await createCharge(gateway, merchant);
    const expired = await gateway.call('POST', `/sandbox/v1/pix/${id}/expire`, { key: merchant.apiKey });
    expect(expired.body).toMatchObject({ status: 'expired', paidAt: null });
    const pay = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey });
    expect(pay).toMatchObject({ status: 422, body: { error: 'Cobrança não está pendente (status atual: expired).' } });
    const events = await eventsOf(gateway, id);
    expect(events.map((event) => event.name)).toEqual(['transaction.expired']);
    expect(events[0]?.payload).not.toHaveProperty('endToEndId');
    expect(events[0]?.payload).not.toHaveProperty('payer');
    expect(await balanceOf(gateway, merchant)).toBe(0);
  });

  it('the worker expires charges whose validity elapsed, and only those', async () => {
    const merchant = await gateway.createMerchant();
    const oneDay = await createCharge(gateway, merchant, { expiresInDays: 1 });
    const threeDays = await createCharge(gateway, merchant, { expiresInDays: 3 });
    const paid = await createCharge(gateway, merchant, { expiresInDays: 1 });
    await gateway.call('POST', `/sandbox/v1/pix/${paid}/pay`, { key: merchant.apiKey });

    gateway.clock.advance(DAY - 60_000);
    await gateway.services.charges.expireDueCharges();
    const statusOf = async (id: string) => (await readTransaction(gateway, merchant, id)).status;
    expect(await statusOf(oneDay)).toBe('pending');

    gateway.clock.advance(120_000);
    // The validity elapsed: a payment attempt finds it expired even before the worker runs.
    expect((await gateway.call('POST', `/sandbox/v1/pix/${oneDay}/pay`, { key: merchant.apiKey })).status).toBe(422);
    expect(await gateway.services.charges.expireDueCharges()).toBeGreaterThanOrEqual(1);
    expect(await statusOf(oneDay)).toBe('expired');
    expect(await statusOf(threeDays)).toBe('pending');
    expect(await statusOf(paid)).toBe('paid');
    expect(await eventNames(gateway, oneDay)).toEqual(['transaction.expired']);
    expect(await gateway.services.charges.expireDueCharges()).toBe(0);
  });
});

describe('balance', () => {
  it('GET /v1/balance has available (gross), pending 0, currency BRL, the response time in ms, blocked, withdrawable, owed and shortfall', async () => {
    const merchant = await gateway.createMerchant();
    const reply = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['available', 'blocked', 'currency', 'owed', 'pending', 'shortfall', 'updatedAt', 'withdrawable']);
    expect(reply.body).toMatchObject({ available: 0, pending: 0, currency: 'BRL', blocked: 0, withdrawable: 0, owed: 0, shortfall: 0 });
    expect(Math.abs(reply.body.updatedAt - gateway.clock.now().getTime())).toBeLessThan(5_000);
  });

  it('operator adjustments move the balance through the ledger and never below zero', async () => {
    const merchant = await gateway.createMerchant();
    const credit = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: 10_000, reason: 'aporte inicial' });
    expect(credit.status).toBe(201);
    expect(credit.body).toMatchObject({ amountCents: 10_000, available: 10_000 });
    const debit = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: -2_500, reason: 'estorno' });
    expect(debit.body.available).toBe(7_500);
    const tooMuch = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: -7_501, reason: 'excesso' });
    expect(tooMuch).toMatchObject({ status: 422, body: { error: 'Ajuste deixaria o saldo negativo.' } });
    expect(await balanceOf(gateway, merchant)).toBe(7_500);
    const zero = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: 0, reason: 'nada' });
    expect(zero.status).toBe(400);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('blocks reduce the withdrawable amount, never `available`; released blocks stop counting', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 5_000);
    const block = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/blocks`, { amountCents: 1_200, reason: 'MED' });
    expect(block.status).toBe(201);
    expect(block.body.blockId).toBeTruthy();
    expect(await balanceOf(gateway, merchant)).toBe(5_000);
    expect((await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/balance`)).body).toEqual({
      available: 5_000,
      blocked: 1_200,
      withdrawable: 3_800,
      owed: 0,
      shortfall: 0,
    });

    expect((await gateway.admin('DELETE', `/admin/v1/blocks/${block.body.blockId}`)).status).toBe(204);
    expect((await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/balance`)).body).toEqual({
      available: 5_000,
      blocked: 0,
      withdrawable: 5_000,
      owed: 0,
      shortfall: 0,
    });
    expect((await gateway.admin('DELETE', `/admin/v1/blocks/${newId()}`)).body).toEqual({ error: 'Bloqueio não encontrado.' });
    expect((await gateway.admin('DELETE', '/admin/v1/blocks/xyz')).body).toEqual({ error: 'blockId inválido.' });
  });
});

describe('ledger invariants (what doctor reads)', () => {
  /** Raw SQL: a movement the code never writes, to prove the check sees it. */
  const writeMovement = async (accountId: string, kind: string, amountCents: number) => {
    const movementId = newId();
    await sql`INSERT INTO ledger_entries (account_id, movement_id, book, kind, amount_cents) VALUES
      (${accountId}, ${movementId}, 'merchant', ${kind}, ${amountCents}), (${accountId}, ${movementId}, 'settlement', ${kind}, ${-amountCents})`.execute(
      gateway.database.db,
    );
    await sql`UPDATE balances SET available_cents = available_cents + ${amountCents} WHERE account_id = ${accountId}`.execute(gateway.database.db);
    // The daily summary moves with the entries, as the ledger's statements keep it (migration 040).
    await sql`INSERT INTO ledger_days (account_id, day, credited_cents, debited_cents)
      VALUES (${accountId}, (now() AT TIME ZONE 'America/Sao_Paulo')::date, ${Math.max(0, amountCents)}, ${Math.max(0, -amountCents)})
      ON CONFLICT (account_id, day) DO UPDATE SET credited_cents = ledger_days.credited_cents + excluded.credited_cents,
        debited_cents = ledger_days.debited_cents + excluded.debited_cents`.execute(gateway.database.db);
  };

  it("the balance row's blocked amount follows the active blocks; a drift is reported", async () => {
    const merchant = await gateway.createMerchant();
    const block = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/blocks`, { amountCents: 300, reason: 'análise' });
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ blocked: 300, withdrawable: -300 });
    expect(await gateway.ledgerProblems()).toEqual([]);
    await sql`UPDATE balances SET blocked_cents = 299 WHERE account_id = ${merchant.accountId}`.execute(gateway.database.db);
    expect(await gateway.ledgerProblems()).toEqual([`account ${merchant.accountId}: blocked 299 but active blocks sum to 300`]);
    await sql`UPDATE balances SET blocked_cents = 300 WHERE account_id = ${merchant.accountId}`.execute(gateway.database.db);
    expect((await gateway.admin('DELETE', `/admin/v1/blocks/${block.body.blockId}`)).status).toBe(204);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ blocked: 0, withdrawable: 0 });
    expect((await gateway.admin('DELETE', `/admin/v1/blocks/${block.body.blockId}`)).status).toBe(204);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ blocked: 0 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('a balance below zero is a problem, unless chargebacks took it there (and no deeper than they did)', async () => {
    const merchant = await gateway.createMerchant();
    await writeMovement(merchant.accountId, 'chargeback', -700);
    expect(await gateway.ledgerProblems()).toEqual([]);
    await writeMovement(merchant.accountId, 'adjustment', -1);
    expect(await gateway.ledgerProblems()).toEqual([`account ${merchant.accountId}: negative balance -701 beyond its chargebacks (700)`]);
    await writeMovement(merchant.accountId, 'adjustment', 701);
    expect(await gateway.ledgerProblems()).toEqual([]);
    // A chargeback whose MED return failed came back: it no longer excuses a negative balance.
    await writeMovement(merchant.accountId, 'chargeback_reversal', 700);
    await writeMovement(merchant.accountId, 'adjustment', -701);
    expect(await gateway.ledgerProblems()).toEqual([`account ${merchant.accountId}: negative balance -1 beyond its chargebacks (0)`]);
    await writeMovement(merchant.accountId, 'adjustment', 1);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
