import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import { windowBounds, type RateWindow } from '../platform/rateLimit.js';
import type { ChargeCustomer, TransactionRow } from '../platform/schema.js';

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
  createdAt: Date;
};

/**
 * Writes a new pending charge and counts it in the account's rate window, in one statement (one
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
                              customer, pix_payload, location, expires_at, created_at, updated_at)
    SELECT ${charge.id}::uuid, ${charge.accountId}::uuid, 'pix_in', 'pending', ${charge.amountCents}::int8, ${charge.feeCents}::int8,
           ${charge.amountCents - charge.feeCents}::int8, ${charge.externalRef}::text, ${JSON.stringify(charge.customer)}::jsonb,
           ${charge.pixPayload}::text, ${charge.location}::text, ${charge.expiresAt}::timestamptz, ${charge.createdAt}::timestamptz,
           ${charge.createdAt}::timestamptz
    FROM counted
    WHERE counted.count <= ${window.limit}
    RETURNING id`.execute(db);
  return inserted.rows.length === 1;
}

/** Locks a charge of the account for a state change. */
export function lockCharge(tx: Tx, accountId: string, transactionId: string) {
  return tx
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', transactionId)
    .where('accountId', '=', accountId)
    .where('type', '=', 'pix_in')
    .forUpdate()
    .executeTakeFirst();
}

export function markChargePaid(
  tx: Tx,
  transactionId: string,
  settlement: { endToEndId: string; payer: TransactionRow['payer']; at: Date },
) {
  return tx
    .updateTable('transactions')
    .set({ status: 'paid', paidAt: settlement.at, endToEndId: settlement.endToEndId, payer: JSON.stringify(settlement.payer), updatedAt: settlement.at })
    .where('id', '=', transactionId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function markChargeExpired(tx: Tx, transactionId: string, at: Date) {
  return tx.updateTable('transactions').set({ status: 'expired', updatedAt: at }).where('id', '=', transactionId).returningAll().executeTakeFirstOrThrow();
}

/** Expires up to `batch` pending charges whose validity elapsed; other workers skip the locked ones. */
export function expireDueCharges(tx: Tx, at: Date, batch: number) {
  return tx
    .updateTable('transactions')
    .set({ status: 'expired', updatedAt: at })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('transactions')
        .select('id')
        .where('type', '=', 'pix_in')
        .where('status', '=', 'pending')
        .where('expiresAt', '<=', at)
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}
