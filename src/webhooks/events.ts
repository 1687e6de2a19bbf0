import type { Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { TransactionRow } from '../platform/schema.js';
import { presentTransaction } from '../transactions/presenter.js';

/** The 21 canonical event names of the spec. */
export const CANONICAL_EVENTS = [
  'transaction.paid',
  'transaction.refunded',
  'transaction.partially_refunded',
  'transaction.failed',
  'transaction.cancelled',
  'transaction.expired',
  'transaction.infraction',
  'transaction.dispute',
  'transaction.protest',
  'transaction.blocked',
  'transaction.chargeback',
  'transfer.created',
  'transfer.processing',
  'transfer.pending_approval',
  'transfer.approved',
  'transfer.rejected',
  'transfer.failed',
  'transfer.cancelled',
  'transfer.paid',
  'transfer.refunded',
  'transfer.partially_refunded',
] as const;
export type EventName = (typeof CANONICAL_EVENTS)[number];

/**
 * Writes the event of a status change, in the transaction that made the change (outbox): no
 * change without its event, no event without its change. The body is the transaction as the
 * API shows it (settlement fields omitted until settled), without the charge payload.
 */
export async function recordTransactionEvent(tx: Tx, name: EventName, transaction: TransactionRow, at: Date): Promise<string> {
  const eventId = newId();
  const { pixPayload: _payload, ...view } = presentTransaction(transaction);
  const payload = { eventId, event: name, ...view, occurredAt: at.getTime() };
  await tx
    .insertInto('events')
    .values({ id: eventId, accountId: transaction.accountId, transactionId: transaction.id, name, payload: JSON.stringify(payload), createdAt: at })
    .execute();
  return eventId;
}
