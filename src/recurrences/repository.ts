import { sql, type Insertable } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type {
  RecurrenceCycleRow,
  RecurrenceCyclesTable,
  RecurrenceRow,
  RecurrencesTable,
  RecurrenceStatus,
  TransactionRow,
  TransactionStatus,
} from '../platform/schema.js';
import type { CycleWithCharge } from './presenter.js';
import type { RecurrenceTransition } from './states.js';

/** A new recurrence; undefined when its externalRef was used meanwhile (a concurrent request won). */
export function insertRecurrence(db: Executor, recurrence: Insertable<RecurrencesTable>): Promise<RecurrenceRow | undefined> {
  return db
    .insertInto('recurrences')
    .values(recurrence)
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findRecurrence(db: Executor, accountId: string, id: string): Promise<RecurrenceRow | undefined> {
  return db.selectFrom('recurrences').selectAll().where('id', '=', id).where('accountId', '=', accountId).executeTakeFirst();
}

export function findRecurrenceByExternalRef(db: Executor, accountId: string, externalRef: string): Promise<RecurrenceRow | undefined> {
  return db.selectFrom('recurrences').selectAll().where('accountId', '=', accountId).where('externalRef', '=', externalRef).executeTakeFirst();
}

/** Claims a `created` recurrence's registration at its provider until `until`; undefined while another request holds it (or once it left `created`). */
export function claimRegistration(db: Executor, id: string, now: Date, until: Date): Promise<RecurrenceRow | undefined> {
  return db
    .updateTable('recurrences')
    .set({ registrationClaimedUntil: until })
    .where('id', '=', id)
    .where('status', '=', 'created')
    .where((eb) => eb.or([eb('registrationClaimedUntil', 'is', null), eb('registrationClaimedUntil', '<=', now)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * A registration that failed lets go of its claim (the one it holds, `claimedUntil`): a retry asks
 * the provider again at once. A claim taken since by another request (this one's lapsed) is left to it.
 */
export async function releaseRegistration(db: Executor, id: string, claimedUntil: Date): Promise<void> {
  await db
    .updateTable('recurrences')
    .set({ registrationClaimedUntil: null })
    .where('id', '=', id)
    .where('status', '=', 'created')
    .where('registrationClaimedUntil', '=', claimedUntil)
    .execute();
}

/** The provider's id of a recurrence that left `created` while it was being registered (it is cancelled there next). */
export function setProviderRecurrenceId(tx: Tx, id: string, providerRecurrenceId: string, at: Date): Promise<RecurrenceRow> {
  return tx
    .updateTable('recurrences')
    .set({ providerRecurrenceId, registrationClaimedUntil: null, updatedAt: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Locks one recurrence (of the account when given) for a change. */
export function lockRecurrence(tx: Tx, id: string, accountId?: string): Promise<RecurrenceRow | undefined> {
  let query = tx.selectFrom('recurrences').selectAll().where('id', '=', id);
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.forUpdate().executeTakeFirst();
}

/** A variable recurrence's amount for its cycles not charged yet (the caller holds its lock). */
export function setRecurrenceAmount(tx: Tx, id: string, amountCents: number, at: Date): Promise<RecurrenceRow> {
  return tx.updateTable('recurrences').set({ amountCents, updatedAt: at }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** The only writer of a recurrence's status after its creation: the transition's `to`, from one of its `from`. */
export function updateRecurrenceStatus(
  tx: Tx,
  id: string,
  transition: RecurrenceTransition,
  at: Date,
  changes: Partial<Pick<RecurrenceRow, 'providerRecurrenceId' | 'cancelledBy' | 'nextCycleDate' | 'registrationClaimedUntil'>> = {},
): Promise<RecurrenceRow | undefined> {
  return tx
    .updateTable('recurrences')
    .set({ ...changes, status: transition.to, updatedAt: at })
    .where('id', '=', id)
    .where('status', 'in', transition.from)
    .returningAll()
    .executeTakeFirst();
}

/** The account's recurrences, newest first, after `startingAfter` when given; one more than `limit` tells whether more follow. */
export async function listRecurrences(db: Executor, accountId: string, limit: number, startingAfter?: RecurrenceRow): Promise<RecurrenceRow[]> {
  let query = db.selectFrom('recurrences').selectAll().where('accountId', '=', accountId);
  if (startingAfter) {
    query = query.where((eb) =>
      eb.or([eb('createdAt', '<', startingAfter.createdAt), eb.and([eb('createdAt', '=', startingAfter.createdAt), eb('id', '<', startingAfter.id)])]),
    );
  }
  return query
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** Authorized recurrences whose next cycle falls on or before `upTo` (the worker creates its charge), but those backing off until after `now`. */
export function recurrencesWithCycleDue(db: Executor, upTo: string, now: Date, limit: number): Promise<{ id: string; accountId: string }[]> {
  return db
    .selectFrom('recurrences')
    .select(['id', 'accountId'])
    .where('status', '=', 'authorized')
    .where('nextCycleDate', 'is not', null)
    .where('nextCycleDate', '<=', upTo)
    .where((eb) => eb.or([eb('cycleRetryAt', 'is', null), eb('cycleRetryAt', '<=', now)]))
    .orderBy('nextCycleDate')
    .limit(limit)
    .execute();
}

/** The next cycle's charge failed at the provider: one more failure, and the sweep skips the recurrence until `retryAt`. */
export async function deferCycle(db: Executor, id: string, cycle: number, retryAt: Date, amountCents: number): Promise<void> {
  await db
    .updateTable('recurrences')
    // The amount sent: the provider may hold the charge with it (an answer lost), so the retries send the same.
    .set((eb) => ({ cycleFailures: eb('cycleFailures', '+', 1), cycleRetryAt: retryAt, cycleAmountCents: amountCents }))
    .where('id', '=', id)
    .where('nextCycle', '=', cycle)
    .execute();
}

/** Requests (sent or not) whose expiry has come, in one of `statuses`. */
export function lapsedAuthorizations(db: Executor, statuses: readonly RecurrenceStatus[], now: Date, limit: number): Promise<{ id: string }[]> {
  return db.selectFrom('recurrences').select('id').where('status', 'in', statuses).where('authorizationExpiresAt', '<=', now).limit(limit).execute();
}

/** The recurrence's next cycle to charge moves on (charged or skipped); its backoff ends. */
export function advanceCycle(tx: Tx, id: string, nextCycle: number, nextCycleDate: string | null, at: Date): Promise<RecurrenceRow> {
  return tx
    .updateTable('recurrences')
    .set({ nextCycle, nextCycleDate, cycleFailures: 0, cycleRetryAt: null, cycleAmountCents: null, updatedAt: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function insertCycle(tx: Tx, cycle: Insertable<RecurrenceCyclesTable>): Promise<RecurrenceCycleRow> {
  return tx.insertInto('recurrenceCycles').values(cycle).returningAll().executeTakeFirstOrThrow();
}

/** A recurrence's cycles, in order, with their transactions' status and amount (none for a skipped cycle). */
export function listCycles(db: Executor, accountId: string, recurrenceId: string): Promise<CycleWithCharge[]> {
  return db
    .selectFrom('recurrenceCycles as c')
    .leftJoin('transactions as t', 't.id', 'c.transactionId')
    .selectAll('c')
    .select(['t.status as chargeStatus', 't.amountCents'])
    .where('c.accountId', '=', accountId)
    .where('c.recurrenceId', '=', recurrenceId)
    .orderBy('c.cycle')
    .execute();
}

/** One cycle of the account's recurrence, locked with its transaction (none when skipped) for a change. */
export async function lockCycle(
  tx: Tx,
  accountId: string,
  recurrenceId: string,
  cycle: number,
): Promise<{ cycle: RecurrenceCycleRow; charge: TransactionRow | null } | undefined> {
  const row = await tx
    .selectFrom('recurrenceCycles')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('recurrenceId', '=', recurrenceId)
    .where('cycle', '=', cycle)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.transactionId === null) return { cycle: row, charge: null };
  const charge = await tx.selectFrom('transactions').selectAll().where('id', '=', row.transactionId).forUpdate().executeTakeFirstOrThrow();
  return { cycle: row, charge };
}

/** The pending charges of a recurrence's cycles, locked (a cancellation cancels them). */
export function lockPendingCycleCharges(tx: Tx, recurrenceId: string): Promise<TransactionRow[]> {
  return tx
    .selectFrom('transactions')
    .selectAll()
    .where('recurrenceId', '=', recurrenceId)
    .where('status', '=', 'pending')
    .orderBy('recurrenceCycle')
    .forUpdate()
    .execute();
}

/** A failed debit attempt, and the day of the next one. */
export async function recordFailedAttempt(tx: Tx, transactionId: string, attemptDate: string): Promise<RecurrenceCycleRow> {
  return tx
    .updateTable('recurrenceCycles')
    .set((eb) => ({ failedAttempts: eb('failedAttempts', '+', 1), attemptDate }))
    .where('transactionId', '=', transactionId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The recurrence a provider knows by its idRec, locked (its reports). */
export function lockRecurrenceAtProvider(tx: Tx, providerId: string, providerRecurrenceId: string): Promise<RecurrenceRow | undefined> {
  return tx
    .selectFrom('recurrences')
    .selectAll()
    .where('providerId', '=', providerId)
    .where('providerRecurrenceId', '=', providerRecurrenceId)
    .forUpdate()
    .executeTakeFirst();
}

/** Which recurrence and cycle a cycle's charge is, by its transaction id; undefined for any other transaction. */
export async function findCycleOfCharge(db: Executor, transactionId: string): Promise<{ recurrenceId: string; accountId: string; cycle: number } | undefined> {
  return db.selectFrom('recurrenceCycles').select(['recurrenceId', 'accountId', 'cycle']).where('transactionId', '=', transactionId).executeTakeFirst();
}

/**
 * When the oldest of a provider's open recurrences (registered there, awaiting the payer or
 * authorized) and of its pending cycle charges was created: where the sweep of their state at the
 * provider starts (none open: null). Each is one partial index's first entry (migration 030).
 */
export async function oldestOpenAtProvider(db: Executor, providerId: string): Promise<{ recurrences: Date | null; cycleCharges: Date | null }> {
  const recurrences = await db
    .selectFrom('recurrences')
    .select((eb) => eb.fn.min<Date | null>('createdAt').as('since'))
    .where('providerId', '=', providerId)
    // Literals, not parameters: the partial indexes (migration 030) match them in every plan, a prepared statement's generic one too.
    .where('status', 'in', [sql.lit<RecurrenceStatus>('awaiting_authorization'), sql.lit<RecurrenceStatus>('authorized')])
    .where('providerRecurrenceId', 'is not', null)
    .executeTakeFirst();
  // A cycle's charge is bound to its recurrence's provider (createCycle).
  const cycleCharges = await db
    .selectFrom('transactions')
    .select((eb) => eb.fn.min<Date | null>('createdAt').as('since'))
    .where('providerId', '=', providerId)
    .where('recurrenceId', 'is not', null)
    .where('status', '=', sql.lit<TransactionStatus>('pending'))
    .executeTakeFirst();
  const dateOf = (since: Date | null | undefined) => (since ? new Date(since) : null);
  return { recurrences: dateOf(recurrences?.since), cycleCharges: dateOf(cycleCharges?.since) };
}

/** A rec to cancel at its provider (migration 033, orphan_recurrences). */
export type OrphanRecurrence = { providerId: string; providerRecurrenceId: string; recurrenceId: string; accountId: string };

/**
 * Records a rec its provider must cancel (in the transaction that decides it, when there is one);
 * the worker tries it from `firstAttemptAt` (the deciding request tries it first, after its
 * commit). False when the rec was recorded already (a repeated report): it stays as it is, in the
 * hands of whoever has it.
 */
export async function insertOrphanRecurrence(db: Executor, orphan: OrphanRecurrence, at: Date, firstAttemptAt: Date): Promise<boolean> {
  const inserted = await db
    .insertInto('orphanRecurrences')
    .values({ ...orphan, nextAttemptAt: firstAttemptAt, createdAt: at })
    .onConflict((conflict) => conflict.columns(['providerId', 'providerRecurrenceId']).doNothing())
    .returning('providerRecurrenceId')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Claims orphan recs due for a cancellation attempt at the given providers: each one's next attempt
 * moves to `leaseUntil`, so no other worker tries it meanwhile.
 */
export async function claimDueOrphanRecurrences(db: Executor, providerIds: string[], now: Date, leaseUntil: Date, limit: number) {
  if (providerIds.length === 0) return [];
  const { rows } = await sql<OrphanRecurrence & { attempts: number }>`
    UPDATE orphan_recurrences SET next_attempt_at = ${leaseUntil}
    WHERE (provider_id, provider_recurrence_id) IN (
      SELECT provider_id, provider_recurrence_id FROM orphan_recurrences
      WHERE cancelled_at IS NULL AND next_attempt_at <= ${now} AND provider_id IN (${sql.join(providerIds)})
      ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    RETURNING provider_id, provider_recurrence_id, recurrence_id, account_id, attempts`.execute(db);
  return rows;
}

/** Orphan recs not cancelled yet, by provider (metrics). */
export function countOpenOrphanRecurrences(db: Executor): Promise<{ providerId: string; count: number }[]> {
  return db
    .selectFrom('orphanRecurrences')
    .select((eb) => ['providerId', eb.fn.countAll<number>().as('count')])
    .where('cancelledAt', 'is', null)
    .groupBy('providerId')
    .execute();
}

/**
 * The orphan rec's cancellation: done (`cancelledAt`), or tried again at `nextAttemptAt` — only
 * while the attempt still holds it (`claimedUntil`, its lease): a failure answered after another
 * attempt took it over leaves that one's schedule alone.
 */
export async function settleOrphanRecurrence(
  db: Executor,
  orphan: Pick<OrphanRecurrence, 'providerId' | 'providerRecurrenceId'>,
  result: { cancelledAt: Date } | { nextAttemptAt: Date; claimedUntil: Date; error: string },
): Promise<void> {
  let update = db
    .updateTable('orphanRecurrences')
    .set((eb) =>
      'cancelledAt' in result
        ? { cancelledAt: result.cancelledAt, attempts: eb('attempts', '+', 1), lastError: null }
        : { nextAttemptAt: result.nextAttemptAt, attempts: eb('attempts', '+', 1), lastError: result.error },
    )
    .where('providerId', '=', orphan.providerId)
    .where('providerRecurrenceId', '=', orphan.providerRecurrenceId)
    .where('cancelledAt', 'is', null);
  if ('claimedUntil' in result) update = update.where('nextAttemptAt', '=', result.claimedUntil);
  await update.execute();
}
