import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { NewTransaction, TransactionRow, TransactionStatus, TransactionType } from '../platform/schema.js';
import { precompiled } from '../platform/precompiled.js';
import { PRESENTED_COLUMNS } from './presenter.js';
import type { Transition } from './states.js';

/** A transaction of the account (of any account only where the caller is the operator or the provider: `undefined`). */
export function findTransaction(db: Executor, accountId: string | undefined, transactionId: string) {
  const query = db.selectFrom('transactions').selectAll().where('id', '=', transactionId);
  return (accountId === undefined ? query : query.where('accountId', '=', accountId)).executeTakeFirst();
}

/** The charge a received PIX paid, by the network's end-to-end id. */
export function findChargeByEndToEndId(db: Executor, endToEndId: string) {
  return db.selectFrom('transactions').selectAll().where('endToEndId', '=', endToEndId).where('type', '=', 'pix_in').executeTakeFirst();
}

/** The account a transaction belongs to (the audit log's account of an operator action on it). */
export async function findTransactionAccountId(db: Executor, transactionId: string): Promise<string | undefined> {
  return (await db.selectFrom('transactions').select('accountId').where('id', '=', transactionId).executeTakeFirst())?.accountId;
}

const presentedById = precompiled((db, accountId: string, transactionId: string) =>
  db.selectFrom('transactions').select(PRESENTED_COLUMNS).where('id', '=', transactionId).where('accountId', '=', accountId),
);
const recentPresented = precompiled((db, accountId: string, limit: number) =>
  db.selectFrom('transactions').select(PRESENTED_COLUMNS).where('accountId', '=', accountId).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit),
);
const recentPresentedOfType = precompiled((db, accountId: string, type: TransactionType, limit: number) =>
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
export function listTransactions(db: Executor, accountId: string, options: { type?: TransactionType | undefined; limit: number }) {
  return options.type ? recentPresentedOfType(db, accountId, options.type, options.limit) : recentPresented(db, accountId, options.limit);
}

/** The dashboard's filtered lists: one type, optionally one status and a creation period, most recent first. */
export function searchTransactions(db: Executor, accountId: string, filter: TransactionFilter) {
  let query = db.selectFrom('transactions').select(PRESENTED_COLUMNS).where('accountId', '=', accountId).where('type', '=', filter.type);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.createdFrom) query = query.where('createdAt', '>=', filter.createdFrom);
  if (filter.createdBefore) query = query.where('createdAt', '<', filter.createdBefore);
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

export type TransactionFilter = {
  type: TransactionType;
  status?: TransactionStatus | undefined;
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
  limit: number;
};

export type NewTransactionValues = Omit<NewTransaction, 'type' | 'status'>;

/** A new transaction, in the status its creating transition leads to. */
export function insertTransaction(tx: Tx, transition: Transition, transaction: NewTransactionValues) {
  if (transition.from.length > 0) throw new Error(`${transition.to} is not a creating transition`);
  return tx
    .insertInto('transactions')
    .values({ ...transaction, type: transition.type, status: transition.to })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Locks a transaction of one type for a status change; of one account when `accountId` is given. */
export function lockTransaction(tx: Tx, type: TransactionType, transactionId: string, accountId?: string) {
  let query = tx.selectFrom('transactions').selectAll().where('id', '=', transactionId).where('type', '=', type);
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.forUpdate().executeTakeFirst();
}

/** The fields a status change may set besides the status. */
export type StatusChanges = Partial<Pick<NewTransaction, 'paidAt' | 'endToEndId' | 'payer' | 'beneficiary' | 'refundEndToEndId' | 'refundedCents'>>;

/**
 * With updateStatusOfDue, the only writers of `status` after creation: the transition's `to`, and only from one of its
 * `from` statuses (undefined when the row is not in one of them).
 */
export function updateStatus(
  tx: Tx,
  transactionId: string,
  transition: Transition,
  at: Date,
  changes: StatusChanges = {},
): Promise<TransactionRow | undefined> {
  return tx
    .updateTable('transactions')
    .set({ ...changes, status: transition.to, updatedAt: at })
    .where('id', '=', transactionId)
    .where('type', '=', transition.type)
    .where('status', 'in', transition.from)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Applies a transition to up to `batch` transactions of its type that are in one of its `from`
 * statuses and match `due` (a worker's sweep); other workers skip the locked ones.
 */
export function updateStatusOfDue(tx: Tx, transition: Transition, due: { expiresAtUpTo: Date }, at: Date, batch: number) {
  return tx
    .updateTable('transactions')
    .set({ status: transition.to, updatedAt: at })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('transactions')
        .select('id')
        // Literals, not parameters: the partial index on due charges matches them in every plan.
        .where('type', '=', sql.lit(transition.type))
        .where(
          'status',
          'in',
          transition.from.map((status) => sql.lit(status)),
        )
        .where('expiresAt', '<=', due.expiresAtUpTo)
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .where('status', 'in', transition.from)
    .returningAll()
    .execute();
}

/**
 * Binds a withdrawal still `processing` to another provider (DESIGN.md §14: only when the first
 * provably never received it); false when it is not processing any more.
 */
export async function rebindProcessingWithdrawal(tx: Tx, transactionId: string, providerId: string, at: Date): Promise<boolean> {
  const result = await tx
    .updateTable('transactions')
    .set({ providerId, updatedAt: at })
    .where('id', '=', transactionId)
    .where('type', '=', 'withdrawal')
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
