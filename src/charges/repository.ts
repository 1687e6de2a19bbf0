import type { Executor, Tx } from '../platform/database.js';
import type { TransactionRow } from '../platform/schema.js';

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
