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

/**
 * Writes a new charge (CHARGE.create) and counts it in the account's rate window, in one statement (one
 * round trip instead of a transaction of four): the charge is written only if the count fits the
 * limit, and the counter row's lock makes concurrent requests of one account count exactly.
 * Returns false when the window is full. A full window's counter is left as it is, so refused
 * requests do not count (and a limit raised within the hour gives room at once).
 */
export async function insertChargeWithinRateLimit(db: Executor, charge: NewCharge, window: RateWindow): Promise<boolean> {
  const { windowStart, expiresAt: windowEnd } = windowBounds(window, charge.createdAt);
  const inserted = await sql<{ id: string }>`
    WITH counted AS (
      INSERT INTO rate_counters (account_id, bucket, window_start, count, expires_at)
      VALUES (${charge.accountId}, ${window.bucket}, ${windowStart}, 1, ${windowEnd})
      ON CONFLICT (account_id, bucket, window_start) DO UPDATE SET count = rate_counters.count + 1
        WHERE rate_counters.count < ${window.limit}
      RETURNING count
    )
    INSERT INTO transactions (id, account_id, type, status, amount_cents, fee_cents, net_cents, external_ref,
                              customer, pix_payload, location, expires_at, provider_id, due, created_at, updated_at)
    SELECT ${charge.id}::uuid, ${charge.accountId}::uuid, ${sql.lit(CHARGE.create.type)}, ${sql.lit(CHARGE.create.to)}, ${charge.amountCents}::int8, ${charge.feeCents}::int8,
           ${charge.amountCents - charge.feeCents}::int8, ${charge.externalRef}::text, ${JSON.stringify(charge.customer)}::jsonb,
           ${charge.pixPayload}::text, ${charge.location}::text, ${charge.expiresAt}::timestamptz, ${charge.providerId}::text,
           ${charge.due ? JSON.stringify(charge.due) : null}::jsonb, ${charge.createdAt}::timestamptz,
           ${charge.createdAt}::timestamptz
    FROM counted
    WHERE counted.count <= ${window.limit}
    RETURNING id`.execute(db);
  return inserted.rows.length === 1;
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
