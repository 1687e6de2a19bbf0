import { sql, type RawBuilder } from 'kysely';
import { transactionInOneTrip, type Db, type Executor, type OneTripTransaction, type Tx } from '../platform/database.js';
import { errorCode, isDatabaseUnavailable } from '../platform/errors.js';
import { grouped } from '../platform/grouped.js';
import type { PipelineOutcome } from '../platform/postgresPool.js';
import type { TransactionRow } from '../platform/schema.js';
import { alertsInsert, type NewAlert } from '../alerts/repository.js';
import { sendsInsert, type NewSend } from '../sends/repository.js';
import { creationsWithEvents, type TransactionCreation } from '../transactions/repository.js';
import { idempotencyClaim, type IdempotencyScope } from '../transactions/idempotencyRepository.js';
import { statementTemplate } from '../platform/precompiled.js';
import {
  findBalance,
  RESERVATION_VALUES,
  reservationRefusalOf,
  reservationValues,
  withdrawalDebits,
  withdrawalReservation,
  withdrawnPeriods,
  type PeriodSums,
  type ReservationValue,
  type ReservationRefusal,
  type WithdrawalReservation,
  type WithdrawnPeriod,
} from '../ledger/repository.js';

/** An externalRef claimed for a new withdrawal, in its account (idempotencyClaim, at the reservation's time). */
type ClaimedKey = { scope: IdempotencyScope; externalRef: string; transactionId: string };

/** A new withdrawal: its reservation, with its externalRef's claim, and what it writes once the reservation holds. */
export type WithdrawalWrite = {
  /** The new transaction as it will be read back (transactions/repository.ts, insertValuesOf): what a written withdrawal answers. */
  row: TransactionRow;
  reservation: WithdrawalReservation;
  /** The externalRef's claim (its key, naming the withdrawal), run after the balance row's lock (CTE `locked`). */
  claim: ClaimedKey | undefined;
  /** The transaction and its events (transactions/transition.ts, transactionCreation). */
  creation: TransactionCreation;
  /** The durable intent to send (automatic mode). */
  send: NewSend | undefined;
  alert: NewAlert | undefined;
};

/**
 * Writes a new withdrawal in one statement, without BEGIN or COMMIT (three round trips fewer):
 * its reservation (limits, caps, debit) with its externalRef's claim, then its records (its
 * transaction with its events, its ledger entries, its send and its alert). A refusal undoes them
 * all: 'replay' when a still-valid key holds the externalRef. When the balance row's sums are of a
 * later period (ledger's 'late'), it is written again in a transaction that locks the row and sums
 * the withdrawal's period first.
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
      return writeOnce(tx, write, await sumWithdrawalsOfPeriod(tx, accountId, withdrawnPeriods(at), write.row.id));
    })
    .catch(refused);
}

/**
 * What the records' statement answers of each withdrawal: its id. The rest of its row is the
 * write's own (`row`), as written: 30 columns sent back cost PostgreSQL their output and the
 * gateway their parsing, on the path every batch waits for.
 */
type WrittenId = { id: string };

/** What a batch did with a withdrawal: wrote it (its row), failed with an error, or left it to be written alone (`alone`). */
type Written = { value: TransactionRow } | { error: unknown } | 'alone';

/**
 * How long a statement of a batch waits for a lock (an account's balance row held by another
 * transaction) before that withdrawal leaves the batch to be written alone, and how long its
 * account's next withdrawals then skip the batches: a held account holds up the others once, briefly.
 */
const BATCH_LOCK_TIMEOUT = '100ms';
const HELD_ACCOUNT_MS = 1_000;
/** A batch whose statements fail (refusals, held rows) runs again without the one that failed at most this many times; then the rest are written alone. */
const BATCH_ATTEMPTS = 3;

/** PostgreSQL's lock_not_available: lock_timeout ran out. */
const LOCK_TIMEOUT = '55P03';

/**
 * insertWithdrawal, with the withdrawals of concurrent requests written in one database
 * transaction (platform/grouped.ts): one commit for many, as charges share one statement. Each
 * withdrawal's reservation is its own statement (its account's row decides it, in turn); their
 * records are one statement for the whole batch, sent after the reservations, and the whole
 * transaction (BEGIN to COMMIT) is one pipeline, one round trip (platform/database.ts,
 * transactionInOneTrip). One batch at a time per process (measured: more at once made smaller batches and more commits,
 * 0.75–0.86 ms of PostgreSQL CPU per withdrawal with one, 0.99–1.05 with four).
 *
 * A batch takes its balance rows in account order, so batches of two processes never wait on each
 * other in a cycle. A reservation that fails (a refusal raises its error, the statement's design;
 * a row awaited longer than BATCH_LOCK_TIMEOUT) undoes the batch, which runs again without it;
 * that one is written alone by its own request, outside the batches, and answers for itself (a
 * refusal costs the batch's statements once more). When the records' statement fails (none of
 * the batch's in particular: a row it checks a foreign key against held over BATCH_LOCK_TIMEOUT,
 * say), every withdrawal of the batch is written alone. Nothing is run again once the batch may
 * have committed (the connection lost after the trip was sent, or COMMIT failed): that unknown
 * outcome answers each of them with its error, as one statement's loss did.
 */
export function withdrawalWriter(db: Db): (write: WithdrawalWrite) => Promise<TransactionRow | ReservationRefusal | 'replay'> {
  const heldUntil = new Map<string, number>();
  const held = (accountId: string) => {
    const until = heldUntil.get(accountId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    heldUntil.delete(accountId);
    return false;
  };
  const hold = (accountId: string) => heldUntil.set(accountId, Date.now() + HELD_ACCOUNT_MS);
  const batched = grouped((writes: WithdrawalWrite[]) => writeBatch(db, writes, hold), { maxBatch: 50 });
  return async (write) => {
    // An account whose row was held elsewhere a moment ago waits on its own, not in a batch.
    const written = held(write.reservation.accountId) ? 'alone' : await batched(write);
    if (written === 'alone') return insertWithdrawal(db, write);
    if ('error' in written) throw written.error;
    return written.value;
  };
}

async function writeBatch(db: Db, writes: WithdrawalWrite[], hold: (accountId: string) => void): Promise<Written[]> {
  const unplugged = db.withoutPlugins();
  let remaining = writes.toSorted((a, b) =>
    a.reservation.accountId < b.reservation.accountId ? -1 : a.reservation.accountId > b.reservation.accountId ? 1 : 0,
  );
  for (let attempt = 1; remaining.length > 0 && attempt <= BATCH_ATTEMPTS; attempt++) {
    // Compiled before anything is sent, and outside the catch below: a statement that cannot be
    // built is a fault for every request of the batch to answer, never a reason to write them alone.
    // The reservations follow the lock timeout's setting: `remaining[i]`'s is statement i + 1.
    const statements = [
      sql`SET LOCAL lock_timeout = ${sql.lit(BATCH_LOCK_TIMEOUT)}`.compile(unplugged),
      ...remaining.map((write) => reservationStatement(unplugged, write)),
      sql<WrittenId>`WITH ${withdrawalRecords(remaining)} SELECT created.id FROM created`.compile(unplugged),
    ];
    let trip: OneTripTransaction<WrittenId>;
    try {
      // One round trip: awaiting BEGIN, the statements and COMMIT in turn made a batch wait for its
      // own busy process in between (a third of the batch's time; each statement alone, 70%).
      trip = await transactionInOneTrip<WrittenId>(db, statements);
    } catch {
      break; // No connection, nothing sent: each is written alone and learns its own outcome.
    }
    if (trip.state === 'unknown') return writes.map((write) => (remaining.includes(write) ? { error: trip.error } : 'alone'));
    if (trip.state === 'committed') {
      const written = writtenRows(remaining, trip.outcomes.at(-1));
      return writes.map((write) => written.get(write) ?? 'alone');
    }
    // Nothing committed. A lost database, or a failure that is no one withdrawal's (the lock
    // timeout's setting, the records' statement): each is written alone.
    const failed = trip.failedAt === undefined ? undefined : remaining[trip.failedAt - 1];
    if (failed === undefined || isDatabaseUnavailable(trip.error)) break;
    if (errorCode(trip.error) === LOCK_TIMEOUT) hold(failed.reservation.accountId);
    remaining = remaining.filter((write) => write !== failed);
  }
  return writes.map(() => 'alone');
}

/**
 * What a committed batch answers each withdrawal: its row, once the records' statement answered
 * its id. Records the gateway could not read are written all the same, so they answer an error,
 * never "write alone".
 */
function writtenRows(writes: WithdrawalWrite[], records: PipelineOutcome<WrittenId> | undefined): Map<WithdrawalWrite, Written> {
  if (!records || 'error' in records) {
    const error = records?.error ?? new Error('a batch of withdrawals answered no records');
    return new Map(writes.map((write) => [write, { error }]));
  }
  const written = new Set(records.rows.map((row) => row.id));
  return new Map(writes.map((write): [WithdrawalWrite, Written] => [write, written.has(write.row.id) ? { value: write.row } : { error: rowMissing(write) }]));
}

/**
 * Runs without the camelCase plugin: the statement is raw SQL that names its columns in
 * snake_case already, and the plugin's pass rebuilt each of its ~300 nodes on every call.
 */
async function writeOnce(db: Executor, write: WithdrawalWrite, given: PeriodSums | null): Promise<TransactionRow> {
  const { rows } = await sql<WrittenId>`
    WITH ${reservationOf(write, given)}, ${withdrawalRecords([write])}
    SELECT created.id FROM created, verdict`.execute(db.withoutPlugins());
  if (rows[0]?.id !== write.row.id) throw rowMissing(write);
  return write.row;
}

const claimOf = (value: (key: ClaimValue | 'accountId' | 'at') => unknown) =>
  idempotencyClaim(
    { accountId: value('accountId'), scope: value('scope'), externalRef: value('externalRef'), transactionId: value('transactionId') },
    value('at'),
    'locked',
  );

function reservationOf(write: WithdrawalWrite, given: PeriodSums | null): RawBuilder<unknown> {
  const values = { ...reservationValues(write.reservation, given), ...write.claim };
  const value = (key: ReservationValue | ClaimValue) => values[key];
  return withdrawalReservation(value, write.claim && claimOf(value));
}

/** The claim's own values in a reservation's statement (the account and the time are the reservation's). */
const CLAIM_VALUES = ['scope', 'externalRef', 'transactionId'] as const;
type ClaimValue = (typeof CLAIM_VALUES)[number];

/**
 * A batch's statement of one reservation, from one of two templates (with a claim or without),
 * compiled once each: building and compiling the ~300-node statement for each withdrawal was ~10%
 * of its CPU in the gateway.
 */
const reservationTemplates = {
  alone: statementTemplate(RESERVATION_VALUES, (value) => sql`WITH ${withdrawalReservation(value)} SELECT 1 FROM verdict`),
  claiming: statementTemplate(
    [...RESERVATION_VALUES, ...CLAIM_VALUES],
    (value) => sql`WITH ${withdrawalReservation(value, claimOf(value))} SELECT 1 FROM verdict`,
  ),
};

function reservationStatement(executor: Executor, write: WithdrawalWrite) {
  const values = reservationValues(write.reservation, null);
  return write.claim ? reservationTemplates.claiming(executor, { ...values, ...write.claim }) : reservationTemplates.alone(executor, values);
}

/**
 * What withdrawals whose reservations hold write, as CTEs of one statement (`created` and the
 * events' first, then `entries`, `send`, `alert`), each one insert for all of them. Every CTE is
 * there even when it writes nothing, so that every batch runs the same prepared statement.
 */
function withdrawalRecords(writes: readonly WithdrawalWrite[]): RawBuilder<unknown> {
  const present = <T>(value: T | undefined): value is T => value !== undefined;
  return sql`${creationsWithEvents(writes.map((write) => write.creation))},
    entries AS (${withdrawalDebits(writes.map((write) => write.reservation))}),
    send AS (${sendsInsert(writes.map((write) => write.send).filter(present))}),
    alert AS (${alertsInsert(writes.map((write) => write.alert).filter(present))})`;
}

const rowMissing = (write: WithdrawalWrite) => new Error(`withdrawal ${write.row.id} not answered by its records' statement`);

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
