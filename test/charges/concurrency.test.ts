import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, countBy, startNextHour } from '../helpers/api.js';
import { backend, callAt, chargeBody, startGateway, type Gateway } from '../helpers/gateway.js';

/**
 * Real concurrent HTTP requests, split across two servers with their own connection pools (two
 * processes' worth). On PGlite they serialize; the claims are proved when DATABASE_URL names the
 * PostgreSQL server, as CI runs it.
 */
let gateway: Gateway;
let peerUrl: string;
beforeAll(async () => {
  gateway = await startGateway();
  peerUrl = (await gateway.startPeer()).url;
});
afterAll(() => gateway.close());

describe(`concurrency (${backend})`, () => {
  it('concurrent duplicates of one externalRef create exactly one charge', async () => {
    const merchant = await gateway.createMerchant();
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        callAt(index % 2 ? peerUrl : gateway.url, 'POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'same-order' }) }),
      ),
    );
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 1, 200: 39 });
    const ids = new Set(replies.map((reply) => reply.body.transactionId));
    expect(ids.size).toBe(1);
    expect(replies.filter((reply) => reply.status === 200).every((reply) => 'idempotent' in reply.body && reply.body.idempotent)).toBe(true);
    const stored = await gateway.database.db.selectFrom('transactions').select('id').where('accountId', '=', merchant.accountId).execute();
    expect(stored.map((row) => row.id)).toEqual([...ids]);
  });

  it('the hourly limit is exact under concurrent requests on two servers', async () => {
    const merchant = await gateway.createMerchant({ limits: { pixPerHour: 25 } });
    startNextHour(gateway);
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, index) => callAt(index % 2 ? peerUrl : gateway.url, 'POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })),
    );
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 25, 429: 35 });
    const stored = await gateway.database.db.selectFrom('transactions').select('id').where('accountId', '=', merchant.accountId).execute();
    expect(stored).toHaveLength(25);
  });

  it('concurrent payments of one charge credit it once', async () => {
    const merchant = await gateway.createMerchant();
    const charge = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 2000 }) });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        callAt(index % 2 ? peerUrl : gateway.url, 'POST', `/sandbox/v1/pix/${charge.body.transactionId}/pay`, { key: merchant.apiKey }),
      ),
    );
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 200: 1, 422: 19 });
    expect(await balanceOf(gateway, merchant)).toBe(2000 - 50);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('two expiry workers running at once expire each charge once, with one event each', async () => {
    const merchant = await gateway.createMerchant({ limits: { pixPerHour: 1000 } });
    const ids: string[] = [];
    for (let index = 0; index < 30; index++) {
      ids.push((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ expiresInDays: 1 }) })).body.transactionId);
    }
    gateway.clock.advance(2 * 86_400_000);
    const counts = await Promise.all([
      gateway.services.charges.expireDueCharges(7),
      gateway.services.charges.expireDueCharges(7),
      gateway.services.charges.expireDueCharges(1000),
    ]);
    let total = counts.reduce((sum, count) => sum + count, 0);
    while (total < ids.length) {
      const more = await gateway.services.charges.expireDueCharges();
      if (more === 0) break;
      total += more;
    }
    const events = await gateway.database.db
      .selectFrom('events')
      .select('transactionId')
      .where('accountId', '=', merchant.accountId)
      .where('name', '=', 'transaction.expired')
      .execute();
    expect(events.map((event) => event.transactionId).sort()).toEqual([...ids].sort());
  });
});
