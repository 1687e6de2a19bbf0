import { sql, type Insertable } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { InfractionRow, InfractionStatus, InfractionsTable } from '../platform/schema.js';
import { OPEN_INFRACTION_STATUSES, type InfractionTransition } from './states.js';

export function insertInfraction(tx: Tx, infraction: Insertable<InfractionsTable>): Promise<InfractionRow> {
  return tx.insertInto('infractions').values(infraction).returningAll().executeTakeFirstOrThrow();
}

/** A case (of the account, when given). */
export function findInfraction(db: Executor, infractionId: string, accountId?: string): Promise<InfractionRow | undefined> {
  let query = db.selectFrom('infractions').selectAll().where('id', '=', infractionId);
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.executeTakeFirst();
}

/** Locks a case (of the account, when given) for a move. */
export function lockInfraction(tx: Tx, infractionId: string, accountId?: string): Promise<InfractionRow | undefined> {
  let query = tx.selectFrom('infractions').selectAll().where('id', '=', infractionId);
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.forUpdate().executeTakeFirst();
}

/** The case opened to settle a MED return of the PSP, if any. */
export function findInfractionOfReturn(db: Executor, returnEndToEndId: string): Promise<InfractionRow | undefined> {
  return db.selectFrom('infractions').selectAll().where('returnEndToEndId', '=', returnEndToEndId).executeTakeFirst();
}

/** The running cases of a charge, the oldest first. */
export function listRunningInfractionsOf(db: Executor, transactionId: string): Promise<InfractionRow[]> {
  return db
    .selectFrom('infractions')
    .selectAll()
    .where('transactionId', '=', transactionId)
    .where('status', 'in', OPEN_INFRACTION_STATUSES)
    .orderBy('openedAt')
    .orderBy('id')
    .execute();
}

/** The account's cases, newest first, of one status when given. */
export function listInfractions(db: Executor, accountId: string, options: { status?: InfractionStatus | undefined; limit: number }): Promise<InfractionRow[]> {
  let query = db.selectFrom('infractions').selectAll().where('accountId', '=', accountId);
  if (options.status) query = query.where('status', '=', options.status);
  return query.orderBy('openedAt', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

/** The only writer of a case's status after opening: the transition's `to`, from one of its `from` statuses. */
export function updateInfraction(
  tx: Tx,
  infractionId: string,
  transition: InfractionTransition,
  at: Date,
  changes: { defense?: string; closedAt?: Date; recoveredCents?: number } = {},
): Promise<InfractionRow | undefined> {
  return tx
    .updateTable('infractions')
    .set({ ...changes, status: transition.to, updatedAt: at })
    .where('id', '=', infractionId)
    .where('status', 'in', transition.from)
    .returningAll()
    .executeTakeFirst();
}

/** Cases whose defense deadline passed, still before analysis; locked, other workers skip them. */
export function lockOverdueInfractions(tx: Tx, transition: InfractionTransition, now: Date, limit: number): Promise<InfractionRow[]> {
  return tx
    .selectFrom('infractions')
    .selectAll()
    .where('status', 'in', transition.from)
    .where('defenseDeadline', '<=', now)
    .orderBy('defenseDeadline')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Running cases across all accounts (the back-office's queue), the nearest defense deadline first. */
export function listRunningInfractions(db: Executor, limit: number): Promise<InfractionRow[]> {
  return db
    .selectFrom('infractions')
    .selectAll()
    .where('status', 'in', OPEN_INFRACTION_STATUSES)
    .orderBy('defenseDeadline', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}

/** Running cases across all accounts (metrics). */
export async function countOpenInfractions(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('infractions')
    .select(sql<number>`count(*)::int8`.as('count'))
    .where('status', 'in', OPEN_INFRACTION_STATUSES)
    .executeTakeFirstOrThrow();
  return row.count;
}
