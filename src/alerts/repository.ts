import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { AlertSeverity } from '../platform/schema.js';

/** What an alert says: `accountId` null for an alert of the platform itself, `transactionId` null when about no one transaction. */
export type NewAlert = {
  accountId: string | null;
  kind: string;
  transactionId: string | null;
  details: Record<string, unknown>;
  at: Date;
  severity?: AlertSeverity;
};

/** Alerts' insert, for a caller's statement (a CTE of the write that raised them). */
export function alertsInsert(alerts: readonly NewAlert[]): RawBuilder<unknown> {
  const column = <T>(value: (alert: NewAlert) => T) => alerts.map(value);
  return sql`
    INSERT INTO alerts (id, severity, account_id, kind, transaction_id, details, created_at)
    SELECT * FROM unnest(${column(() => newId())}::uuid[], ${column((alert) => alert.severity ?? 'normal')}::text[], ${column((alert) => alert.accountId)}::uuid[],
                         ${column((alert) => alert.kind)}::text[], ${column((alert) => alert.transactionId)}::uuid[],
                         ${column((alert) => JSON.stringify(alert.details))}::jsonb[], ${column((alert) => alert.at)}::timestamptz[])`;
}

/** An alert for the service team, written in the transaction of what raised it. */
export async function insertAlert(tx: Executor, alert: NewAlert): Promise<void> {
  await alertsInsert([alert]).execute(tx);
}

export function listAlerts(db: Executor, accountId: string | undefined, limit: number) {
  let query = db.selectFrom('alerts').selectAll();
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.orderBy('createdAt', 'desc').limit(limit).execute();
}
