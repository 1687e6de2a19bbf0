import { sql, type RawBuilder } from 'kysely';
import type { Db, Executor, Tx } from '../platform/database.js';
import { isDatabaseUnavailable } from '../platform/errors.js';
import { grouped } from '../platform/grouped.js';
import type { TransactionRow } from '../platform/schema.js';
import {
  findBalance,
  reservationRefusalOf,
  withdrawalReservation,
  withdrawnPeriods,
  type PeriodSums,
  type ReservationRefusal,
  type WithdrawalReservation,
  type WithdrawnPeriod,
} from '../ledger/repository.js';

/** A new withdrawal's writes, each a statement for one CTE of its single statement (built by their own repositories). */
export type WithdrawalWrite = {
  transactionId: string;
  reservation: WithdrawalReservation;
  /** The transaction and its events (transactions/transition.ts, transactionCreation): CTEs, `created` first. */
  creation: RawBuilder<unknown>;
  /** The externalRef's claim, run after the balance row's lock (CTE `locked`). */
  claim: RawBuilder<unknown> | undefined;
  /** The durable intent to send (automatic mode). */
  send: RawBuilder<unknown> | undefined;
  alert: RawBuilder<unknown> | undefined;
};

/**
 * Writes a new withdrawal in one statement, without BEGIN or COMMIT (three round trips fewer):
 * its reservation (limits, caps, debit), its transaction with its events, its externalRef's claim,
 * its send and its alert. A refusal undoes them all: 'replay' when a still-valid key holds the
 * externalRef. When the balance row's sums are of a later period (ledger's 'late'), it is written
 * again in a transaction that locks the row and sums the withdrawal's period first.
 */
async function insertWithdrawal(db: Db, write: WithdrawalWrite): Promise<TransactionRow | ReservationRefusal | 'replay'> {
  const refused = (error: unknown) => {
    const refusal = reservationRefusalOf(error);
    if (refusal === undefined || refusal === 'late') throw error;
    return refusal;
  };
  try {
    return await writeOnce(db, write, null);
  } catch (error) {
    if (reservationRefusalOf(error) !== 'late') return refused(error);
  }
  const { accountId, at } = write.reservation;
  return db
    .transaction()
    .execute(async (tx) => {
      await findBalance(tx, accountId, { lock: true });
      return writeOnce(tx, write, await sumWithdrawalsOfPeriod(tx, accountId, withdrawnPeriods(at), write.transactionId));
    })
    .catch(refused);
}

/** What a batch did with a withdrawal: wrote it (its row), failed with an error, or left it to be written alone (`alone`). */
type Written = { value: TransactionRow } | { error: unknown } | 'alone';

/**
 * How long a statement of a batch waits for a lock (an account's balance row held by another
 * transaction) before the batch gives up and each of its withdrawals is written alone: a held
 * account delays the others of its batch by this much at most.
 */
const BATCH_LOCK_TIMEOUT = '100ms';

/**
 * insertWithdrawal, with the withdrawals of concurrent requests written in one database
 * transaction (platform/grouped.ts): one commit for many, as charges share one statement. One
 * batch at a time per process (measured: more at once made smaller batches and more commits,
 * 0.75–0.86 ms of PostgreSQL CPU per withdrawal with one, 0.99–1.05 with four).
 *
 * A batch takes its balance rows in account order, so batches of two processes never wait on each
 * other in a cycle, and waits at most BATCH_LOCK_TIMEOUT for each. A refusal raises an error that
 * undoes the whole batch (the statement's design): then, as after a lock awaited too long or any
 * statement's failure, each of its withdrawals is written alone by its own request, outside the
 * batches, so that an account held elsewhere holds up nobody else. A lost database (or commit)
 * answers every one of them with its error, as one statement's would: the request names its
 * withdrawal either way.
 */
export function withdrawalWriter(db: Db): (write: WithdrawalWrite) => Promise<TransactionRow | ReservationRefusal | 'replay'> {
  const batched = grouped((writes: WithdrawalWrite[]) => writeBatch(db, writes), 50);
  return async (write) => {
    const written = await batched(write);
    if (written === 'alone') return insertWithdrawal(db, write);
    if ('error' in written) throw written.error;
    return written.value;
  };
}

async function writeBatch(db: Db, writes: WithdrawalWrite[]): Promise<Written[]> {
  const inLockOrder = writes.toSorted((a, b) =>
    a.reservation.accountId < b.reservation.accountId ? -1 : a.reservation.accountId > b.reservation.accountId ? 1 : 0,
  );
  let statementsRan = false;
  try {
    const rows = new Map<WithdrawalWrite, TransactionRow>();
    await db.transaction().execute(async (tx) => {
      await sql`SET LOCAL lock_timeout = ${sql.lit(BATCH_LOCK_TIMEOUT)}`.execute(tx);
      for (const write of inLockOrder) rows.set(write, await writeOnce(tx, write, null));
      statementsRan = true;
    });
    return writes.map((write) => {
      const row = rows.get(write);
      return row ? { value: row } : { error: new Error(`withdrawal ${write.transactionId} written without its row`) };
    });
  } catch (error) {
    // Nothing of the batch was committed: a refusal, a late period, a lock awaited too long, a deadlock…: each decided alone.
    if (!statementsRan && !isDatabaseUnavailable(error)) return writes.map(() => 'alone' as const);
    return writes.map(() => ({ error }));
  }
}

/**
 * Runs without the camelCase plugin: the statement is raw SQL that names its columns in
 * snake_case already, and the plugin's pass rebuilt each of its ~300 nodes on every call.
 */
async function writeOnce(db: Executor, write: WithdrawalWrite, given: PeriodSums | null): Promise<TransactionRow> {
  const extra = [write.send && sql`send AS (${write.send})`, write.alert && sql`alert AS (${write.alert})`].filter((part) => part !== undefined);
  const { rows } = await sql<TransactionRow>`
    WITH ${withdrawalReservation(write.reservation, given, write.claim)}, ${write.creation}${extra.length > 0 ? sql`, ${sql.join(extra)}` : sql``}
    SELECT created.* FROM created, verdict`.execute(db.withoutPlugins());
  const [row] = rows;
  if (!row) throw new Error(`withdrawal ${write.transactionId} written without its row`);
  return row;
}

/**
 * The account's withdrawals that count towards the caps (not failed or cancelled), summed for one
 * UTC day and its month, `excluding` one (the withdrawal being decided): what the balance row's
 * sums hold, for a period they no longer hold (ledger/repository.ts, withdrawalReservation).
 */
async function sumWithdrawalsOfPeriod(tx: Tx, accountId: string, period: WithdrawnPeriod, excluding: string): Promise<PeriodSums> {
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
