import { sql } from 'kysely';
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

export type AuditFilter = {
  accountId?: string | undefined;
  /** The actor as stored: `admin-token` or `operator:<id>`… */
  actor?: string | undefined;
  /**
   * …or the acting operator's e-mail, in any case (the back-office's filter). An address freed by a
   * removed operator and given to a new one names both: their entries are listed together.
   */
  operatorEmail?: string | undefined;
  before?: { at: Date; id: string } | undefined;
  limit: number;
};

/** An entry with the names a person reads: the acting operator's e-mail and the account's name (null when there is none). */
export type NamedAuditRow = AuditRow & { operatorEmail: string | null; accountName: string | null };

/**
 * Newest first, each entry with its operator's e-mail (actor `operator:<id>`; removed operators
 * keep theirs) and its account's name, joined in one statement; `before` continues a page after
 * its last entry.
 */
export function listAuditEntries(db: Executor, filter: AuditFilter): Promise<NamedAuditRow[]> {
  let query = db
    .selectFrom('auditLog as a')
    .leftJoin('operators as o', (join) => join.on(sql<boolean>`a.actor = 'operator:' || o.id::text`))
    .leftJoin('accounts as ac', 'ac.id', 'a.accountId')
    .selectAll('a')
    .select(['o.email as operatorEmail', 'ac.name as accountName']);
  if (filter.accountId) query = query.where('a.accountId', '=', filter.accountId);
  if (filter.actor) query = query.where('a.actor', '=', filter.actor);
  if (filter.operatorEmail) query = query.where(sql<boolean>`lower(o.email) = lower(${filter.operatorEmail})`);
  const before = filter.before;
  if (before) query = query.where((eb) => eb.or([eb('a.at', '<', before.at), eb.and([eb('a.at', '=', before.at), eb('a.id', '<', before.id)])]));
  return query.orderBy('a.at', 'desc').orderBy('a.id', 'desc').limit(filter.limit).execute();
}
