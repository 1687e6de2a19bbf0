import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { countBy, eventNames, fund, paidCharge, readTransaction } from '../helpers/api.js';
import { backend, callAt, startGateway, type Gateway, type Merchant, NO_CHARGE_FEES } from '../helpers/gateway.js';
import { errorOf } from '../helpers/contract.js';

/**
 * Refunds and MED under real concurrent HTTP requests, split across two servers with their own
 * pools (two processes' worth). On PGlite they serialize; the claims are proved when DATABASE_URL
 * names the PostgreSQL server, as CI runs it.
 */
let gateway: Gateway;
let peerUrl: string;
beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
  peerUrl = (await gateway.startPeer()).url;
});
afterAll(() => gateway.close());

const urlOf = (index: number) => (index % 2 ? peerUrl : gateway.url);
const refundAt = (index: number, merchant: Merchant, transactionId: string, body: Record<string, unknown>) =>
  callAt(urlOf(index), 'POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body });
const storedRefunds = (transactionId: string) =>
  gateway.database.db.selectFrom('refunds').select(['id', 'amountCents', 'status', 'externalRef']).where('transactionId', '=', transactionId).execute();

describe(`refund concurrency (${backend})`, () => {
  it('20 concurrent partial refunds of 70 against a charge of 1000: exactly 14 go through, never above the amount', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    await fund(gateway, merchant, 10_000);
    const id = await paidCharge(gateway, merchant);
    const replies = await Promise.all(Array.from({ length: 20 }, (_, index) => refundAt(index, merchant, id, { amountCents: 70 })));
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 14, 422: 6 });
    const refused = replies.filter((reply) => reply.status === 422).map((reply) => errorOf(reply.body));
    expect(new Set(refused)).toEqual(new Set([messages.refundAboveRemainder(20)]));
    const stored = await storedRefunds(id);
    expect(stored.reduce((sum, row) => sum + row.amountCents, 0)).toBe(980);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body.available).toBe(10_000 + 1000 - 980);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('20 concurrent refunds with one externalRef: one refund, one debit; the others replay it', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, index) => refundAt(index, merchant, id, { amountCents: 100, externalRef: 'devolucao-1' })),
    );
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 1, 200: 19 });
    expect(new Set(replies.map((reply) => reply.body.refundId)).size).toBe(1);
    expect(await storedRefunds(id)).toHaveLength(1);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body.available).toBe(900);
  });

  it('two MED cases and a refund on one charge at once (10 charges): the remainder exact whichever lands first', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    await fund(gateway, merchant, 10_000);
    const ids = await Promise.all(Array.from({ length: 10 }, () => paidCharge(gateway, merchant)));
    const outcomes = await Promise.all(
      ids.map(async (id, index) => {
        const [first, second, refund] = await Promise.all([
          callAt(urlOf(index), 'POST', `/sandbox/v1/pix/${id}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud', amountCents: 400 } }),
          callAt(urlOf(index + 1), 'POST', `/sandbox/v1/pix/${id}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud', amountCents: 400 } }),
          refundAt(index + 2, merchant, id, { amountCents: 300 }),
        ]);
        return { id, cases: [first, second], refund };
      }),
    );
    let refunded = 0;
    for (const { id, cases, refund } of outcomes) {
      const opened = cases.filter((reply) => reply.status === 201);
      if (refund.status === 201) {
        // The refund came first: one case of 400 fits in the 700 left, the other is refused naming the 300 left.
        refunded += 300;
        expect(opened).toHaveLength(1);
        expect(cases.filter((reply) => reply.status !== 201).map((reply) => ({ status: reply.status, body: reply.body }))).toEqual([
          { status: 422, body: { error: messages.infractionAboveRemainder(300) } },
        ]);
      } else {
        // A case came first: the refund waits for the cases to close; both cases fit.
        expect({ status: refund.status, body: refund.body }).toEqual({ status: 422, body: { error: messages.refundDuringDispute } });
        expect(opened).toHaveLength(2);
      }
      // What is left is exact: one more case takes it all by default.
      const left = 1000 - (refund.status === 201 ? 300 : 0) - 400 * opened.length;
      const last = await gateway.call('POST', `/sandbox/v1/pix/${id}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud' } });
      expect({ status: last.status, amountCents: last.body.amountCents }).toEqual({ status: 201, amountCents: left });
    }
    // Every charge's amount not refunded is held by its cases.
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({
      available: 10_000 + 10 * 1000 - refunded,
      blocked: 10 * 1000 - refunded,
      shortfall: 0,
    });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('10 concurrent MED cases of 300 on a charge of 1000: three open, the others refused naming the 100 left', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        callAt(urlOf(index), 'POST', `/sandbox/v1/pix/${id}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud', amountCents: 300 } }),
      ),
    );
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 3, 422: 7 });
    expect(new Set(replies.filter((reply) => reply.status === 422).map((reply) => errorOf(reply.body)))).toEqual(
      new Set([messages.infractionAboveRemainder(100)]),
    );
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ available: 1000, blocked: 900, withdrawable: 100 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('concurrent settlements of one refund: exactly one applies', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const created = await gateway.call('POST', `/v1/transactions/${id}/refunds`, { key: merchant.apiKey, body: {} });
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        callAt(urlOf(index), 'POST', `/sandbox/v1/refunds/${created.body.refundId}/settle`, {
          key: merchant.apiKey,
          body: { outcome: index % 3 ? 'refunded' : 'failed' },
        }),
      ),
    );
    const applied = replies.filter((reply) => reply.status === 200);
    // The first decision the network takes wins; later calls read it (200, same outcome) or find the refund settled (422).
    expect(new Set(applied.map((reply) => reply.body.status)).size).toBe(1);
    expect(replies.every((reply) => reply.status === 200 || errorOf(reply.body) === messages.refundNotProcessing(applied[0]!.body.status))).toBe(true);
    const charge = await readTransaction(gateway, merchant, id);
    expect(charge.status).toBe(applied[0]!.body.status === 'refunded' ? 'refunded' : 'paid');
    expect((await eventNames(gateway, id)).filter((name) => name === 'transaction.refunded').length).toBe(applied[0]!.body.status === 'refunded' ? 1 : 0);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
