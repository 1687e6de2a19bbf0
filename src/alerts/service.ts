import type { Db } from '../platform/database.js';
import * as repository from './repository.js';

/** The service team's internal alerts: third-party withdrawals, PSP outcomes that need an operator (docs/providers.md). */
export class AlertService {
  constructor(private readonly db: Db) {}

  /** Newest first, as the operator API and the back-office show them. */
  async list(accountId: string | undefined, limit = 200) {
    const rows = await repository.listAlerts(this.db, accountId, limit);
    return rows.map((row) => ({
      alertId: row.id,
      accountId: row.accountId,
      kind: row.kind,
      severity: row.severity,
      transactionId: row.transactionId,
      details: row.details,
      createdAt: row.createdAt.getTime(),
    }));
  }
}
