import { InvalidStateError } from '../errors.js';
import { messages } from '../messages.js';
import type { Tx } from '../platform/database.js';
import type { TransactionRow, TransactionType } from '../platform/schema.js';
import { newTransactionEvents, recordTransactionEvents, type EventContext } from './events.js';
import { insertValuesOf, updateStatus, type StatusChanges, type TransactionCreation } from './repository.js';
import { allows, type Transition } from './states.js';

/** What a transaction in the wrong status answers, per type. */
const REFUSAL: Record<TransactionType, (status: string) => string> = {
  pix_in: messages.chargeNotPending,
  withdrawal: messages.withdrawalWrongStatus,
};

/** Refuses (InvalidStateError) a transition the transaction's status does not allow, with the operation's own message when it has one. */
export function assertAllowed(
  row: Pick<TransactionRow, 'type' | 'status'>,
  transition: Transition,
  refusal: (status: string) => string = REFUSAL[row.type],
): void {
  if (row.type !== transition.type || !allows(transition, row.status)) throw new InvalidStateError(refusal(row.status));
}

/**
 * A new transaction through one of its type's creating transitions, with the transition's events,
 * ready for its repository's statement (creationsWithEvents, with those of other requests). `row`
 * is the transaction as it will be read back: the events present it. Built before the database
 * transaction it is written in, so that its JSON work is done outside it.
 */
export function transactionCreation(transition: Transition, row: TransactionRow, at: Date): TransactionCreation {
  if (row.type !== transition.type || row.status !== transition.to) throw new Error(`transaction ${row.id} is not what ${transition.to} creates`);
  const events = newTransactionEvents(
    transition.events.map((name) => ({ name, transaction: row })),
    at,
  ).map((event) => ({ ...event, at }));
  return { transition, values: insertValuesOf(row), events };
}

/**
 * Moves a locked transaction along a transition of its type's table and records the
 * transition's events, in the caller's database transaction. A status the transition does not
 * start from is an InvalidStateError.
 */
export async function applyTransition(
  tx: Tx,
  row: TransactionRow,
  transition: Transition,
  at: Date,
  changes?: StatusChanges,
  context: EventContext = {},
): Promise<TransactionRow> {
  assertAllowed(row, transition);
  const updated = await updateStatus(tx, row.id, transition, at, changes);
  if (!updated) throw new Error(`transaction ${row.id} left ${row.status} while locked`);
  await recordTransactionEvents(
    tx,
    transition.events.map((name) => ({ name, transaction: updated, ...context })),
    at,
  );
  return updated;
}
