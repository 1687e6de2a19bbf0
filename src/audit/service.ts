import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { AuditChanges, AuditRow } from '../platform/schema.js';
import { maskForAudit } from './masking.js';
import * as repository from './repository.js';

export type AuditEntryInput = { actor: string; action: string; accountId: string | null; objectId: string | null; changes: AuditChanges };

/** The operators' audit log (DESIGN.md §11): append-only, documents masked and secrets redacted on the way in. */
export class AuditService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async record(entry: AuditEntryInput): Promise<void> {
    const changes: AuditChanges = {};
    if (entry.changes.input !== undefined) changes.input = maskForAudit(entry.changes.input);
    if (entry.changes.before !== undefined) changes.before = maskForAudit(entry.changes.before);
    if (entry.changes.after !== undefined) changes.after = maskForAudit(entry.changes.after);
    await repository.appendAuditEntry(this.db, { id: newId(), at: this.clock.now(), ...entry, changes });
  }

  /** Each entry with its operator's e-mail and its account's name (the back-office shows them; the API shows the stored entry). */
  list(filter: repository.AuditFilter): Promise<repository.NamedAuditRow[]> {
    return repository.listAuditEntries(this.db, filter);
  }
}

export function presentAuditEntry(row: AuditRow) {
  return {
    auditId: row.id,
    at: row.at.getTime(),
    actor: row.actor,
    action: row.action,
    accountId: row.accountId,
    objectId: row.objectId,
    changes: row.changes,
  };
}
