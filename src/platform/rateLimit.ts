import { sql } from 'kysely';
import type { Executor, Tx } from './database.js';

export type RateWindow = { bucket: string; windowMs: number; limit: number };

/**
 * Counts one use in a fixed window aligned to the epoch (so hourly windows are UTC hours) and
 * says whether it fits. Runs in the caller's transaction: if the guarded write rolls back, so
 * does the count; the row lock makes concurrent requests of one account count exactly.
 */
export async function consumeRateLimit(tx: Tx, accountId: string, window: RateWindow, at: Date): Promise<boolean> {
  const windowStart = Math.floor(at.getTime() / window.windowMs) * window.windowMs;
  const row = await tx
    .insertInto('rateCounters')
    .values({
      accountId,
      bucket: window.bucket,
      windowStart: new Date(windowStart),
      count: 1,
      expiresAt: new Date(windowStart + window.windowMs),
    })
    .onConflict((conflict) => conflict.columns(['accountId', 'bucket', 'windowStart']).doUpdateSet({ count: sql`rate_counters.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow();
  return row.count <= window.limit;
}

export async function purgeExpiredRateCounters(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('rateCounters').where('expiresAt', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
