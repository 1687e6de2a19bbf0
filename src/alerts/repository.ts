import type { Executor } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { AlertSeverity } from '../platform/schema.js';

/** An alert for the service team, written in the transaction of what raised it. */
export async function insertAlert(
  tx: Executor,
  /** `accountId` null: an alert of the platform itself; `transactionId` null: about no one transaction. */
  alert: { accountId: string | null; kind: string; transactionId: string | null; details: Record<string, unknown>; at: Date; severity?: AlertSeverity },
) {
  await tx
    .insertInto('alerts')
    .values({
      id: newId(),
      severity: alert.severity,
      accountId: alert.accountId,
      kind: alert.kind,
      transactionId: alert.transactionId,
      details: JSON.stringify(alert.details),
      createdAt: alert.at,
    })
    .execute();
}

export function listAlerts(db: Executor, accountId: string | undefined, limit: number) {
  let query = db.selectFrom('alerts').selectAll();
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.orderBy('createdAt', 'desc').limit(limit).execute();
}
