import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { TransactionRow } from '../platform/schema.js';
import { precompiled } from '../platform/precompiled.js';

const capSums = precompiled((db, accountId: string, dayStart: Date, monthStart: Date) =>
  db
    .selectFrom('transactions')
    .select([
      sql<number>`coalesce(sum(amount_cents) FILTER (WHERE created_at >= ${dayStart}), 0)`.as('today'),
      sql<number>`coalesce(sum(amount_cents), 0)`.as('thisMonth'),
    ])
    .where('accountId', '=', accountId)
    .where('type', '=', 'withdrawal')
    .where('createdAt', '>=', monthStart)
    .where('status', 'not in', ['failed', 'cancelled']),
);

/** The account's withdrawals of the UTC day and month that hold or moved money (not failed/cancelled), in one scan. */
export async function sumWithdrawalsForCaps(
  tx: Tx,
  accountId: string,
  since: { dayStart: Date; monthStart: Date },
): Promise<{ today: number; thisMonth: number }> {
  const [sums] = await capSums(tx, accountId, since.dayStart, since.monthStart);
  return sums ?? { today: 0, thisMonth: 0 };
}

const awaitingApproval = (db: Executor) => db.selectFrom('transactions').where('type', '=', 'withdrawal').where('status', '=', 'pending_approval');

/** Withdrawals awaiting an operator's approval (manual mode), oldest first. */
export function listAwaitingApproval(db: Executor, limit: number): Promise<TransactionRow[]> {
  return awaitingApproval(db).selectAll().orderBy('createdAt', 'asc').orderBy('id', 'asc').limit(limit).execute();
}

export async function countAwaitingApproval(db: Executor): Promise<number> {
  return (
    await awaitingApproval(db)
      .select(sql<number>`count(*)::int8`.as('count'))
      .executeTakeFirstOrThrow()
  ).count;
}
