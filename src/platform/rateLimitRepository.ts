import { sql } from 'kysely';
import type { Executor, Tx } from './database.js';

export type RateWindow = { bucket: string; windowMs: number; limit: number };

/** The fixed window `at` falls in, aligned to the epoch (hourly windows are UTC hours); its row expires when it ends. */
export function windowBounds(window: Pick<RateWindow, 'windowMs'>, at: Date): { windowStart: Date; expiresAt: Date } {
  const windowStart = Math.floor(at.getTime() / window.windowMs) * window.windowMs;
  return { windowStart: new Date(windowStart), expiresAt: new Date(windowStart + window.windowMs) };
}

/**
 * Counts one use in a fixed window aligned to the epoch (so hourly windows are UTC hours) and
 * says whether it fits. Runs in the caller's transaction: if the guarded write rolls back, so
 * does the count; the row lock makes concurrent requests of one account count exactly.
 */
export async function consumeRateLimit(tx: Tx, accountId: string, window: RateWindow, at: Date): Promise<boolean> {
  return (await consumeRateLimits(tx, accountId, [window], at)) === undefined;
}

/**
 * Counts one use in several windows at once (one statement) and returns the first window, in the
 * given order, that the use does not fit; undefined when it fits them all.
 */
async function consumeRateLimits<W extends RateWindow>(tx: Tx, accountId: string, windows: readonly W[], at: Date): Promise<W | undefined> {
  const rows = windows.map((window) => ({ accountId, bucket: window.bucket, count: 1, ...windowBounds(window, at) }));
  const counted = await tx
    .insertInto('rateCounters')
    .values(rows)
    .onConflict((conflict) => conflict.columns(['accountId', 'bucket', 'windowStart']).doUpdateSet({ count: sql`rate_counters.count + 1` }))
    .returning(['bucket', 'count'])
    .execute();
  const countByBucket = new Map(counted.map((row) => [row.bucket, row.count]));
  return windows.find((window) => (countByBucket.get(window.bucket) ?? 0) > window.limit);
}

export async function purgeExpiredRateCounters(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('rateCounters').where('expiresAt', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
