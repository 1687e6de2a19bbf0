import type { Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { TransactionRow } from '../platform/schema.js';
import {
  CARRIES_DEADLINE_IN,
  CARRIES_INFRACTION,
  CARRIES_REFUND,
  SETTLEMENT_FIELDS,
  type SettlementField,
  type TransactionEventName,
} from '../webhooks/events.js';
import { insertEventsWithDeliveries, type NewEvent } from '../webhooks/repository.js';
import { presentTransaction } from './presenter.js';

/**
 * An object as a domain presents it in an event body: flat JSON values (times already Unix
 * milliseconds), so a database row (with its Dates) cannot slip into a webhook.
 */
type Presented = Readonly<Record<string, string | number | boolean | null | undefined>>;

/**
 * What an event's body carries besides the transaction, as its own domain presents it: the MED
 * case (dispute and chargeback events; infractions/presenter.ts), the refund (charge refund
 * events; refunds/presenter.ts) and the time left to the case's defense deadline (its reminders,
 * infractions/reminders.ts).
 */
export type EventContext = { infraction?: Presented | undefined; refund?: Presented | undefined; deadlineIn?: number | undefined };

/** The events of status changes, as written (newTransactionEvents) in the transaction that made them. */
type TransactionEvent = { name: TransactionEventName; transaction: TransactionRow } & EventContext;

/**
 * The events of status changes, built to be written in the transaction that made the changes
 * (outbox): no change without its event, no event without its change. The body is the
 * transaction as the API shows it, without the charge payload, with only the PIX fields the event
 * carries; it is stored as the exact text every delivery sends.
 */
export function newTransactionEvents(events: readonly TransactionEvent[], at: Date): NewEvent[] {
  return events.map(({ name, transaction, infraction, refund, deadlineIn }) => {
    const id = newId();
    const { pixPayload: _payload, endToEndId, payer, beneficiary, refundEndToEndId, ...view } = presentTransaction(transaction);
    const settlement: Partial<Record<SettlementField, unknown>> = { endToEndId, payer, beneficiary, refundEndToEndId };
    const fields = Object.fromEntries(SETTLEMENT_FIELDS[name].filter((field) => settlement[field] !== undefined).map((field) => [field, settlement[field]]));
    const extra = {
      ...(infraction && CARRIES_INFRACTION.has(name) ? { infraction } : {}),
      ...(refund && CARRIES_REFUND.has(name) ? { refund } : {}),
      ...(deadlineIn !== undefined && CARRIES_DEADLINE_IN.has(name) ? { deadlineIn } : {}),
    };
    const payload = JSON.stringify({ eventId: id, event: name, ...view, ...fields, ...extra, occurredAt: at.getTime() });
    return { id, accountId: transaction.accountId, transactionId: transaction.id, name, payload };
  });
}

/** Writes the events of status changes (newTransactionEvents) and, in the same statement, one delivery per endpoint of the account whose filter selects the event. */
export async function recordTransactionEvents(tx: Tx, events: readonly TransactionEvent[], at: Date): Promise<void> {
  await insertEventsWithDeliveries(tx, newTransactionEvents(events, at), at);
}
