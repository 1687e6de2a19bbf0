import { transactionInOneTrip, type Db, type OneTripTransaction } from '../platform/database.js';
import { errorCode, isDatabaseUnavailable } from '../platform/errors.js';
import { grouped } from '../platform/grouped.js';
import type { TransactionRow } from '../platform/schema.js';
import {
  batchStatements,
  lockBalanceRow,
  reservationPosition,
  statementRefusalOf,
  sumWithdrawalsOfPeriod,
  writeAlone,
  type PayoutWrite,
  type WrittenId,
} from './repository.js';
import { withdrawnPeriods, type Refusal } from './rules.js';

export type { PayoutWrite } from './repository.js';

/**
 * What the engine did with a new withdrawal: wrote it (its row as written), refused it (the first
 * rule it failed, nothing written), or found its externalRef claimed by another withdrawal (nothing
 * of it written: the caller answers the one that holds it).
 */
export type PayoutOutcome = { kind: 'written'; row: TransactionRow } | { kind: 'refused'; refusal: Refusal } | { kind: 'replayed' };

/** What a batch did with a withdrawal: an outcome, an error, or `alone` (to be written on its own). */
type BatchAnswer = { outcome: PayoutOutcome } | { error: unknown } | 'alone';

/** How long an account whose balance row was held elsewhere skips the batches: a held account holds up the others once, briefly. */
const HELD_ACCOUNT_MS = 1_000;
/** A batch whose statements fail (refusals, held rows) runs again without the one that failed at most this many times; then the rest are written alone. */
const BATCH_ATTEMPTS = 3;
/** PostgreSQL's lock_not_available: the batch's lock_timeout ran out. */
const LOCK_TIMEOUT = '55P03';

const written = (row: TransactionRow): PayoutOutcome => ({ kind: 'written', row });

/**
 * The write engine of money out: a new withdrawal's reservation (its rate windows, caps and debit
 * under its balance row's lock, rules.ts) with its externalRef's claim, and its records (the
 * transaction with its events, ledger entries, send and alert), all or nothing. Callers give a
 * plan (PayoutWrite) and get a PayoutOutcome; how it is written is this module's.
 *
 * Withdrawals of concurrent requests are written in one database transaction (platform/grouped.ts:
 * one commit for many), one batch at a time per process (measured: more at once made smaller
 * batches and more commits, 0.75–0.86 ms of PostgreSQL CPU per withdrawal with one, 0.99–1.05 with
 * four). Each reservation is its own statement (its account's row decides it, in turn); the records
 * of the whole batch are one statement; the transaction, BEGIN to COMMIT, is one round trip
 * (platform/database.ts, transactionInOneTrip). A batch takes its balance rows in account order, so
 * batches of two processes never wait on each other in a cycle.
 *
 * A reservation that fails (a refusal raises its code; a row awaited longer than the batch's lock
 * timeout) undoes the batch, which runs again without it; that one is written alone, outside the
 * batches, and answers for itself. When the records' statement fails (none of the batch's in
 * particular), every withdrawal of the batch is written alone. Nothing is run again once the batch
 * may have committed (the connection lost after the trip was sent, or COMMIT failed): each of them
 * answers that unknown outcome's error.
 */
export function payoutEngine(db: Db): (write: PayoutWrite) => Promise<PayoutOutcome> {
  const heldUntil = new Map<string, number>();
  const held = (accountId: string) => {
    const until = heldUntil.get(accountId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    heldUntil.delete(accountId);
    return false;
  };
  const hold = (accountId: string) => heldUntil.set(accountId, Date.now() + HELD_ACCOUNT_MS);
  const batched = grouped((writes: PayoutWrite[]) => writeBatch(db, writes, hold), { maxBatch: 50 });
  return async (write) => {
    // An account whose row was held elsewhere a moment ago waits on its own, not in a batch.
    const answer = held(write.reservation.accountId) ? 'alone' : await batched(write);
    if (answer === 'alone') return writeOnItsOwn(db, write);
    if ('error' in answer) throw answer.error;
    return answer.outcome;
  };
}

/**
 * One withdrawal in one statement (three round trips fewer than BEGIN and COMMIT). When its
 * balance row's sums are of a later period (`late`), it is written again in a transaction that
 * locks the row and sums the withdrawal's own period first.
 */
async function writeOnItsOwn(db: Db, write: PayoutWrite): Promise<PayoutOutcome> {
  try {
    return answered(write, await writeAlone(db, write, null));
  } catch (error) {
    if (statementRefusalOf(error) !== 'late') return refused(error);
  }
  const { accountId, at } = write.reservation;
  return db
    .transaction()
    .execute(async (tx) => {
      await lockBalanceRow(tx, accountId);
      const sums = await sumWithdrawalsOfPeriod(tx, accountId, withdrawnPeriods(at), write.row.id);
      return answered(write, await writeAlone(tx, write, sums));
    })
    .catch(refused);
}

/** A refusal's outcome; any other error (a fault, a lost database) is thrown on. */
function refused(error: unknown): PayoutOutcome {
  const check = statementRefusalOf(error);
  if (check === 'replay') return { kind: 'replayed' };
  if (check === undefined || check === 'late' || check === 'no_balance_row') throw error;
  return { kind: 'refused', refusal: check };
}

function answered(write: PayoutWrite, id: WrittenId | undefined): PayoutOutcome {
  if (id?.id !== write.row.id) throw rowMissing(write);
  return written(write.row);
}

async function writeBatch(db: Db, writes: PayoutWrite[], hold: (accountId: string) => void): Promise<BatchAnswer[]> {
  const byAccount = (a: PayoutWrite, b: PayoutWrite) =>
    a.reservation.accountId < b.reservation.accountId ? -1 : a.reservation.accountId > b.reservation.accountId ? 1 : 0;
  let remaining = writes.toSorted(byAccount);
  for (let attempt = 1; remaining.length > 0 && attempt <= BATCH_ATTEMPTS; attempt++) {
    // Compiled before anything is sent, and outside the catch below: a statement that cannot be
    // built is a fault for every request of the batch to answer, never a reason to write them alone.
    const statements = batchStatements(db, remaining);
    let trip: OneTripTransaction<WrittenId>;
    try {
      // One round trip: awaiting BEGIN, the statements and COMMIT in turn made a batch wait for its
      // own busy process in between (a third of the batch's time; each statement alone, 70%).
      trip = await transactionInOneTrip<WrittenId>(db, statements);
    } catch {
      break; // No connection, nothing sent: each is written alone and learns its own outcome.
    }
    if (trip.state === 'unknown') {
      const { error } = trip;
      return writes.map((write) => (remaining.includes(write) ? { error } : 'alone'));
    }
    if (trip.state === 'committed') {
      const answers = committedAnswers(remaining, trip.outcomes.at(-1));
      return writes.map((write) => answers.get(write) ?? 'alone');
    }
    // Nothing committed. A lost database, or a failure that is no one withdrawal's (the lock
    // timeout's setting, the records' statement): each is written alone.
    const { failedAt } = trip;
    const failed = remaining.find((_, index) => reservationPosition(index) === failedAt);
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
function committedAnswers(writes: PayoutWrite[], records: { rows: WrittenId[] } | { error: Error } | undefined): Map<PayoutWrite, BatchAnswer> {
  if (!records || 'error' in records) {
    const error = records?.error ?? new Error('a batch of withdrawals answered no records');
    return new Map(writes.map((write) => [write, { error }]));
  }
  const ids = new Set(records.rows.map((row) => row.id));
  return new Map(
    writes.map((write): [PayoutWrite, BatchAnswer] => [write, ids.has(write.row.id) ? { outcome: written(write.row) } : { error: rowMissing(write) }]),
  );
}

const rowMissing = (write: PayoutWrite) => new Error(`withdrawal ${write.row.id} not answered by its records' statement`);
