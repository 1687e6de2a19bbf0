import { sql } from 'kysely';
import type { Executor, Tx } from './database.js';

/**
 * The fixed windows every rate limit counts in (the rate_counters rows' and the withdrawal's on
 * its balance row), each aligned to the epoch by windowBounds: a second, a minute, a UTC hour.
 */
export const FIXED_WINDOW_MS = { second: 1_000, minute: 60_000, hour: 3_600_000 } as const;

/** An account's uses counted in `bucket`, at most `limit` in each fixed window of `windowMs`. */
export type RateWindow = { bucket: string; windowMs: (typeof FIXED_WINDOW_MS)[keyof typeof FIXED_WINDOW_MS]; limit: number };

/** The fixed window `at` falls in, aligned to the epoch (hourly windows are UTC hours); its row expires when it ends. */
export function windowBounds(window: { windowMs: number }, at: Date): { windowStart: Date; expiresAt: Date } {
  const windowStart = Math.floor(at.getTime() / window.windowMs) * window.windowMs;
  return { windowStart: new Date(windowStart), expiresAt: new Date(windowStart + window.windowMs) };
}

/**
 * Counts one use in a fixed window aligned to the epoch (so hourly windows are UTC hours) and
 * says whether it fits. Runs in the caller's transaction: if the guarded write rolls back, so
 * does the count (a refused use throws, so it counts in none); the row lock makes concurrent
 * requests of one account count exactly.
 */
export async function consumeRateLimit(tx: Tx, accountId: string, window: RateWindow, at: Date): Promise<boolean> {
  const counted = await tx
    .insertInto('rateCounters')
    .values({ accountId, bucket: window.bucket, count: 1, ...windowBounds(window, at) })
    .onConflict((conflict) => conflict.columns(['accountId', 'bucket', 'windowStart']).doUpdateSet({ count: sql`rate_counters.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow();
  return counted.count <= window.limit;
}

export async function purgeExpiredRateCounters(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('rateCounters').where('expiresAt', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
