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
