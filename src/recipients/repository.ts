import { sql, type Updateable } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { RecipientRow, RecipientsTable, RecipientStatus } from '../platform/schema.js';

/**
 * Serializes the recipient writes of one account (the ceiling must hold under concurrency) and
 * reads its current ceiling and hourly limit. NO KEY UPDATE: inserts elsewhere that reference the
 * account (their foreign-key KEY SHARE lock) are not blocked.
 */
export function lockAccountForRecipients(tx: Tx, accountId: string) {
  return tx.selectFrom('accounts').select(['recipientLimit', 'recipientsPerHour']).where('id', '=', accountId).forNoKeyUpdate().executeTakeFirstOrThrow();
}

export function findRecipient(db: Executor, accountId: string, recipientId: string): Promise<RecipientRow | undefined> {
  return db.selectFrom('recipients').selectAll().where('accountId', '=', accountId).where('id', '=', recipientId).executeTakeFirst();
}

/** Locks one recipient of the account for a status change. */
export function lockRecipient(tx: Tx, accountId: string, recipientId: string): Promise<RecipientRow | undefined> {
  return tx.selectFrom('recipients').selectAll().where('accountId', '=', accountId).where('id', '=', recipientId).forUpdate().executeTakeFirst();
}

/** Recipients that count toward the account's ceiling: active plus under review. */
export async function countOpenRecipients(tx: Tx, accountId: string): Promise<number> {
  const row = await tx
    .selectFrom('recipients')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('accountId', '=', accountId)
    .where('status', 'in', ['active', 'pending_review'])
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertRecipient(tx: Tx, recipient: RecipientRow): Promise<void> {
  await tx.insertInto('recipients').values(recipient).execute();
}

export function updateRecipient(tx: Tx, accountId: string, recipientId: string, changes: Updateable<RecipientsTable>): Promise<RecipientRow> {
  return tx.updateTable('recipients').set(changes).where('accountId', '=', accountId).where('id', '=', recipientId).returningAll().executeTakeFirstOrThrow();
}

/** The account's active recipients, newest approval first. */
export function listActiveRecipients(db: Executor, accountId: string): Promise<RecipientRow[]> {
  return db
    .selectFrom('recipients')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('status', '=', 'active')
    .orderBy('approvedAt', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Every recipient of the account, whatever its status, latest change first (the dashboard's list). */
export function listRecipientsOfAccount(db: Executor, accountId: string): Promise<RecipientRow[]> {
  return db.selectFrom('recipients').selectAll().where('accountId', '=', accountId).orderBy('updatedAt', 'desc').orderBy('id', 'desc').execute();
}

/** The operator's view: recipients of one status (of every account, or of one), oldest change first. */
export async function countRecipientsByStatus(db: Executor, status: RecipientStatus): Promise<number> {
  const row = await db
    .selectFrom('recipients')
    .select(sql<number>`count(*)::int8`.as('count'))
    .where('status', '=', status)
    .executeTakeFirstOrThrow();
  return row.count;
}

export function listRecipientsByStatus(
  db: Executor,
  filter: { status: RecipientStatus; accountId?: string | undefined; limit?: number | undefined },
): Promise<RecipientRow[]> {
  let query = db.selectFrom('recipients').selectAll().where('status', '=', filter.status);
  if (filter.accountId) query = query.where('accountId', '=', filter.accountId);
  if (filter.limit !== undefined) query = query.limit(filter.limit);
  return query.orderBy('updatedAt', 'asc').orderBy('accountId', 'asc').orderBy('id', 'asc').execute();
}
