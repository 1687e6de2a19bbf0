import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { RefundRow, RefundsTable } from '../platform/schema.js';
import { CHARGE_MONEY_KINDS } from './presenter.js';
import type { Insertable } from 'kysely';

export type NewRefund = Insertable<RefundsTable>;

export function insertRefund(tx: Tx, refund: NewRefund): Promise<RefundRow> {
  return tx.insertInto('refunds').values(refund).returningAll().executeTakeFirstOrThrow();
}

/** A refund (of the account, when given). */
export function findRefund(db: Executor, refundId: string, accountId?: string): Promise<RefundRow | undefined> {
  let query = db.selectFrom('refunds').selectAll().where('id', '=', refundId);
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.executeTakeFirst();
}

/** The refund that returned a payment (kind returned_payment), if any. */
export function findReturnedPayment(db: Executor, paymentEndToEndId: string): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('paymentEndToEndId', '=', paymentEndToEndId).where('kind', '=', 'returned_payment').executeTakeFirst();
}

/** A refund by the end-to-end id the network gave it, if any (a PSP repeats its reports). */
export function findRefundByEndToEndId(db: Executor, refundEndToEndId: string): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('refundEndToEndId', '=', refundEndToEndId).executeTakeFirst();
}

/** Locks a refund (of the account, when given) for its outcome. */
export function lockRefund(tx: Tx, refundId: string, accountId?: string): Promise<RefundRow | undefined> {
  let query = tx.selectFrom('refunds').selectAll().where('id', '=', refundId);
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.forUpdate().executeTakeFirst();
}

/** A charge's refunds, newest first. */
export function listRefunds(db: Executor, accountId: string, transactionId: string): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('transactionId', '=', transactionId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** What of a charge's amount is spoken for: refunds not failed and the amount of its open MED case (call under the charge's lock). */
export async function committedAmount(tx: Tx, transactionId: string): Promise<{ refundsCents: number; openCaseCents: number }> {
  const { rows } = await sql<{ refundsCents: number; openCaseCents: number }>`
    SELECT
      (SELECT coalesce(sum(amount_cents), 0) FROM refunds
        WHERE transaction_id = ${transactionId} AND status <> 'failed' AND kind IN (${sql.join(CHARGE_MONEY_KINDS)}))::int8 AS refunds_cents,
      (SELECT coalesce(sum(amount_cents), 0) FROM infractions
        WHERE transaction_id = ${transactionId} AND status IN ('open', 'in_defense', 'under_analysis'))::int8 AS open_case_cents`.execute(tx);
  const [row] = rows;
  return { refundsCents: row?.refundsCents ?? 0, openCaseCents: row?.openCaseCents ?? 0 };
}

/** The refund an externalRef of the account still names (scope `refund` of the idempotency keys). */
export function findRefundByExternalRef(
  db: Executor,
  key: { accountId: string; scope: string; externalRef: string },
  at: Date,
): Promise<RefundRow | undefined> {
  return db
    .selectFrom('idempotencyKeys as k')
    .innerJoin('refunds as r', 'r.id', 'k.transactionId')
    .selectAll('r')
    .where('k.accountId', '=', key.accountId)
    .where('k.scope', '=', key.scope)
    .where('k.externalRef', '=', key.externalRef)
    .where('k.expiresAt', '>', at)
    .where('r.accountId', '=', key.accountId)
    .executeTakeFirst();
}

/** A processing refund's final outcome; undefined when it is not processing any more. */
export function settleRefund(
  tx: Tx,
  refundId: string,
  outcome: { status: 'refunded'; refundEndToEndId: string } | { status: 'failed' },
  at: Date,
): Promise<RefundRow | undefined> {
  return tx
    .updateTable('refunds')
    .set({ status: outcome.status, refundEndToEndId: outcome.status === 'refunded' ? outcome.refundEndToEndId : null, settledAt: at, updatedAt: at })
    .where('id', '=', refundId)
    .where('status', '=', 'processing')
    .returningAll()
    .executeTakeFirst();
}

/** A failed refund that the PSP completed after all: refunded, under the PSP's end-to-end id. */
export function resettleRefund(tx: Tx, refundId: string, refundEndToEndId: string, at: Date): Promise<RefundRow> {
  return tx
    .updateTable('refunds')
    .set({ status: 'refunded', refundEndToEndId, settledAt: at, updatedAt: at })
    .where('id', '=', refundId)
    .where('status', '=', 'failed')
    .returningAll()
    .executeTakeFirstOrThrow();
}
