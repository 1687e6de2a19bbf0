import type { Executor, Tx } from '../platform/database.js';
import type { NewTransaction } from '../platform/schema.js';
import { precompiled } from '../platform/precompiled.js';
import { PRESENTED_COLUMNS } from './presenter.js';

export function findTransaction(db: Executor, accountId: string, transactionId: string) {
  return db.selectFrom('transactions').selectAll().where('id', '=', transactionId).where('accountId', '=', accountId).executeTakeFirst();
}

const presentedById = precompiled((db, accountId: string, transactionId: string) =>
  db.selectFrom('transactions').select(PRESENTED_COLUMNS).where('id', '=', transactionId).where('accountId', '=', accountId),
);
const recentPresented = precompiled((db, accountId: string, limit: number) =>
  db.selectFrom('transactions').select(PRESENTED_COLUMNS).where('accountId', '=', accountId).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit),
);
const recentPresentedOfType = precompiled((db, accountId: string, type: 'pix_in' | 'withdrawal', limit: number) =>
  db
    .selectFrom('transactions')
    .select(PRESENTED_COLUMNS)
    .where('accountId', '=', accountId)
    .where('type', '=', type)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit),
);

/** One transaction of the account, with the columns the API shows. */
export async function findPresentedTransaction(db: Executor, accountId: string, transactionId: string) {
  return (await presentedById(db, accountId, transactionId))[0];
}

/** Most recent first, with the columns the API shows; ids are time-ordered, so they break ties within one millisecond. */
export function listTransactions(db: Executor, accountId: string, options: { type?: 'pix_in' | 'withdrawal' | undefined; limit: number }) {
  return options.type ? recentPresentedOfType(db, accountId, options.type, options.limit) : recentPresented(db, accountId, options.limit);
}

export function insertTransaction(tx: Tx, transaction: NewTransaction) {
  return tx.insertInto('transactions').values(transaction).returningAll().executeTakeFirstOrThrow();
}
