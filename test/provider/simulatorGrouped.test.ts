import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, countBy, fund } from '../helpers/api.js';
import { backend, callAt, chargeBody, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { errorOf } from '../helpers/contract.js';

/**
 * The simulator answers the usual charge and withdrawal of many concurrent requests in one
 * statement (platform/grouped.ts); an armed outcome must still reach exactly one call each, and a
 * send must still be recorded once. Real concurrent requests on two servers; the grouping happens
 * on both databases, the races between processes on the PostgreSQL server.
 */
let gateway: Gateway;
let peerUrl: string;
beforeAll(async () => {
  gateway = await startGateway();
  peerUrl = (await gateway.startPeer()).url;
});
afterAll(() => gateway.close());

const RELAXED = {
  withdrawPerSecond: 10_000,
  withdrawPerMinute: 10_000,
  withdrawPerHour: 10_000,
  withdrawDailyCents: 100_000_000,
  withdrawMonthlyCents: 100_000_000,
};

const arm = (merchant: Merchant, operation: 'charge' | 'withdrawal', outcome: string) =>
  gateway.call('POST', `/sandbox/v1/provider/next-${operation}`, { key: merchant.apiKey, body: { outcome } });

describe(`the simulator's grouped answers (${backend})`, () => {
  it('40 concurrent charges of two accounts, one with 3 armed failures: exactly those 3 fail, the rest are created', async () => {
    const [armed, quiet] = [await gateway.createMerchant(), await gateway.createMerchant()];
    for (let index = 0; index < 3; index++) expect((await arm(armed, 'charge', 'provider_error')).status).toBe(201);
    const calls = Array.from({ length: 40 }, (_, index) => (index % 2 ? armed : quiet));
    const replies = await Promise.all(
      calls.map((merchant, index) => callAt(index % 4 < 2 ? gateway.url : peerUrl, 'POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })),
    );
    const statusesOf = (merchant: Merchant) => countBy(replies.filter((_, index) => calls[index] === merchant).map((reply) => reply.status));
    expect(statusesOf(armed)).toEqual({ 201: 17, 502: 3 });
    expect(statusesOf(quiet)).toEqual({ 201: 20 });
    expect(replies.filter((reply) => reply.status === 502).every((reply) => errorOf(reply.body) === 'Erro ao comunicar com gateway. Tente novamente.')).toBe(
      true,
    );
    // Every armed outcome was used, and nothing else is left armed.
    const left = await gateway.database.db.selectFrom('sandboxDirectives').select('id').where('accountId', 'in', [armed.accountId, quiet.accountId]).execute();
    expect(left).toEqual([]);
  });

  it('40 concurrent withdrawals of two accounts, one with 2 armed failures: exactly those 2 fail undebited, each other one is received once', async () => {
    const armed = await gateway.createMerchant({ limits: RELAXED });
    const quiet = await gateway.createMerchant({ limits: RELAXED });
    await fund(gateway, armed, 20 * 1_100);
    await fund(gateway, quiet, 20 * 1_100);
    for (let index = 0; index < 2; index++) expect((await arm(armed, 'withdrawal', 'provider_error')).status).toBe(201);
    const calls = Array.from({ length: 40 }, (_, index) => (index % 2 ? armed : quiet));
    const replies = await Promise.all(
      calls.map((merchant, index) =>
        callAt(index % 4 < 2 ? gateway.url : peerUrl, 'POST', '/v1/withdraw', {
          key: merchant.apiKey,
          body: withdrawalToHolder({ externalRef: `grouped-${index}` }),
        }),
      ),
    );
    const statusesOf = (merchant: Merchant) => countBy(replies.filter((_, index) => calls[index] === merchant).map((reply) => reply.status));
    expect(statusesOf(armed)).toEqual({ 201: 18, 502: 2 });
    expect(statusesOf(quiet)).toEqual({ 201: 20 });
    expect(replies.filter((reply) => reply.status === 502).every((reply) => errorOf(reply.body) === 'Erro ao processar saque. O valor não foi debitado.')).toBe(
      true,
    );
    expect(await balanceOf(gateway, armed)).toBe(2 * 1_100);
    expect(await balanceOf(gateway, quiet)).toBe(0);
    // The network received each accepted withdrawal exactly once, and none of the two it refused.
    const accepted = replies.filter((reply) => reply.status === 201).map((reply) => String(reply.body.transactionId));
    const received = await gateway.database.db
      .selectFrom('sandboxWithdrawals')
      .select('transactionId')
      .where('accountId', 'in', [armed.accountId, quiet.accountId])
      .execute();
    expect(received.map((row) => row.transactionId).sort()).toEqual(accepted.sort());
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
