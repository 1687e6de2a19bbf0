import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { TransactionRow } from '../platform/schema.js';
import type { PeriodSums, WithdrawnPeriod } from '../ledger/repository.js';

/**
 * The account's withdrawals that count towards the caps (not failed or cancelled), summed for one
 * UTC day and its month, `excluding` one (the withdrawal being decided): what the balance row's
 * sums hold, for a period they no longer hold (ledger/repository.ts, reserveWithdrawal).
 */
export async function sumWithdrawalsOfPeriod(tx: Tx, accountId: string, period: WithdrawnPeriod, excluding: string): Promise<PeriodSums> {
  const { rows } = await sql<PeriodSums>`
    SELECT coalesce(sum(amount_cents) FILTER (WHERE created_at >= ${period.day}::date::timestamp AT TIME ZONE 'UTC'
                                               AND created_at < (${period.day}::date + 1)::timestamp AT TIME ZONE 'UTC'), 0)::int8 AS day_cents,
           coalesce(sum(amount_cents), 0)::int8 AS month_cents
    FROM transactions
    WHERE account_id = ${accountId} AND type = 'withdrawal' AND status NOT IN ('failed', 'cancelled') AND id <> ${excluding}
      AND created_at >= ${period.month}::date::timestamp AT TIME ZONE 'UTC' AND created_at < (${period.month}::date + interval '1 month') AT TIME ZONE 'UTC'`.execute(
    tx,
  );
  return rows[0] ?? { dayCents: 0, monthCents: 0 };
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
