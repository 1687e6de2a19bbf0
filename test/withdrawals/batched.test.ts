import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf, countBy, fund } from '../helpers/api.js';
import { backend, callAt, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Withdrawals of concurrent requests are committed together (withdrawals/repository.ts,
 * withdrawalWriter): each still answers for itself, a refusal in a batch undoes nobody else's
 * withdrawal, and an account held by another transaction does not hold up the others. Requests
 * are split across two servers with their own pools; the waits are proved on the PostgreSQL server.
 */
let gateway: Gateway;
let peerUrl: string;
beforeAll(async () => {
  gateway = await startGateway();
  peerUrl = (await gateway.startPeer()).url;
});
afterAll(() => gateway.close());

const UNLIMITED = {
  limits: { withdrawPerSecond: 10_000, withdrawPerMinute: 10_000, withdrawPerHour: 10_000, withdrawDailyCents: 100_000_000, withdrawMonthlyCents: 100_000_000 },
};
/** R$ 10,00 with its R$ 1,00 fee. */
const WITHDRAWAL_CENTS = 1_100;

async function fundedMerchants(count: number, withdrawals: number): Promise<Merchant[]> {
  const merchants: Merchant[] = [];
  for (let index = 0; index < count; index++) {
    const merchant = await gateway.createMerchant(UNLIMITED);
    await fund(gateway, merchant, withdrawals * WITHDRAWAL_CENTS);
    merchants.push(merchant);
  }
  return merchants;
}
const withdraw = (merchant: Merchant, index: number) =>
  callAt(index % 2 ? peerUrl : gateway.url, 'POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 1_000 }) });

describe(`withdrawals committed together (${backend})`, () => {
  it('10 accounts × 4 concurrent withdrawals, each funded for 2: exactly 2 each, the others refused for their own balance; events and ledger exact', async () => {
    const merchants = await fundedMerchants(10, 2);
    const requests = merchants.flatMap((merchant) => [0, 1, 2, 3].map(() => merchant));
    const replies = await Promise.all(requests.map((merchant, index) => withdraw(merchant, index)));
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 20, 422: 20 });
    for (const reply of replies.filter((answer) => answer.status === 422)) expect(reply.body).toEqual({ error: messages.insufficientBalance });
    for (const merchant of merchants) {
      const mine = replies.filter((_, index) => requests[index] === merchant);
      expect(mine.filter((reply) => reply.status === 201)).toHaveLength(2);
      expect(await balanceOf(gateway, merchant)).toBe(0);
      const events = await gateway.database.db.selectFrom('events').select('name').where('accountId', '=', merchant.accountId).execute();
      expect(countBy(events.map((event) => event.name))).toMatchObject({ 'transfer.created': 2, 'transfer.processing': 2 });
    }
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it.runIf(backend === 'postgres')(
    "an account whose balance row another transaction holds waits alone: the others' withdrawals are answered meanwhile",
    async () => {
      const [held, ...others] = await fundedMerchants(9, 1);
      if (!held) throw new Error('no merchant');
      await gateway.database.db.connection().execute(async (connection) => {
        await sql`BEGIN`.execute(connection);
        await sql`SELECT 1 FROM balances WHERE account_id = ${held.accountId} FOR UPDATE`.execute(connection);
        const waiting = withdraw(held, 0);
        // Sent with the held one, so that some share its batch.
        const answered = await Promise.race([
          Promise.all(others.map((merchant, index) => withdraw(merchant, index))),
          new Promise<'held up'>((resolve) => setTimeout(() => resolve('held up'), 10_000)),
        ]);
        expect(answered).not.toBe('held up');
        if (answered === 'held up') return;
        expect(answered.map((reply) => reply.status)).toEqual(others.map(() => 201));
        for (const merchant of others) expect(await balanceOf(gateway, merchant)).toBe(0);
        // Still waiting for the row; released, it is written.
        expect(await balanceOf(gateway, held)).toBe(WITHDRAWAL_CENTS);
        await sql`COMMIT`.execute(connection);
        expect((await waiting).status).toBe(201);
      });
      expect(await balanceOf(gateway, held)).toBe(0);
      expect(await gateway.ledgerProblems()).toEqual([]);
    },
  );
});
