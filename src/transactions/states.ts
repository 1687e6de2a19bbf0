import type { ChargeStatus, TransactionStatus, TransactionType, WithdrawalStatus } from '../platform/schema.js';
import type { EventName } from '../webhooks/events.js';

/**
 * The statuses of each transaction type and the only moves between them (DESIGN.md §5, §9).
 * A transaction takes a status only as the `to` of one of these transitions: the repository
 * writes a status only from a transition, checked against its `from`, with the transition's
 * events in the same database transaction. The status lists are the schema's
 * (src/platform/schema.ts), as is the CHECK of migration 005.
 */
export type Transition<S extends TransactionStatus = TransactionStatus> = {
  readonly type: TransactionType;
  /** Statuses it may start from; empty for the transitions that create the transaction. */
  readonly from: readonly S[];
  readonly to: S;
  /** Events recorded with the change, in this order. */
  readonly events: readonly EventName[];
};

/** Freezes a table, its transitions and their lists: nothing can add or change a move at run time. */
function frozen<T extends Record<string, Transition>>(table: T): T {
  for (const transition of Object.values(table)) {
    Object.freeze(transition.from);
    Object.freeze(transition.events);
    Object.freeze(transition);
  }
  return Object.freeze(table);
}

export const CHARGE = frozen({
  create: { type: 'pix_in', from: [], to: 'pending', events: [] },
  pay: { type: 'pix_in', from: ['pending'], to: 'paid', events: ['transaction.paid'] },
  /** A PIX paid to a static QR code: the transaction is created paid. */
  receive: { type: 'pix_in', from: [], to: 'paid', events: ['transaction.paid'] },
  expire: { type: 'pix_in', from: ['pending'], to: 'expired', events: ['transaction.expired'] },
  /** The merchant or the operator withdraws the charge before it is paid. */
  cancel: { type: 'pix_in', from: ['pending'], to: 'cancelled', events: ['transaction.cancelled'] },
  /** The provider removed the charge (a PSP withdrew it). */
  fail: { type: 'pix_in', from: ['pending'], to: 'failed', events: ['transaction.failed'] },
  /** A refund (merchant's or MED chargeback) settled and the settled refunds are below the amount... */
  refundInPart: { type: 'pix_in', from: ['paid', 'partially_refunded'], to: 'partially_refunded', events: ['transaction.partially_refunded'] },
  /** ...or reach it. */
  refundInFull: { type: 'pix_in', from: ['paid', 'partially_refunded'], to: 'refunded', events: ['transaction.refunded'] },
} as const satisfies Record<string, Transition<ChargeStatus>>);

export const WITHDRAWAL = frozen({
  /** Automatic mode: debited and sent at once. */
  submit: { type: 'withdrawal', from: [], to: 'processing', events: ['transfer.created', 'transfer.processing'] },
  /** Manual mode: waits for the operator, nothing debited yet. */
  hold: { type: 'withdrawal', from: [], to: 'pending_approval', events: ['transfer.created', 'transfer.pending_approval'] },
  approve: { type: 'withdrawal', from: ['pending_approval'], to: 'processing', events: ['transfer.approved', 'transfer.processing'] },
  reject: { type: 'withdrawal', from: ['pending_approval'], to: 'cancelled', events: ['transfer.rejected', 'transfer.cancelled'] },
  /** The provider's answer was lost: reconciliation will tell. */
  loseTrack: { type: 'withdrawal', from: ['processing'], to: 'failed_unknown', events: [] },
  fail: { type: 'withdrawal', from: ['processing', 'failed_unknown'], to: 'failed', events: ['transfer.failed'] },
  settle: { type: 'withdrawal', from: ['processing', 'failed_unknown'], to: 'paid', events: ['transfer.paid'] },
  /**
   * The PSP completed a withdrawal after it was failed and its debit returned (docs/providers.md
   * "Unknown outcomes"): it is paid after all, and debited again.
   */
  settleAfterReversal: { type: 'withdrawal', from: ['failed'], to: 'paid', events: ['transfer.paid'] },
  returnInFull: { type: 'withdrawal', from: ['paid'], to: 'refunded', events: ['transfer.refunded'] },
  returnInPart: { type: 'withdrawal', from: ['paid'], to: 'partially_refunded', events: ['transfer.partially_refunded'] },
} as const satisfies Record<string, Transition<WithdrawalStatus>>);

/** True when a transaction in `status` may take this transition. */
export const allows = (transition: Transition, status: TransactionStatus): boolean => transition.from.includes(status);

/** Statuses in which a transaction has settled on the PIX network (spec: Transaction rule 1). */
export const SETTLED_STATUSES: ReadonlySet<TransactionStatus> = new Set(['paid', 'refunded', 'partially_refunded']);

/**
 * A charge's status as every operation sees it at `now`: a pending charge whose validity elapsed is
 * `expired`, whether or not the expiry worker has written it yet.
 */
export function chargeStatusAt(charge: { status: TransactionStatus; expiresAt: Date | null }, now: Date): TransactionStatus {
  return charge.status === 'pending' && charge.expiresAt !== null && charge.expiresAt <= now ? 'expired' : charge.status;
}

/** A Pix Automático cycle's charge: its recurrence and cycle number (written together when the cycle is charged); undefined for any other charge. */
export function recurrenceCycleOf(charge: {
  recurrenceId: string | null;
  recurrenceCycle: number | null;
}): { recurrenceId: string; cycle: number } | undefined {
  if (charge.recurrenceId === null) return undefined;
  if (charge.recurrenceCycle === null) throw new Error(`cycle charge of recurrence ${charge.recurrenceId} without its cycle number`);
  return { recurrenceId: charge.recurrenceId, cycle: charge.recurrenceCycle };
}
