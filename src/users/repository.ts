import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { SessionRow, SessionStage, UserRole, UserRow } from '../platform/schema.js';

/** A new user, or undefined when a live user already has the address (the unique index on lower(email)). */
export function insertUserIfEmailFree(tx: Tx, user: { id: string; accountId: string; email: string; role: UserRole; at: Date }): Promise<UserRow | undefined> {
  return tx
    .insertInto('users')
    .values({
      id: user.id,
      accountId: user.accountId,
      email: user.email,
      role: user.role,
      passwordHash: null,
      totpSecretEncrypted: null,
      totpEnrolledAt: null,
      totpLastStep: null,
      lockedUntil: null,
      createdAt: user.at,
      updatedAt: user.at,
      removedAt: null,
    })
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** A live user by e-mail (case-insensitive), any account. */
export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('removedAt', 'is', null)
    .executeTakeFirst();
}

export function findUser(db: Executor, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).where('removedAt', 'is', null).executeTakeFirst();
}

/** The account's live users (members and pending invitations), oldest first. */
export function listAccountUsers(db: Executor, accountId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('removedAt', 'is', null)
    .orderBy('createdAt', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** Locks the account's live users: team changes are one at a time, so "the last owner" is exact. */
export function lockAccountUsers(tx: Tx, accountId: string): Promise<UserRow[]> {
  return tx.selectFrom('users').selectAll().where('accountId', '=', accountId).where('removedAt', 'is', null).orderBy('id').forUpdate().execute();
}

export async function setUserRole(tx: Tx, userId: string, role: UserRole, at: Date): Promise<void> {
  await tx.updateTable('users').set({ role, updatedAt: at }).where('id', '=', userId).execute();
}

/** Removes a user: its sessions end and its unused invitations stop working. */
export async function removeUser(tx: Tx, userId: string, at: Date): Promise<void> {
  await tx.updateTable('users').set({ removedAt: at, updatedAt: at }).where('id', '=', userId).execute();
  await tx.updateTable('sessions').set({ endedAt: at }).where('userId', '=', userId).where('endedAt', 'is', null).execute();
  await tx.updateTable('userInvites').set({ usedAt: at }).where('userId', '=', userId).where('usedAt', 'is', null).execute();
}

export function lockUser(tx: Tx, userId: string): Promise<UserRow | undefined> {
  return tx.selectFrom('users').selectAll().where('id', '=', userId).where('removedAt', 'is', null).forUpdate().executeTakeFirst();
}

export type UserChanges = Partial<Pick<UserRow, 'passwordHash' | 'totpSecretEncrypted' | 'totpEnrolledAt' | 'totpLastStep' | 'failedAttempts' | 'lockedUntil'>>;

export async function updateUser(db: Executor, userId: string, changes: UserChanges, at: Date): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...changes, updatedAt: at })
    .where('id', '=', userId)
    .execute();
}

/**
 * Uses a TOTP time step: true only for the first use of a step later than the last one used, so
 * two requests racing with the same code cannot both pass (the row's update decides).
 */
export async function claimTotpStep(db: Executor, userId: string, step: number, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totpLastStep: step, failedAttempts: 0, lockedUntil: null, updatedAt: at })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totpLastStep', 'is', null), eb('totpLastStep', '<', step)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertInvite(tx: Tx, invite: { tokenHash: Buffer; userId: string; expiresAt: Date; at: Date }): Promise<void> {
  await tx
    .insertInto('userInvites')
    .values({ tokenHash: invite.tokenHash, userId: invite.userId, expiresAt: invite.expiresAt, usedAt: null, createdAt: invite.at })
    .execute();
}

/** Uses an invitation once: its user, or undefined when unknown, used or expired. */
export async function takeInvite(tx: Tx, tokenHash: Buffer, at: Date): Promise<string | undefined> {
  const row = await tx
    .updateTable('userInvites')
    .set({ usedAt: at })
    .where('tokenHash', '=', tokenHash)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', at)
    .returning('userId')
    .executeTakeFirst();
  return row?.userId;
}

export async function insertSession(
  db: Executor,
  session: { idHash: Buffer; userId: string; accountId: string; stage: SessionStage; at: Date },
): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      idHash: session.idHash,
      userId: session.userId,
      accountId: session.accountId,
      stage: session.stage,
      createdAt: session.at,
      lastSeenAt: session.at,
      endedAt: null,
    })
    .execute();
}

/** A live session seen since `idleSince`, with its user (live too). */
export function findLiveSession(db: Executor, idHash: Buffer, idleSince: Date) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.userId')
    .select(['s.idHash', 's.userId', 's.accountId', 's.stage', 's.lastSeenAt', 'u.email', 'u.role', 'u.totpEnrolledAt'])
    .where('s.idHash', '=', idHash)
    .where('s.endedAt', 'is', null)
    .where('s.lastSeenAt', '>', idleSince)
    .where('u.removedAt', 'is', null)
    .executeTakeFirst();
}

export async function touchSession(db: Executor, idHash: Buffer, changes: { lastSeenAt: Date; stage?: SessionStage }): Promise<void> {
  await db.updateTable('sessions').set(changes).where('idHash', '=', idHash).where('endedAt', 'is', null).execute();
}

export async function endSession(db: Executor, idHash: Buffer, at: Date): Promise<void> {
  await db.updateTable('sessions').set({ endedAt: at }).where('idHash', '=', idHash).where('endedAt', 'is', null).execute();
}

/** Ends every live session of the user but `keep` (a password change). */
export async function endOtherSessions(db: Executor, userId: string, keep: Buffer | null, at: Date): Promise<number> {
  let query = db.updateTable('sessions').set({ endedAt: at }).where('userId', '=', userId).where('endedAt', 'is', null);
  if (keep) query = query.where('idHash', '<>', keep);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function listLiveSessions(db: Executor, userId: string, idleSince: Date): Promise<Pick<SessionRow, 'idHash' | 'createdAt' | 'lastSeenAt' | 'stage'>[]> {
  return db
    .selectFrom('sessions')
    .select(['idHash', 'createdAt', 'lastSeenAt', 'stage'])
    .where('userId', '=', userId)
    .where('endedAt', 'is', null)
    .where('lastSeenAt', '>', idleSince)
    .orderBy('lastSeenAt', 'desc')
    .execute();
}

/**
 * One more failed attempt, counted in the row itself (concurrent attempts each count): the
 * `maxAttempts`-th locks the user until `lockUntil` and starts the count again; a lock that has
 * passed starts it again too.
 */
export async function recordFailedAttempt(db: Executor, userId: string, options: { maxAttempts: number; now: Date; lockUntil: Date }): Promise<void> {
  const count = sql`(CASE WHEN locked_until IS NOT NULL AND locked_until <= ${options.now} THEN 0 ELSE failed_attempts END + 1)`;
  await sql`
    UPDATE users SET
      failed_attempts = CASE WHEN ${count} >= ${options.maxAttempts} THEN 0 ELSE ${count} END,
      locked_until = CASE WHEN ${count} >= ${options.maxAttempts} THEN ${options.lockUntil}::timestamptz
                          WHEN locked_until IS NOT NULL AND locked_until <= ${options.now} THEN NULL ELSE locked_until END,
      updated_at = ${options.now}
    WHERE id = ${userId}`.execute(db);
}
