import type { Executor, Tx } from '../platform/database.js';
import type { OperatorRole, OperatorRow } from '../platform/schema.js';

/** A new operator, or undefined when a live operator already has the address (the unique index on lower(email)). */
export function insertOperatorIfEmailFree(tx: Tx, operator: { id: string; email: string; role: OperatorRole; at: Date }): Promise<OperatorRow | undefined> {
  return tx
    .insertInto('operators')
    .values({
      id: operator.id,
      email: operator.email,
      role: operator.role,
      passwordHash: null,
      totpSecretEncrypted: null,
      totpEnrolledAt: null,
      totpLastStep: null,
      lockedUntil: null,
      createdAt: operator.at,
      updatedAt: operator.at,
      removedAt: null,
    })
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function anyOperatorExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('operators').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** The live operators (and pending invitations), oldest first. */
export function listOperators(db: Executor): Promise<OperatorRow[]> {
  return db.selectFrom('operators').selectAll().where('removedAt', 'is', null).orderBy('createdAt', 'asc').orderBy('id', 'asc').execute();
}

/** Locks the live operators: changes are one at a time, so "the last admin" is exact. */
export function lockOperators(tx: Tx): Promise<OperatorRow[]> {
  return tx.selectFrom('operators').selectAll().where('removedAt', 'is', null).orderBy('id').forUpdate().execute();
}

export async function setOperatorRole(tx: Tx, operatorId: string, role: OperatorRole, at: Date): Promise<void> {
  await tx.updateTable('operators').set({ role, updatedAt: at }).where('id', '=', operatorId).execute();
}

/** Removes an operator: its sessions end and its unused invitation stops working. */
export async function removeOperator(tx: Tx, operatorId: string, at: Date): Promise<void> {
  await tx.updateTable('operators').set({ removedAt: at, updatedAt: at }).where('id', '=', operatorId).execute();
  await tx.updateTable('operatorSessions').set({ endedAt: at }).where('operatorId', '=', operatorId).where('endedAt', 'is', null).execute();
  await tx.updateTable('operatorInvites').set({ usedAt: at }).where('operatorId', '=', operatorId).where('usedAt', 'is', null).execute();
}
