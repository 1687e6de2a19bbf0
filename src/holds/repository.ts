import { sql } from 'kysely';
import type { Executor } from '../platform/database.js';

/**
 * The cautionary block's invariants (docs/refunds.md "Cautionary block"), checked by `doctor`
 * with the ledger's: a held charge has its active cautionary block of its net amount (none when
 * its fee took it all); an active cautionary block belongs to a held charge; a returned charge has
 * one settled `cautionary_return` refund of its amount, and its payment's movement and the return's
 * sum to zero in every book. The problems found, empty when all hold.
 */
export async function findHoldProblems(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ problem: string }>`
    SELECT 'held charge ' || t.id || ' has no active cautionary block of its net ' || t.net_cents AS problem
      FROM transactions t
     WHERE t.hold_status = 'held' AND t.net_cents > 0
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.kind = 'cautionary' AND b.transaction_id = t.id AND b.status = 'active' AND b.amount_cents = t.net_cents)
    UNION ALL
    SELECT 'active cautionary block ' || b.id || ' of charge ' || b.transaction_id || ' that is not held'
      FROM blocks b JOIN transactions t ON t.id = b.transaction_id
     WHERE b.kind = 'cautionary' AND b.status = 'active' AND t.hold_status IS DISTINCT FROM 'held'
    UNION ALL
    SELECT 'returned charge ' || t.id || ' without one settled cautionary_return refund of its amount'
      FROM transactions t
     WHERE t.hold_status = 'returned'
       AND (SELECT count(*) FROM refunds r
             WHERE r.transaction_id = t.id AND r.kind = 'cautionary_return' AND r.status = 'refunded' AND r.amount_cents = t.amount_cents) <> 1
    UNION ALL
    SELECT 'returned charge ' || t.id || ': its payment and return leave ' || e.book || ' at ' || sum(e.amount_cents)
      FROM transactions t JOIN ledger_entries e ON e.transaction_id = t.id AND e.kind IN ('charge_paid', 'cautionary_return')
     WHERE t.hold_status = 'returned'
     GROUP BY t.id, e.book
    HAVING sum(e.amount_cents) <> 0`.execute(db);
  return rows.map((row) => row.problem);
}

/** A charge the PSP holds (cautionary block): what Início lists under what needs attention. */
export type HeldCharge = { transactionId: string; netCents: number; heldUntil: Date };

/** The account's held charges, the first to be released first (up to `limit`), and how many there are. */
export async function heldCharges(db: Executor, accountId: string, limit: number): Promise<{ rows: HeldCharge[]; total: number }> {
  const { rows } = await sql<HeldCharge & { total: number }>`
    SELECT id AS transaction_id, net_cents, held_until, count(*) OVER ()::int8 AS total
    FROM transactions WHERE account_id = ${accountId} AND hold_status = 'held'
    ORDER BY held_until, id LIMIT ${limit}`.execute(db);
  return { rows: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}
