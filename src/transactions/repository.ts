import type { Executor, Tx } from '../platform/database.js';
import type { NewTransaction } from '../platform/schema.js';

export function findTransaction(db: Executor, accountId: string, transactionId: string) {
  return db.selectFrom('transactions').selectAll().where('id', '=', transactionId).where('accountId', '=', accountId).executeTakeFirst();
}

/** Most recent first; ids are time-ordered, so they break ties within one millisecond. */
export function listTransactions(db: Executor, accountId: string, options: { type?: 'pix_in' | 'withdrawal' | undefined; limit: number }) {
  let query = db.selectFrom('transactions').selectAll().where('accountId', '=', accountId);
  if (options.type) query = query.where('type', '=', options.type);
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

export function insertTransaction(tx: Tx, transaction: NewTransaction) {
  return tx.insertInto('transactions').values(transaction).returningAll().executeTakeFirstOrThrow();
}
