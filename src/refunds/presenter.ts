import type { RefundKind, RefundRow, RefundStatus } from '../platform/schema.js';

/** The Refund object (DESIGN.md §9); `kind` and `refundEndToEndId` appear as documented in docs/refunds.md. */
export type RefundView = {
  refundId: string;
  transactionId: string;
  kind: RefundKind;
  amountCents: number;
  status: RefundStatus;
  reason: string | null;
  externalRef: string | null;
  refundEndToEndId?: string;
  createdAt: number;
  settledAt: number | null;
};

export function presentRefund(row: RefundRow): RefundView {
  return {
    refundId: row.id,
    transactionId: row.transactionId,
    kind: row.kind,
    amountCents: row.amountCents,
    status: row.status,
    reason: row.reason,
    externalRef: row.externalRef,
    ...(row.refundEndToEndId ? { refundEndToEndId: row.refundEndToEndId } : {}),
    createdAt: row.createdAt.getTime(),
    settledAt: row.settledAt ? row.settledAt.getTime() : null,
  };
}

/** Kinds that give back the charge's own money (a returned late payment never was the merchant's). */
export const CHARGE_MONEY_KINDS: readonly RefundKind[] = ['merchant', 'med', 'cautionary_return'];

/** What a charge can still give back, as the refund rule counts it: its amount less the refunds of its money not failed. */
export function refundableCents(amountCents: number, refunds: readonly Pick<RefundView, 'kind' | 'status' | 'amountCents'>[]): number {
  const committed = refunds.filter((refund) => refund.status !== 'failed' && CHARGE_MONEY_KINDS.includes(refund.kind));
  return amountCents - committed.reduce((sum, refund) => sum + refund.amountCents, 0);
}
