import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { AlertSeverity } from '../platform/schema.js';

/** What an alert says: `accountId` null for an alert of the platform itself, `transactionId` null when about no one transaction. */
type NewAlert = { accountId: string | null; kind: string; transactionId: string | null; details: Record<string, unknown>; at: Date; severity?: AlertSeverity };

/** An alert's insert, for a caller's statement (a CTE of the write that raised it). */
export function alertInsert(alert: NewAlert): RawBuilder<unknown> {
  return sql`
    INSERT INTO alerts (id, severity, account_id, kind, transaction_id, details, created_at)
    VALUES (${newId()}, ${alert.severity ?? 'normal'}, ${alert.accountId}, ${alert.kind}, ${alert.transactionId}, ${JSON.stringify(alert.details)}, ${alert.at})`;
}

/** An alert for the service team, written in the transaction of what raised it. */
export async function insertAlert(tx: Executor, alert: NewAlert): Promise<void> {
  await alertInsert(alert).execute(tx);
}

export function listAlerts(db: Executor, accountId: string | undefined, limit: number) {
  let query = db.selectFrom('alerts').selectAll();
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.orderBy('createdAt', 'desc').limit(limit).execute();
}
