import type { EventName } from '../webhooks/events.js';

/**
 * The statuses of each transaction type and the only moves between them (DESIGN.md §5, §9).
 * Every status a transaction takes is the `to` of one of these transitions: the repository writes
 * a status only from a transition, checked against its `from`, with the transition's events in
 * the same database transaction. The CHECK of migration 005 holds the same lists.
 */
export const CHARGE_STATUSES = ['pending', 'paid', 'expired', 'cancelled', 'failed', 'refunded', 'partially_refunded'] as const;
export const WITHDRAWAL_STATUSES = ['pending_approval', 'processing', 'failed_unknown', 'paid', 'failed', 'cancelled', 'refunded', 'partially_refunded'] as const;

export type ChargeStatus = (typeof CHARGE_STATUSES)[number];
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];
export type TransactionStatus = ChargeStatus | WithdrawalStatus;
export type TransactionType = 'pix_in' | 'withdrawal';

export type Transition<S extends TransactionStatus = TransactionStatus> = {
  readonly type: TransactionType;
  /** Statuses it may start from; empty for the transitions that create the transaction. */
  readonly from: readonly S[];
  readonly to: S;
  /** Events recorded with the change, in this order. */
  readonly events: readonly EventName[];
};

const transitions =
  <S extends TransactionStatus>(type: TransactionType) =>
  <T extends Record<string, { from: readonly S[]; to: S; events: readonly EventName[] }>>(table: T): { readonly [K in keyof T]: Transition<S> } =>
    Object.freeze(Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, Object.freeze({ type, ...spec })]))) as { [K in keyof T]: Transition<S> }; // fromEntries loses the keys' types

export const CHARGE = transitions<ChargeStatus>('pix_in')({
  create: { from: [], to: 'pending', events: [] },
  pay: { from: ['pending'], to: 'paid', events: ['transaction.paid'] },
  expire: { from: ['pending'], to: 'expired', events: ['transaction.expired'] },
});

export const WITHDRAWAL = transitions<WithdrawalStatus>('withdrawal')({
  /** Automatic mode: debited and sent at once. */
  submit: { from: [], to: 'processing', events: ['transfer.created', 'transfer.processing'] },
  /** Manual mode: waits for the operator, nothing debited yet. */
  hold: { from: [], to: 'pending_approval', events: ['transfer.created', 'transfer.pending_approval'] },
  approve: { from: ['pending_approval'], to: 'processing', events: ['transfer.approved', 'transfer.processing'] },
  reject: { from: ['pending_approval'], to: 'cancelled', events: ['transfer.rejected', 'transfer.cancelled'] },
  /** The provider's answer was lost: reconciliation will tell. */
  loseTrack: { from: ['processing'], to: 'failed_unknown', events: [] },
  fail: { from: ['processing', 'failed_unknown'], to: 'failed', events: ['transfer.failed'] },
  settle: { from: ['processing', 'failed_unknown'], to: 'paid', events: ['transfer.paid'] },
  returnInFull: { from: ['paid'], to: 'refunded', events: ['transfer.refunded'] },
  returnInPart: { from: ['paid'], to: 'partially_refunded', events: ['transfer.partially_refunded'] },
});

/** True when a transaction in `status` may take this transition. */
export const allows = (transition: Transition, status: TransactionStatus): boolean => transition.from.includes(status);

/** Statuses in which a transaction has settled on the PIX network (spec: Transaction rule 1). */
export const SETTLED_STATUSES: ReadonlySet<TransactionStatus> = new Set(['paid', 'refunded', 'partially_refunded']);
