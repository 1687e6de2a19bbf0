import { sql, type Insertable } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { InfractionRow, InfractionStatus, InfractionsTable, ReminderStage } from '../platform/schema.js';
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

/** The account's cases of one charge, of any status, the oldest first (the charge's page). */
export function listInfractionsOf(db: Executor, accountId: string, transactionId: string): Promise<InfractionRow[]> {
  return db
    .selectFrom('infractions')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('transactionId', '=', transactionId)
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

const HOUR_MS = 3_600_000;

/**
 * Running cases that reached a reminder stage they were not reminded at (infractions/reminders.ts):
 * for some stage of `stages` (hours), the deadline still ahead and within that many hours of
 * `now`, and the case never reminded or last at a larger stage. Locked; other workers skip them,
 * and a case a worker reminded meanwhile no longer matches when its row is read again.
 */
export function lockCasesToRemind(
  tx: Tx,
  statuses: readonly InfractionStatus[],
  stages: readonly ReminderStage[],
  now: Date,
  limit: number,
): Promise<InfractionRow[]> {
  return tx
    .selectFrom('infractions')
    .selectAll()
    .where('status', 'in', statuses)
    .where('defenseDeadline', '>', now)
    .where((eb) =>
      eb.or(
        stages.map((hours) =>
          eb.and([
            eb('defenseDeadline', '<=', new Date(now.getTime() + hours * HOUR_MS)),
            eb.or([eb('remindedStage', 'is', null), eb('remindedStage', '>', hours)]),
          ]),
        ),
      ),
    )
    .orderBy('defenseDeadline')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Records that a case was reminded at `stage`, unless it already was at that stage or a smaller one. */
export function markReminded(tx: Tx, infractionId: string, stage: ReminderStage): Promise<InfractionRow | undefined> {
  return tx
    .updateTable('infractions')
    .set({ remindedStage: stage })
    .where('id', '=', infractionId)
    .where((eb) => eb.or([eb('remindedStage', 'is', null), eb('remindedStage', '>', stage)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * The account's running cases whose deadline is ahead and within `withinMs` of `now`, the
 * nearest first (the dashboard's banner), and how many there are.
 */
export async function nearDeadlines(
  db: Executor,
  accountId: string,
  statuses: readonly InfractionStatus[],
  now: Date,
  withinMs: number,
  limit: number,
): Promise<{ rows: InfractionRow[]; total: number }> {
  const rows = await db
    .selectFrom('infractions')
    .selectAll()
    .select(sql<number>`count(*) over ()::int8`.as('total'))
    .where('accountId', '=', accountId)
    .where('status', 'in', statuses)
    .where('defenseDeadline', '>', now)
    .where('defenseDeadline', '<=', new Date(now.getTime() + withinMs))
    .orderBy('defenseDeadline')
    .orderBy('id')
    .limit(limit)
    .execute();
  return { rows: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}
