import type { Executor, Tx } from '../platform/database.js';
import type { NewTransaction, TransactionRow } from '../platform/schema.js';

export const CHARGE_IDEMPOTENCY_SCOPE = 'pix';

/** The transaction a still-valid externalRef points to, if any. */
export async function findIdempotentTransactionId(db: Executor, accountId: string, scope: string, externalRef: string, at: Date) {
  const row = await db
    .selectFrom('idempotencyKeys')
    .select('transactionId')
    .where('accountId', '=', accountId)
    .where('scope', '=', scope)
    .where('externalRef', '=', externalRef)
    .where('expiresAt', '>', at)
    .executeTakeFirst();
  return row?.transactionId;
}

/**
 * Claims externalRef for a new transaction. Returns true when claimed; false when a still-valid
 * key holds it. On the server a concurrent claim waits for the first to commit or roll back.
 */
export async function claimIdempotencyKey(
  tx: Tx,
  key: { accountId: string; scope: string; externalRef: string; transactionId: string; expiresAt: Date },
  at: Date,
): Promise<boolean> {
  const claimed = await tx
    .insertInto('idempotencyKeys')
    .values(key)
    .onConflict((conflict) =>
      conflict
        .columns(['accountId', 'scope', 'externalRef'])
        .doUpdateSet({ transactionId: key.transactionId, expiresAt: key.expiresAt })
        .where('idempotencyKeys.expiresAt', '<=', at),
    )
    .returning('transactionId')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function insertTransaction(tx: Tx, transaction: NewTransaction): Promise<void> {
  await tx.insertInto('transactions').values(transaction).execute();
}

/** Locks a charge of the account for a state change. */
export function lockCharge(tx: Tx, accountId: string, transactionId: string) {
  return tx
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', transactionId)
    .where('accountId', '=', accountId)
    .where('type', '=', 'pix_in')
    .forUpdate()
    .executeTakeFirst();
}

export function markChargePaid(
  tx: Tx,
  transactionId: string,
  settlement: { endToEndId: string; payer: TransactionRow['payer']; at: Date },
) {
  return tx
    .updateTable('transactions')
    .set({ status: 'paid', paidAt: settlement.at, endToEndId: settlement.endToEndId, payer: JSON.stringify(settlement.payer), updatedAt: settlement.at })
    .where('id', '=', transactionId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function markChargeExpired(tx: Tx, transactionId: string, at: Date) {
  return tx.updateTable('transactions').set({ status: 'expired', updatedAt: at }).where('id', '=', transactionId).returningAll().executeTakeFirstOrThrow();
}

/** Expires up to `batch` pending charges whose validity elapsed; other workers skip the locked ones. */
export function expireDueCharges(tx: Tx, at: Date, batch: number) {
  return tx
    .updateTable('transactions')
    .set({ status: 'expired', updatedAt: at })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('transactions')
        .select('id')
        .where('type', '=', 'pix_in')
        .where('status', '=', 'pending')
        .where('expiresAt', '<=', at)
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

export async function purgeExpiredIdempotencyKeys(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('idempotencyKeys').where('expiresAt', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

