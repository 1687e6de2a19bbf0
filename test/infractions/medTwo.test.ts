import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { createCharge, eventNames, fund, paidCharge, readTransaction } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant, NO_CHARGE_FEES, withdrawalToHolder } from '../helpers/gateway.js';

/**
 * MED 2.0 (DESIGN.md §19) on the receiving side: several partial cases on one PIX, a case meeting
 * money already withdrawn (a short block, topped up by later credits; what a chargeback takes
 * beyond the balance owed and collected from the next credits), a partial recovery.
 */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(async () => {
  await gateway.close();
});

/** No fee on either side, so every figure below is the charge's. */
const MERCHANT = {
  fees: { ...NO_CHARGE_FEES.fees, withdrawal: { fixedCents: 0, bps: 0, minCents: 0, maxCents: 0 } },
  limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 },
};

const openCase = (merchant: Merchant, transactionId: string, body: Record<string, unknown>) =>
  gateway.call('POST', `/sandbox/v1/pix/${transactionId}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud', ...body } });
const closeCase = (merchant: Merchant, infractionId: string, body: Record<string, unknown>) =>
  gateway.call('POST', `/sandbox/v1/infractions/${infractionId}/close`, { key: merchant.apiKey, body });
const balance = async (merchant: Merchant) => (await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body;
const payCharge = async (merchant: Merchant, amountCents: number) => {
  const id = await createCharge(gateway, merchant, { amountCents });
  expect((await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey })).status).toBe(200);
  return id;
};
const alertsOf = (merchant: Merchant) =>
  gateway.database.db.selectFrom('alerts').select(['kind', 'severity', 'details']).where('accountId', '=', merchant.accountId).execute();

describe('several partial cases on one charge', () => {
  it('two and then three cases of one funds recovery share the charge; one above what is left is refused naming it', async () => {
    const merchant = await gateway.createMerchant(MERCHANT);
    const id = await paidCharge(gateway, merchant);
    const first = await openCase(merchant, id, { amountCents: 300, recoveryId: 'REC-2026-001', hop: 2, situation: 'scam' });
    expect(first).toMatchObject({ status: 201, body: { amountCents: 300, recoveryId: 'REC-2026-001', hop: 2, situation: 'scam', recoveredCents: null } });
    const second = await openCase(merchant, id, { amountCents: 450, recoveryId: 'REC-2026-001', hop: 2, situation: 'account_takeover' });
    expect(second).toMatchObject({ status: 201, body: { amountCents: 450, situation: 'account_takeover' } });
    const tooMuch = await openCase(merchant, id, { amountCents: 251 });
    expect({ status: tooMuch.status, body: tooMuch.body }).toEqual({ status: 422, body: { error: messages.infractionAboveRemainder(250) } });
    const third = await openCase(merchant, id, {});
    expect(third).toMatchObject({ status: 201, body: { amountCents: 250, hop: 1, situation: 'unknown', recoveryId: null } });
    expect(await balance(merchant)).toMatchObject({ available: 1000, blocked: 1000, withdrawable: 0, shortfall: 0, owed: 0 });
    const listed = await gateway.call('GET', '/v1/infractions?status=open', { key: merchant.apiKey });
    expect(listed.body.infractions.map((row) => row.amountCents)).toEqual([250, 450, 300]);

    // Closed one by one, each for itself: one rejected, one recovered in full, one in part.
    expect((await closeCase(merchant, first.body.infractionId, { outcome: 'rejected' })).status).toBe(200);
    expect(await closeCase(merchant, second.body.infractionId, { outcome: 'accepted' })).toMatchObject({ status: 200, body: { recoveredCents: 450 } });
    expect(await closeCase(merchant, third.body.infractionId, { outcome: 'accepted', recoveredCents: 100 })).toMatchObject({
      status: 200,
      body: { status: 'accepted', recoveredCents: 100 },
    });
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'partially_refunded', refundedCents: 550 });
    expect(await balance(merchant)).toMatchObject({ available: 450, blocked: 0, withdrawable: 450, owed: 0, shortfall: 0 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('refuses bad MED 2.0 fields with their messages', async () => {
    const merchant = await gateway.createMerchant(MERCHANT);
    const id = await paidCharge(gateway, merchant);
    for (const [body, error] of [
      [{ hop: 0 }, messages.hopInvalid],
      [{ hop: 1.5 }, messages.hopInvalid],
      [{ situation: 'golpe' }, messages.situationInvalid],
      [{ recoveryId: '' }, messages.recoveryIdInvalid],
      [{ recoveryId: 'x'.repeat(101) }, messages.recoveryIdInvalid],
    ] as const) {
      const reply = await openCase(merchant, id, body);
      expect({ status: reply.status, body: reply.body }).toEqual({ status: 400, body: { error } });
    }
    const opened = await openCase(merchant, id, { amountCents: 500 });
    const above = await closeCase(merchant, opened.body.infractionId, { outcome: 'accepted', recoveredCents: 501 });
    expect({ status: above.status, body: above.body }).toEqual({ status: 422, body: { error: messages.chargebackAboveCase(500) } });
    const notInteger = await closeCase(merchant, opened.body.infractionId, { outcome: 'accepted', recoveredCents: 0 });
    expect({ status: notInteger.status, body: notInteger.body }).toEqual({ status: 400, body: { error: messages.recoveredCentsInvalid } });
    expect(await balance(merchant)).toMatchObject({ available: 1000, blocked: 500 });
  });
});

describe('a case after the money left', () => {
  it('blocks what is withdrawable, tops up from later credits, and what the chargeback takes beyond the balance is owed, then collected', async () => {
    const merchant = await gateway.createMerchant(MERCHANT);
    const id = await paidCharge(gateway, merchant);
    expect((await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 900 }) })).status).toBe(201);

    const opened = await openCase(merchant, id, { amountCents: 1000 });
    expect(opened.status).toBe(201);
    // Only the 100 left could be blocked; the rest is the shortfall, and the operator is told.
    expect(await balance(merchant)).toMatchObject({ available: 100, blocked: 100, withdrawable: 0, shortfall: 900, owed: 0 });
    expect(await alertsOf(merchant)).toEqual([
      { kind: 'med_block_short', severity: 'high', details: { infractionId: opened.body.infractionId, amountCents: 1000, heldCents: 100, shortCents: 900 } },
    ]);
    const refused = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 100 }) });
    expect(refused).toMatchObject({ status: 422, body: { error: messages.insufficientBalance } });

    // The next PIX received tops the block up before anything becomes withdrawable.
    await payCharge(merchant, 600);
    expect(await balance(merchant)).toMatchObject({ available: 700, blocked: 700, withdrawable: 0, shortfall: 300 });

    // Closed against the merchant: 1000 recovered, 700 held; 300 owed.
    expect((await closeCase(merchant, opened.body.infractionId, { outcome: 'accepted' })).status).toBe(200);
    expect(await balance(merchant)).toMatchObject({ available: -300, blocked: 0, withdrawable: -300, shortfall: 0, owed: 300 });
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'refunded', refundedCents: 1000 });

    // Collected from the next charges.
    await payCharge(merchant, 200);
    expect(await balance(merchant)).toMatchObject({ available: -100, owed: 100, withdrawable: -100 });
    await payCharge(merchant, 250);
    expect(await balance(merchant)).toMatchObject({ available: 150, owed: 0, withdrawable: 150 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('a short case closed for the merchant releases what it held and owes nothing', async () => {
    const merchant = await gateway.createMerchant(MERCHANT);
    const id = await paidCharge(gateway, merchant);
    expect((await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 1000 }) })).status).toBe(201);
    const opened = await openCase(merchant, id, { amountCents: 800 });
    expect(await balance(merchant)).toMatchObject({ available: 0, blocked: 0, shortfall: 800 });
    await fund(gateway, merchant, 500);
    expect(await balance(merchant)).toMatchObject({ available: 500, blocked: 500, withdrawable: 0, shortfall: 300 });
    expect((await closeCase(merchant, opened.body.infractionId, { outcome: 'rejected' })).status).toBe(200);
    expect(await balance(merchant)).toMatchObject({ available: 500, blocked: 0, withdrawable: 500, shortfall: 0, owed: 0 });
    await fund(gateway, merchant, 100);
    expect(await balance(merchant)).toMatchObject({ available: 600, blocked: 0, withdrawable: 600 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('two short cases are topped up the oldest first', async () => {
    const merchant = await gateway.createMerchant(MERCHANT);
    const first = await paidCharge(gateway, merchant);
    const second = await paidCharge(gateway, merchant);
    expect((await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 2000 }) })).status).toBe(201);
    const older = await openCase(merchant, first, { amountCents: 400 });
    gateway.clock.advance(1000);
    const newer = await openCase(merchant, second, { amountCents: 400 });
    await fund(gateway, merchant, 500);
    const blocks = await gateway.database.db
      .selectFrom('blocks')
      .select(['infractionId', 'amountCents'])
      .where('accountId', '=', merchant.accountId)
      .where('status', '=', 'active')
      .execute();
    expect(new Map(blocks.map((block) => [block.infractionId, block.amountCents]))).toEqual(
      new Map([
        [older.body.infractionId, 400],
        [newer.body.infractionId, 100],
      ]),
    );
    expect(await balance(merchant)).toMatchObject({ available: 500, blocked: 500, shortfall: 300 });
    expect(await eventNames(gateway, second)).toEqual(['transaction.paid', 'transaction.infraction', 'transaction.blocked']);

    // The older case closes for the merchant: what its block frees tops up the newer one first.
    expect((await closeCase(merchant, older.body.infractionId, { outcome: 'rejected' })).status).toBe(200);
    expect(await balance(merchant)).toMatchObject({ available: 500, blocked: 400, withdrawable: 100, shortfall: 0 });
    // Closed against the merchant, the freed part of a partial recovery stays withdrawable.
    expect(await closeCase(merchant, newer.body.infractionId, { outcome: 'accepted', recoveredCents: 150 })).toMatchObject({ status: 200 });
    expect(await balance(merchant)).toMatchObject({ available: 350, blocked: 0, withdrawable: 350, shortfall: 0, owed: 0 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
