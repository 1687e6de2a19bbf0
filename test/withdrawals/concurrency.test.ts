import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, countBy, fund } from '../helpers/api.js';
import { backend, callAt, startGateway, withdrawalToHolder, type Gateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/contract.js';

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
  it('200 concurrent withdrawals against a balance that covers 50: exactly 50 debited, never below zero, no duplicate', async () => {
    const merchant = await gateway.createMerchant({
      limits: {
        withdrawPerSecond: 10_000,
        withdrawPerMinute: 10_000,
        withdrawPerHour: 10_000,
        withdrawDailyCents: 100_000_000,
        withdrawMonthlyCents: 100_000_000,
      },
    });
    await fund(gateway, merchant, 50 * 1_100);
    // 150 with their own externalRef, 50 sharing 10 externalRefs (5 each).
    const refs = Array.from({ length: 200 }, (_, index) => (index < 150 ? `own-${index}` : `shared-${index % 10}`));
    const replies = await Promise.all(
      refs.map((externalRef, index) =>
        callAt(index % 2 ? peerUrl : gateway.url, 'POST', '/v1/withdraw', {
          key: merchant.apiKey,
          body: withdrawalToHolder({ externalRef }),
        }),
      ),
    );
    const byStatus = countBy(replies.map((reply) => reply.status));
    expect(Object.keys(byStatus).every((status) => ['200', '201', '422'].includes(status))).toBe(true);
    expect(byStatus[201]).toBe(50);
    expect(replies.filter((reply) => reply.status === 422).every((reply) => errorOf(reply.body) === 'Saldo insuficiente para realizar o saque.')).toBe(true);
    // Every request with a shared externalRef that got a withdrawal got the same one.
    const idsByRef = new Map<string, Set<string>>();
    replies.forEach((reply, index) => {
      if (reply.status !== 200 && reply.status !== 201) return;
      const ids = idsByRef.get(refs[index] as string) ?? new Set<string>();
      ids.add(reply.body.transactionId);
      idsByRef.set(refs[index] as string, ids);
    });
    expect([...idsByRef.values()].every((ids) => ids.size === 1)).toBe(true);
    const stored = await gateway.database.db
      .selectFrom('transactions')
      .select(['id', 'externalRef'])
      .where('accountId', '=', merchant.accountId)
      .where('type', '=', 'withdrawal')
      .execute();
    expect(stored).toHaveLength(50);
    expect(new Set(stored.map((row) => row.externalRef)).size).toBe(50);
    // A refused withdrawal's statement wrote nothing: no event, key or send outlives it.
    const events = await gateway.database.db.selectFrom('events').select('name').where('accountId', '=', merchant.accountId).execute();
    expect(countBy(events.map((event) => event.name))).toEqual({ 'transfer.created': 50, 'transfer.processing': 50 });
    const keys = await gateway.database.db.selectFrom('idempotencyKeys').select('transactionId').where('accountId', '=', merchant.accountId).execute();
    expect(new Set(keys.map((key) => key.transactionId))).toEqual(new Set(stored.map((row) => row.id)));
    const owed = await gateway.database.db.selectFrom('providerSends').selectAll().where('accountId', '=', merchant.accountId).execute();
    expect(new Set(owed.map((send) => send.id))).toEqual(new Set(stored.map((row) => row.id)));
    // Each PSP acceptance was recorded on its own send, however many were written in one statement.
    for (const send of owed) {
      expect(send).toMatchObject({ state: 'sent', acknowledged: true, attempts: 1, attemptStartedAt: null, leaseUntil: null });
      expect(send.reachedMaybeAt).toEqual(send.createdAt);
      expect(send.nextCheckAt?.getTime()).toBeGreaterThan(send.createdAt.getTime());
      expect(send.history.map((note) => note.answer)).toEqual(['accepted']);
    }
    expect(await balanceOf(gateway, merchant)).toBe(0);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
