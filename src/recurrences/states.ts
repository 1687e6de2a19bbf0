import type { RecurrenceStatus } from '../platform/schema.js';
import type { RecurrenceEventName } from '../webhooks/events.js';

/**
 * A recurrence's statuses and the only moves between them (BCB's rec CRIADA, APROVADA, REJEITADA,
 * EXPIRADA, CANCELADA, with its solicrec's ENVIADA as `awaiting_authorization`). The repository
 * writes a status only from one of these, checked against its `from`, with its events in the same
 * database transaction. The list is the schema's (RECURRENCE_STATUSES), as is migration 026's CHECK.
 */
export type RecurrenceTransition = {
  readonly from: readonly RecurrenceStatus[];
  readonly to: RecurrenceStatus;
  readonly events: readonly RecurrenceEventName[];
};

function frozen<T extends Record<string, RecurrenceTransition>>(table: T): T {
  for (const transition of Object.values(table)) {
    Object.freeze(transition.from);
    Object.freeze(transition.events);
    Object.freeze(transition);
  }
  return Object.freeze(table);
}

export const RECURRENCE = frozen({
  /** Written before the provider is asked: a retry with the same externalRef asks again. */
  create: { from: [], to: 'created', events: [] },
  /** The provider registered it and sent the payer the authorization request. */
  request: { from: ['created'], to: 'awaiting_authorization', events: [] },
  authorize: { from: ['awaiting_authorization'], to: 'authorized', events: ['recurrence.authorized'] },
  refuse: { from: ['awaiting_authorization'], to: 'refused', events: ['recurrence.refused'] },
  /** The request lapsed without an answer, or was never sent (a provider that failed, no externalRef to retry with). */
  expire: { from: ['created', 'awaiting_authorization'], to: 'expired', events: ['recurrence.expired'] },
  /** By the merchant, in any open status. */
  cancel: { from: ['created', 'awaiting_authorization', 'authorized'], to: 'cancelled', events: ['recurrence.cancelled'] },
  /** By the payer, once asked: a recurrence still `created` was never shown to them. */
  payerCancel: { from: ['awaiting_authorization', 'authorized'], to: 'cancelled', events: ['recurrence.cancelled'] },
} as const satisfies Record<string, RecurrenceTransition>);

export const allowsRecurrence = (transition: RecurrenceTransition, status: RecurrenceStatus): boolean => transition.from.includes(status);
