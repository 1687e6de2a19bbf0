import type { Executor, Tx } from '../platform/database.js';
import type { NewTransaction } from '../platform/schema.js';
import { PRESENTED_COLUMNS } from './presenter.js';

export function findTransaction(db: Executor, accountId: string, transactionId: string) {
  return db.selectFrom('transactions').selectAll().where('id', '=', transactionId).where('accountId', '=', accountId).executeTakeFirst();
}

/** One transaction of the account, with the columns the API shows. */
export function findPresentedTransaction(db: Executor, accountId: string, transactionId: string) {
  return db.selectFrom('transactions').select(PRESENTED_COLUMNS).where('id', '=', transactionId).where('accountId', '=', accountId).executeTakeFirst();
}

/** Most recent first, with the columns the API shows; ids are time-ordered, so they break ties within one millisecond. */
export function listTransactions(db: Executor, accountId: string, options: { type?: 'pix_in' | 'withdrawal' | undefined; limit: number }) {
  let query = db.selectFrom('transactions').select(PRESENTED_COLUMNS).where('accountId', '=', accountId);
  if (options.type) query = query.where('type', '=', options.type);
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

export function insertTransaction(tx: Tx, transaction: NewTransaction) {
  return tx.insertInto('transactions').values(transaction).returningAll().executeTakeFirstOrThrow();
}
