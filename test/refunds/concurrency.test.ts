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

  it('concurrent refunds and a MED acceptance on one charge never give back more than it was paid', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    await fund(gateway, merchant, 10_000);
    const id = await paidCharge(gateway, merchant);
    const opened = await gateway.call('POST', `/sandbox/v1/pix/${id}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud', amountCents: 600 } });
    expect(opened.status).toBe(201);
    const accept = callAt(peerUrl, 'POST', `/sandbox/v1/infractions/${opened.body.infractionId}/close`, {
      key: merchant.apiKey,
      body: { outcome: 'accepted' },
    });
    const refunds = Array.from({ length: 10 }, (_, index) => refundAt(index, merchant, id, { amountCents: 100 }));
    const [accepted, ...replies] = await Promise.all([accept, ...refunds]);
    expect(accepted.status).toBe(200);
    // The case holds 600 of the 1000 from the start: 4 refunds of 100 fit, whenever the chargeback lands.
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 4, 422: 6 });
    const stored = await storedRefunds(id);
    expect(stored.reduce((sum, row) => sum + row.amountCents, 0)).toBe(1000);
    for (const refund of stored.filter((row) => row.status === 'processing')) {
      const settled = await gateway.call('POST', `/sandbox/v1/refunds/${refund.id}/settle`, { key: merchant.apiKey, body: { outcome: 'refunded' } });
      expect(settled.status).toBe(200);
    }
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'refunded', refundedCents: 1000 });
    const names = await eventNames(gateway, id);
    expect(names.filter((name) => name === 'transaction.chargeback')).toHaveLength(1);
    expect(names.filter((name) => name === 'transaction.refunded')).toHaveLength(1);
    expect(names.at(-1)).toBe('transaction.refunded');
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('10 concurrent openings of a MED case on one charge: one case, one block', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const id = await paidCharge(gateway, merchant);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        callAt(urlOf(index), 'POST', `/sandbox/v1/pix/${id}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud', amountCents: 100 } }),
      ),
    );
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 1, 422: 9 });
    expect(new Set(replies.filter((reply) => reply.status === 422).map((reply) => errorOf(reply.body)))).toEqual(new Set([messages.infractionAlreadyOpen]));
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ available: 1000, blocked: 100, withdrawable: 900 });
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
