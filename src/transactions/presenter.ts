import type { DueRecord, Party, TransactionRow, TransactionStatus, TransactionType } from '../platform/schema.js';
import { lastPayableDate, type DueTerms } from '../pix/dueAmount.js';
import { SETTLED_STATUSES } from './states.js';

export type TransactionView = {
  transactionId: string;
  type: TransactionType;
  amountCents: number;
  feeCents: number;
  netCents: number;
  status: TransactionStatus;
  externalRef: string | null;
  pixPayload: string | null;
  expiresAt: number | null;
  paidAt: number | null;
  createdAt: number;
  updatedAt: number;
  endToEndId?: string;
  payer?: Party;
  beneficiary?: Party;
  refundEndToEndId?: string;
  /** Charges: the sum of settled refunds, once above 0. */
  refundedCents?: number;
  /** Charges with a due date. */
  due?: DueView;
  /** A PIX paid to one of the merchant's static QR codes: that code's id. */
  staticQrId?: string;
  /** A cycle's charge of a Pix Automático recurrence: the recurrence and the cycle's number. */
  recurrenceId?: string;
  cycle?: number;
  /** A received PIX the PSP held (cautionary block): true while held, false once released or returned. */
  held?: boolean;
  heldUntil?: number;
};

type DueView = DueTerms & {
  lastPayableDate: string;
  originalAmountCents: number;
  paid?: { date: string; abatementCents: number; discountCents: number; interestCents: number; fineCents: number };
};

function presentDue(due: DueRecord, amountCents: number): DueView {
  const view: DueView = { ...due.terms, lastPayableDate: lastPayableDate(due.terms), originalAmountCents: due.paid?.originalCents ?? amountCents };
  if (due.paid) {
    const { date, abatementCents, discountCents, interestCents, fineCents } = due.paid;
    view.paid = { date, abatementCents, discountCents, interestCents, fineCents };
  }
  return view;
}

/** The columns the Transaction object is made of: the reads fetch only these (no customer document, no keys). */
export const PRESENTED_COLUMNS = [
  'id',
  'type',
  'amountCents',
  'feeCents',
  'netCents',
  'status',
  'externalRef',
  'pixPayload',
  'expiresAt',
  'paidAt',
  'createdAt',
  'updatedAt',
  'endToEndId',
  'payer',
  'beneficiary',
  'refundEndToEndId',
  'refundedCents',
  'due',
  'staticQrId',
  'recurrenceId',
  'recurrenceCycle',
  'holdStatus',
  'heldUntil',
] as const satisfies readonly (keyof TransactionRow)[];
export type PresentedRow = Pick<TransactionRow, (typeof PRESENTED_COLUMNS)[number]>;

/**
 * The spec's Transaction object: expiresAt in seconds, other times in milliseconds; PIX
 * settlement fields omitted (not null) until settled.
 */
export function presentTransaction(row: PresentedRow): TransactionView {
  const view: TransactionView = {
    transactionId: row.id,
    type: row.type,
    amountCents: row.amountCents,
    feeCents: row.feeCents,
    netCents: row.netCents,
    status: row.status,
    externalRef: row.externalRef,
    pixPayload: row.type === 'pix_in' ? row.pixPayload : null,
    expiresAt: row.expiresAt ? Math.floor(row.expiresAt.getTime() / 1000) : null,
    paidAt: row.paidAt ? row.paidAt.getTime() : null,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
  if (SETTLED_STATUSES.has(row.status)) {
    if (row.endToEndId) view.endToEndId = row.endToEndId;
    if (row.payer) view.payer = row.payer;
    if (row.beneficiary) view.beneficiary = row.beneficiary;
    if (row.refundEndToEndId) view.refundEndToEndId = row.refundEndToEndId;
  }
  if (row.type === 'pix_in' && row.refundedCents > 0) view.refundedCents = row.refundedCents;
  if (row.due) view.due = presentDue(row.due, row.amountCents);
  if (row.staticQrId) view.staticQrId = row.staticQrId;
  if (row.recurrenceId) view.recurrenceId = row.recurrenceId;
  if (row.recurrenceCycle !== null) view.cycle = row.recurrenceCycle;
  if (row.holdStatus !== null && row.heldUntil !== null) {
    view.held = row.holdStatus === 'held';
    view.heldUntil = row.heldUntil.getTime();
  }
  return view;
}
