import { sql } from 'kysely';
import type { Executor } from '../platform/database.js';
import type { TransactionRow } from '../platform/schema.js';
import { WITHDRAWAL } from '../transactions/states.js';

const awaitingApproval = (db: Executor) => db.selectFrom('transactions').where('type', '=', 'withdrawal').where('status', '=', WITHDRAWAL.hold.to);

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
