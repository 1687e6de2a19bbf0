import type { Db } from '../platform/database.js';
import { pendingMigrations } from '../platform/database.js';

export type Readiness = { ready: true } | { ready: false; reason: 'database_unreachable' | 'migrations_pending'; pending?: string[] };

/** What a load balancer and an operator ask of a process: can it serve? */
export class HealthService {
  constructor(private readonly db: Db) {}

  /** Ready when the database answers and every migration of this code is applied. */
  async readiness(): Promise<Readiness> {
    let pending: string[];
    try {
      pending = await pendingMigrations(this.db);
    } catch {
      return { ready: false, reason: 'database_unreachable' };
    }
    return pending.length === 0 ? { ready: true } : { ready: false, reason: 'migrations_pending', pending };
  }
}
