import { sql } from 'kysely';
import type { Executor } from '../platform/database.js';
import { windowBounds, type RateWindow } from '../platform/rateLimitRepository.js';
import { CHARGE } from '../transactions/states.js';
import type { ChargeCustomer, DueRecord } from '../platform/schema.js';

export type NewCharge = {
  id: string;
  accountId: string;
  amountCents: number;
  feeCents: number;
  externalRef: string | null;
  customer: ChargeCustomer;
  pixPayload: string;
  location: string;
  expiresAt: Date;
  /** The provider that issued its BR Code. */
  providerId: string;
  /** A charge with a due date: its terms and fee plan; null for an immediate charge. */
  due: Omit<DueRecord, 'paid'> | null;
  createdAt: Date;
};

/** A new charge and the rate window it counts in. */
export type ChargeWrite = { charge: NewCharge; window: RateWindow };

/**
 * Writes new charges (CHARGE.create), each counted in its account's rate window, in one statement
 * (one round trip and one commit for the charges of many requests: platform/grouped.ts). Each
 * window's counter row is counted once for all of its charges, and its lock makes concurrent
 * statements count exactly; the charges that fit its limit are written, in the order given, the
 * others not. Answers, per charge, whether it was written (false: its window is full). A full
 * window's counter is left as it is, so refused requests do not count (and a limit raised within
 * the hour gives room at once).
 */
export async function insertChargesWithinRateLimit(db: Executor, writes: ChargeWrite[]): Promise<boolean[]> {
  const column = <T>(value: (write: ChargeWrite) => T) => writes.map(value);
  const bounds = writes.map(({ charge, window }) => windowBounds(window, charge.createdAt));
  const json = (value: object | null) => (value === null ? null : JSON.stringify(value));
  // A window's uses asked for and its limit, for the counter's update (which sees the row's count before it).
  const askedOf = (field: 'asked' | 'rate_limit') =>
    sql`(SELECT ${sql.ref(`a.${field}`)} FROM asked a WHERE a.account_id = c.account_id AND a.bucket = c.bucket AND a.window_start = c.window_start)`;
  const { rows } = await sql<{ id: string }>`
    WITH item AS (
      SELECT * FROM unnest(${column((write) => write.charge.id)}::uuid[], ${column((write) => write.charge.accountId)}::uuid[],
                           ${column((write) => write.window.bucket)}::text[], ${bounds.map((bound) => bound.windowStart)}::timestamptz[],
                           ${bounds.map((bound) => bound.expiresAt)}::timestamptz[], ${column((write) => write.window.limit)}::int8[],
                           ${column((write) => write.charge.amountCents)}::int8[], ${column((write) => write.charge.feeCents)}::int8[],
                           ${column((write) => write.charge.externalRef)}::text[], ${column((write) => JSON.stringify(write.charge.customer))}::jsonb[],
                           ${column((write) => write.charge.pixPayload)}::text[], ${column((write) => write.charge.location)}::text[],
                           ${column((write) => write.charge.expiresAt)}::timestamptz[], ${column((write) => write.charge.providerId)}::text[],
                           ${column((write) => json(write.charge.due))}::jsonb[], ${column((write) => write.charge.createdAt)}::timestamptz[])
             WITH ORDINALITY AS i(id, account_id, bucket, window_start, window_end, rate_limit, amount_cents, fee_cents, external_ref,
                                  customer, pix_payload, location, expires_at, provider_id, due, created_at, position)
    ), asked AS (
      SELECT account_id, bucket, window_start, max(window_end) AS window_end, min(rate_limit) AS rate_limit, count(*) AS asked
      FROM item GROUP BY account_id, bucket, window_start
    ), counted AS (
      INSERT INTO rate_counters AS c (account_id, bucket, window_start, count, granted, expires_at)
      SELECT account_id, bucket, window_start, least(asked, rate_limit), least(asked, rate_limit), window_end FROM asked
      ON CONFLICT (account_id, bucket, window_start) DO UPDATE
        SET count = least(c.count + ${askedOf('asked')}, ${askedOf('rate_limit')}),
            granted = least(c.count + ${askedOf('asked')}, ${askedOf('rate_limit')}) - c.count
        WHERE c.count < ${askedOf('rate_limit')}
      RETURNING account_id, bucket, window_start, granted
    ), fitting AS (
      SELECT item.*, row_number() OVER (PARTITION BY item.account_id, item.bucket, item.window_start ORDER BY item.position) AS rank
      FROM item
    )
    INSERT INTO transactions (id, account_id, type, status, amount_cents, fee_cents, net_cents, external_ref,
                              customer, pix_payload, location, expires_at, provider_id, due, created_at, updated_at)
    SELECT f.id, f.account_id, ${sql.lit(CHARGE.create.type)}, ${sql.lit(CHARGE.create.to)}, f.amount_cents, f.fee_cents, f.amount_cents - f.fee_cents,
           f.external_ref, f.customer, f.pix_payload, f.location, f.expires_at, f.provider_id, f.due, f.created_at, f.created_at
    FROM fitting f JOIN counted USING (account_id, bucket, window_start)
    WHERE f.rank <= counted.granted
    ORDER BY f.position
    RETURNING id`.execute(db);
  const written = new Set(rows.map((row) => row.id));
  return writes.map(({ charge }) => written.has(charge.id));
}

/** A charge registration whose answer was lost at `providerId`: removed there when it answers again. */
export async function insertOrphanCharge(db: Executor, orphan: { providerId: string; transactionId: string; accountId: string; at: Date }): Promise<void> {
  await db
    .insertInto('orphanCharges')
    .values({ providerId: orphan.providerId, transactionId: orphan.transactionId, accountId: orphan.accountId, nextAttemptAt: orphan.at, createdAt: orphan.at })
    .onConflict((conflict) => conflict.columns(['providerId', 'transactionId']).doNothing())
    .execute();
}

/**
 * Claims orphans due for a removal attempt at the given providers: each one's next attempt moves to
 * `leaseUntil`, so no other worker tries it meanwhile.
 */
export async function claimDueOrphans(db: Executor, providerIds: string[], now: Date, leaseUntil: Date, limit: number) {
  if (providerIds.length === 0) return [];
  const { rows } = await sql<{ providerId: string; transactionId: string; accountId: string; attempts: number }>`
    UPDATE orphan_charges SET next_attempt_at = ${leaseUntil}
    WHERE (provider_id, transaction_id) IN (
      SELECT provider_id, transaction_id FROM orphan_charges
      WHERE removed_at IS NULL AND next_attempt_at <= ${now} AND provider_id IN (${sql.join(providerIds)})
      ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    RETURNING provider_id, transaction_id, account_id, attempts`.execute(db);
  return rows;
}

/** Orphans not removed yet, by provider (metrics). */
export function countOpenOrphans(db: Executor): Promise<{ providerId: string; count: number }[]> {
  return db
    .selectFrom('orphanCharges')
    .select((eb) => ['providerId', eb.fn.countAll<number>().as('count')])
    .where('removedAt', 'is', null)
    .groupBy('providerId')
    .execute();
}

/** The orphan's removal: done (`removedAt`), or tried again at `nextAttemptAt`. */
export async function settleOrphan(
  db: Executor,
  orphan: { providerId: string; transactionId: string },
  result: { removedAt: Date; outcome: 'removed' | 'absent' | 'paid' } | { nextAttemptAt: Date; error: string },
): Promise<void> {
  await db
    .updateTable('orphanCharges')
    .set((eb) =>
      'removedAt' in result
        ? {
            removedAt: result.removedAt,
            attempts: eb('attempts', '+', 1),
            lastError: result.outcome === 'paid' ? 'paid at the provider: returned to its payer' : null,
          }
        : { nextAttemptAt: result.nextAttemptAt, attempts: eb('attempts', '+', 1), lastError: result.error },
    )
    .where('providerId', '=', orphan.providerId)
    .where('transactionId', '=', orphan.transactionId)
    .execute();
}
