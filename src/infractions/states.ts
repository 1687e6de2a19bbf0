import type { EventName } from '../webhooks/events.js';
import type { InfractionSituation, InfractionStatus } from '../platform/schema.js';

/**
 * The life of a MED case (DESIGN.md §9) and the only moves between its statuses; the CHECK of
 * migration 006 holds the same list. Each move records its events (dispute category) in the same
 * database transaction. Closing against the merchant records transaction.chargeback at once; its
 * refund records transaction.refunded / partially_refunded when it settles.
 */
export const INFRACTION_STATUSES = ['open', 'in_defense', 'under_analysis', 'accepted', 'rejected'] as const satisfies readonly InfractionStatus[];

/** How the victim was led to pay (MED 2.0); the CHECK of migration 036 holds the same list. */
export const INFRACTION_SITUATIONS = [
  'scam',
  'account_takeover',
  'coercion',
  'fraudulent_access',
  'other',
  'unknown',
] as const satisfies readonly InfractionSituation[];

/** Statuses of a case still running (several may run on one charge, their amounts within its remainder). */
export const OPEN_INFRACTION_STATUSES = ['open', 'in_defense', 'under_analysis'] as const satisfies readonly InfractionStatus[];

export type InfractionTransition = {
  readonly from: readonly InfractionStatus[];
  readonly to: InfractionStatus;
  readonly events: readonly EventName[];
};

const table = {
  /** The PSP reports the case; what the merchant has of its amount is blocked at once. */
  open: { from: [], to: 'open', events: ['transaction.infraction', 'transaction.blocked'] },
  /** The merchant contests before the deadline. */
  defend: { from: ['open'], to: 'in_defense', events: ['transaction.protest'] },
  /** The operator starts the analysis, or the defense deadline passes. */
  analyze: { from: ['open', 'in_defense'], to: 'under_analysis', events: ['transaction.dispute'] },
  /** Closed for the merchant: the block is released. */
  reject: { from: OPEN_INFRACTION_STATUSES, to: 'rejected', events: ['transaction.dispute'] },
  /** Closed against the merchant: the chargeback refund of what was recovered, the block released. */
  accept: { from: OPEN_INFRACTION_STATUSES, to: 'accepted', events: ['transaction.chargeback'] },
} as const satisfies Record<string, InfractionTransition>;

for (const transition of Object.values(table)) Object.freeze(transition);
export const INFRACTION: typeof table = Object.freeze(table);

/** True when a case in `status` may take this transition. */
export const allowsInfraction = (transition: InfractionTransition, status: InfractionStatus): boolean => transition.from.some((from) => from === status);
