import type { Executor } from '../platform/database.js';
import type { StaticQrCodeRow, StaticQrCodesTable } from '../platform/schema.js';
import type { Insertable } from 'kysely';

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
