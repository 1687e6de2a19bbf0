import { recordOf } from '../platform/records.js';

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
 * Events of a transaction beyond the 21 (DESIGN.md §19), named in the same style and belonging to
 * one of the design's categories (DISPUTE_ADDITIONS), for steps none of the 21 describes:
 * `transaction.dispute_deadline`, the MED defense deadline's reminders 48 h, 24 h and 6 h before it
 * (infractions/reminders.ts); `transaction.hold_released`, the PSP released a received PIX it held
 * (cautionary block), or the hold's 72 hours ran out. Their body is the transaction's, like the
 * canonical ones' (docs/webhooks.md).
 */
export const TRANSACTION_EXTENSION_EVENTS = ['transaction.dispute_deadline', 'transaction.hold_released'] as const;
/** The events whose body is a transaction: the 21 and those beyond them. */
export type TransactionEventName = EventName | (typeof TRANSACTION_EXTENSION_EVENTS)[number];

/**
 * Pix Automático (DESIGN.md §17): the steps of a recurrence that no canonical event describes. A
 * cycle's charge is a pix_in transaction and uses the canonical ones (transaction.paid,
 * .failed, .expired, .cancelled); these say what happened to the recurrence itself, that a
 * cycle's debit failed with a retry ahead, and that a cycle was skipped (no charge). Their body is
 * the recurrence (docs/webhooks.md).
 */
export const RECURRENCE_EVENTS = [
  'recurrence.authorized',
  'recurrence.refused',
  'recurrence.expired',
  'recurrence.cancelled',
  'recurrence.retry_scheduled',
  'recurrence.cycle_skipped',
] as const;
export type RecurrenceEventName = (typeof RECURRENCE_EVENTS)[number];
/** Every event the gateway sends: the 21 canonical ones, the transactions' beyond them, then the recurrences'. */
export const GATEWAY_EVENTS = [...CANONICAL_EVENTS, ...TRANSACTION_EXTENSION_EVENTS, ...RECURRENCE_EVENTS] as const;
export type GatewayEventName = TransactionEventName | RecurrenceEventName;

export type SettlementField = 'endToEndId' | 'payer' | 'beneficiary' | 'refundEndToEndId';
const NO_SETTLEMENT: readonly SettlementField[] = [];

/** The PIX fields each event carries (spec: Canonical events); every other event omits them. */
export const SETTLEMENT_FIELDS: Record<TransactionEventName, readonly SettlementField[]> = {
  ...recordOf(CANONICAL_EVENTS, () => NO_SETTLEMENT),
  ...recordOf(TRANSACTION_EXTENSION_EVENTS, () => NO_SETTLEMENT),
  'transaction.paid': ['endToEndId', 'payer'],
  'transaction.refunded': ['endToEndId', 'payer'],
  'transaction.partially_refunded': ['endToEndId', 'payer'],
  'transfer.paid': ['endToEndId', 'beneficiary'],
  'transfer.refunded': ['endToEndId', 'beneficiary', 'refundEndToEndId'],
  'transfer.partially_refunded': ['endToEndId', 'beneficiary', 'refundEndToEndId'],
};

/** Semantic categories an endpoint can filter on (DESIGN.md §5); `dispute` also selects DISPUTE_ADDITIONS (§19). */
export const EVENT_CATEGORIES = {
  cashin: ['transaction.paid', 'transaction.expired', 'transaction.failed', 'transaction.cancelled'],
  cashout: [
    'transfer.created',
    'transfer.processing',
    'transfer.pending_approval',
    'transfer.approved',
    'transfer.rejected',
    'transfer.failed',
    'transfer.cancelled',
    'transfer.paid',
  ],
  refund: ['transaction.refunded', 'transaction.partially_refunded', 'transfer.refunded', 'transfer.partially_refunded'],
  dispute: ['transaction.infraction', 'transaction.dispute', 'transaction.protest', 'transaction.blocked'],
  chargeback: ['transaction.chargeback'],
} as const satisfies Record<string, readonly EventName[]>;
/** Events beyond the 21 in the design's `dispute` category: a `dispute` filter selects them too. */
export const DISPUTE_ADDITIONS = ['transaction.dispute_deadline', 'transaction.hold_released'] as const satisfies readonly TransactionEventName[];
/** The categories of the events beyond the 21 (filterable like the design's five). */
export const EXTENSION_CATEGORIES = { recurrence: RECURRENCE_EVENTS } as const;
const ALL_CATEGORIES: Record<string, readonly GatewayEventName[]> = {
  ...EVENT_CATEGORIES,
  dispute: [...EVENT_CATEGORIES.dispute, ...DISPUTE_ADDITIONS],
  ...EXTENSION_CATEGORIES,
};

/** Names used before the canonical catalog (spec: Events), still accepted in filters. */
export const FORMER_EVENT_NAMES: Record<string, EventName> = {
  TRANSFER_PAID: 'transfer.paid',
  'transaction.refunded.partial': 'transaction.partially_refunded',
  'transfer.refunded.partial': 'transfer.partially_refunded',
  'chargeback.applied': 'transaction.chargeback',
  'med.opened': 'transaction.infraction',
  'dispute.opened': 'transaction.dispute',
  'funds.blocked': 'transaction.blocked',
  'protest.opened': 'transaction.protest',
};

const gatewayNames: ReadonlySet<string> = new Set(GATEWAY_EVENTS);
const isEventName = (name: string): name is GatewayEventName => gatewayNames.has(name);
const recurrenceNames: ReadonlySet<string> = new Set(RECURRENCE_EVENTS);
export const isRecurrenceEvent = (name: GatewayEventName): name is RecurrenceEventName => recurrenceNames.has(name);

/**
 * An endpoint filter as the service keeps it: each entry a canonical name or a category (former
 * names mapped), deduplicated, plus the canonical names it selects; or the first unknown entry.
 */
export function normalizeEventFilter(entries: readonly string[]): { filters: string[]; eventNames: GatewayEventName[] } | { unknown: string } {
  const filters = new Set<string>();
  const eventNames = new Set<GatewayEventName>();
  for (const entry of entries) {
    const name = (Object.hasOwn(FORMER_EVENT_NAMES, entry) ? FORMER_EVENT_NAMES[entry] : undefined) ?? entry;
    if (isEventName(name)) {
      filters.add(name);
      eventNames.add(name);
    } else if (Object.hasOwn(ALL_CATEGORIES, name)) {
      filters.add(name);
      for (const member of ALL_CATEGORIES[name] ?? []) eventNames.add(member);
    } else {
      return { unknown: entry };
    }
  }
  return { filters: [...filters], eventNames: GATEWAY_EVENTS.filter((name) => eventNames.has(name)) };
}

/**
 * Events whose body carries the MED case as `infraction`: the MED ones. `transaction.blocked` carries it
 * when a MED case placed the block, not when the PSP held a received PIX (then the body says `held: true`).
 */
export const CARRIES_INFRACTION: ReadonlySet<TransactionEventName> = new Set([
  'transaction.infraction',
  'transaction.dispute',
  'transaction.protest',
  'transaction.blocked',
  'transaction.dispute_deadline',
  ...EVENT_CATEGORIES.chargeback,
]);
/** Of those, the events whose `infraction` may be absent. */
export const INFRACTION_OPTIONAL: ReadonlySet<TransactionEventName> = new Set(['transaction.blocked']);
/** Events whose body carries the settled refund as `refund`. */
export const CARRIES_REFUND: ReadonlySet<TransactionEventName> = new Set(['transaction.refunded', 'transaction.partially_refunded']);
/** Events whose body carries `deadlineIn`: milliseconds from `occurredAt` to the case's `defenseDeadline`. */
export const CARRIES_DEADLINE_IN: ReadonlySet<TransactionEventName> = new Set(['transaction.dispute_deadline']);
