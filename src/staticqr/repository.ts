import type { Executor } from '../platform/database.js';
import type { StaticQrCodeRow, StaticQrCodesTable } from '../platform/schema.js';
import { PRESENTED_COLUMNS, type PresentedRow } from '../transactions/presenter.js';
import { sql, type Insertable } from 'kysely';

/** A new static code; undefined when its txid is taken (by any merchant: the key is shared) or its externalRef was used meanwhile. */
export function insertStaticQrCode(db: Executor, code: Insertable<StaticQrCodesTable>): Promise<StaticQrCodeRow | undefined> {
  return db
    .insertInto('staticQrCodes')
    .values(code)
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Locks one of the account's codes for a payment: a deactivation waits for it, or it sees the deactivation. */
export function lockStaticQrCode(db: Executor, accountId: string, id: string): Promise<StaticQrCodeRow | undefined> {
  return db.selectFrom('staticQrCodes').selectAll().where('id', '=', id).where('accountId', '=', accountId).forUpdate().executeTakeFirst();
}

export function findStaticQrCode(db: Executor, accountId: string, id: string): Promise<StaticQrCodeRow | undefined> {
  return db.selectFrom('staticQrCodes').selectAll().where('id', '=', id).where('accountId', '=', accountId).executeTakeFirst();
}

/** The code whose BR Code carries `txid` (of any account: the receiving key is shared, the txid unique in any case). */
export function findStaticQrCodeByTxid(db: Executor, txid: string): Promise<StaticQrCodeRow | undefined> {
  return db
    .selectFrom('staticQrCodes')
    .selectAll()
    .where(sql<string>`upper(txid)`, '=', txid.toUpperCase())
    .executeTakeFirst();
}

/** The transaction a PIX with this end-to-end id created, if any (a PSP repeats its reports). */
export function findPaymentByEndToEndId(db: Executor, endToEndId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('transactions').select('id').where('endToEndId', '=', endToEndId).executeTakeFirst();
}

export function findStaticQrCodeByExternalRef(db: Executor, accountId: string, externalRef: string): Promise<StaticQrCodeRow | undefined> {
  return db.selectFrom('staticQrCodes').selectAll().where('accountId', '=', accountId).where('externalRef', '=', externalRef).executeTakeFirst();
}

/** The account's codes, newest first. */
export function listStaticQrCodes(db: Executor, accountId: string, limit: number): Promise<StaticQrCodeRow[]> {
  return db
    .selectFrom('staticQrCodes')
    .selectAll()
    .where('accountId', '=', accountId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Deactivates an active code of the account; undefined when it is not active (or not the account's). */
export function deactivateStaticQrCode(db: Executor, accountId: string, id: string, at: Date): Promise<StaticQrCodeRow | undefined> {
  return db
    .updateTable('staticQrCodes')
    .set({ active: false, deactivatedAt: at })
    .where('id', '=', id)
    .where('accountId', '=', accountId)
    .where('active', '=', true)
    .returningAll()
    .executeTakeFirst();
}

/** The PIX paid to one of the account's codes (each a pix_in transaction naming it), newest first. */
export function listStaticQrPayments(db: Executor, accountId: string, codeId: string, limit: number): Promise<PresentedRow[]> {
  return db
    .selectFrom('transactions')
    .select(PRESENTED_COLUMNS)
    .where('accountId', '=', accountId)
    .where('staticQrId', '=', codeId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** How many PIX each of the account's codes received (codes with none are absent). */
export async function countStaticQrPayments(db: Executor, accountId: string, codeIds: readonly string[]): Promise<Map<string, number>> {
  if (codeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('transactions')
    .select(['staticQrId', (eb) => eb.fn.countAll<string>().as('payments')])
    .where('accountId', '=', accountId)
    .where('staticQrId', 'in', codeIds)
    .groupBy('staticQrId')
    .execute();
  return new Map(rows.flatMap((row) => (row.staticQrId ? [[row.staticQrId, Number(row.payments)]] : [])));
}
