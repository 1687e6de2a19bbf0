import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { FraudMarkRow, FraudMarksTable } from '../platform/schema.js';

/** The list's version: grows with every change, so a copy of the list knows when it is stale. */
export async function fraudMarksVersion(db: Executor): Promise<number> {
  const row = await db.selectFrom('fraudMarksVersion').select('version').executeTakeFirstOrThrow();
  return row.version;
}

/** Every active mark (kind and value only: what a check needs), with the version they are of, read in one statement. */
export async function activeFraudMarks(db: Executor): Promise<{ version: number; marks: Pick<FraudMarkRow, 'kind' | 'value'>[] }> {
  const { rows } = await sql<{ version: number; kind: FraudMarkRow['kind'] | null; value: string | null }>`
    SELECT v.version, m.kind, m.value
    FROM fraud_marks_version v LEFT JOIN fraud_marks m ON m.removed_at IS NULL`.execute(db);
  const version = rows[0]?.version ?? 0;
  const marks = rows.flatMap((row) => (row.kind !== null && row.value !== null ? [{ kind: row.kind, value: row.value }] : []));
  return { version, marks };
}

async function bumpVersion(tx: Tx): Promise<void> {
  await tx
    .updateTable('fraudMarksVersion')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .execute();
}

/** A new mark; undefined when an active mark of that kind and value exists (nothing written). */
export async function insertFraudMark(tx: Tx, mark: Omit<FraudMarksTable, 'removedBy' | 'removedAt'>): Promise<FraudMarkRow | undefined> {
  const inserted = await tx
    .insertInto('fraudMarks')
    .values({ ...mark, removedBy: null, removedAt: null })
    .onConflict((conflict) => conflict.columns(['kind', 'value']).where('removedAt', 'is', null).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) await bumpVersion(tx);
  return inserted;
}

/** Removes an active mark; undefined when there is none with that id. */
export async function removeFraudMark(tx: Tx, id: string, removal: { removedBy: string; removedAt: Date }): Promise<FraudMarkRow | undefined> {
  const removed = await tx.updateTable('fraudMarks').set(removal).where('id', '=', id).where('removedAt', 'is', null).returningAll().executeTakeFirst();
  if (removed) await bumpVersion(tx);
  return removed;
}

/** Active marks, newest first; `before` continues after a page's last mark. */
export function listActiveFraudMarks(db: Executor, page: { limit: number; before?: { createdAt: Date; id: string } | undefined }): Promise<FraudMarkRow[]> {
  let query = db.selectFrom('fraudMarks').selectAll().where('removedAt', 'is', null);
  const { before } = page;
  if (before) {
    query = query.where((eb) => eb.or([eb('createdAt', '<', before.createdAt), eb.and([eb('createdAt', '=', before.createdAt), eb('id', '<', before.id)])]));
  }
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
}

export function findFraudMark(db: Executor, id: string): Promise<FraudMarkRow | undefined> {
  return db.selectFrom('fraudMarks').selectAll().where('id', '=', id).executeTakeFirst();
}
