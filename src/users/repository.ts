import type { Executor, Tx } from '../platform/database.js';
import type { UserRole, UserRow } from '../platform/schema.js';

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
