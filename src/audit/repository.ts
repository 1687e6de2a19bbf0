import type { Executor } from '../platform/database.js';
import type { AuditChanges, AuditRow } from '../platform/schema.js';

/**
 * The audit log's only writer: an insert. There is deliberately no update or delete here (a test
 * checks the code has none, and a trigger refuses them in the database).
 */
export async function appendAuditEntry(
  db: Executor,
  entry: { id: string; at: Date; actor: string; action: string; accountId: string | null; objectId: string | null; changes: AuditChanges },
): Promise<void> {
  await db
    .insertInto('auditLog')
    .values({ ...entry, changes: JSON.stringify(entry.changes) })
    .execute();
}

export type AuditFilter = { accountId?: string | undefined; actor?: string | undefined; before?: { at: Date; id: string } | undefined; limit: number };

/** Newest first; `before` continues a page after its last entry. */
export function listAuditEntries(db: Executor, filter: AuditFilter): Promise<AuditRow[]> {
  let query = db.selectFrom('auditLog').selectAll();
  if (filter.accountId) query = query.where('accountId', '=', filter.accountId);
  if (filter.actor) query = query.where('actor', '=', filter.actor);
  const before = filter.before;
  if (before) query = query.where((eb) => eb.or([eb('at', '<', before.at), eb.and([eb('at', '=', before.at), eb('id', '<', before.id)])]));
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}
