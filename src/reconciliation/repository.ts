import { sql } from 'kysely';
import type { Executor } from '../platform/database.js';
import type { MovementKind, ReconciliationDifferenceRow, ReconciliationRunRow, RefundKind } from '../platform/schema.js';

/** A movement as the ledger knows it: `pending` while its outcome at the PSP is not known yet. */
type MovementCommon = {
  /** A payment's end-to-end id; a withdrawal's or refund's id. */
  reference: string;
  /** A refund's end-to-end id, once the network gave it one. */
  endToEndId: string | null;
  accountId: string;
  transactionId: string;
  amountCents: number;
  status: 'settled' | 'failed' | 'pending';
};

/** A refund: the PIX it returns, and whether it is a MED return (to ask the PSP about it by its id). */
export type RefundMovement = MovementCommon & { movement: 'refund'; paymentEndToEndId: string; refundKind: RefundKind };

export type LedgerMovement = (MovementCommon & { movement: Exclude<MovementKind, 'refund'>; paymentEndToEndId: null; refundKind: null }) | RefundMovement;

/**
 * What the ledger holds for a provider over a period: the PIX it received (charges credited by
 * their paid time, payments returned because their charge was not payable any more), the
 * withdrawals it was sent and the refunds it was asked for (by creation time).
 */
export async function ledgerMovements(db: Executor, providerId: string, from: Date, to: Date): Promise<LedgerMovement[]> {
  const { rows } = await sql<LedgerMovement>`
    SELECT 'payment' AS movement, end_to_end_id AS reference, NULL AS "endToEndId", account_id AS "accountId", id AS "transactionId",
           amount_cents AS "amountCents", 'settled' AS status, NULL AS "paymentEndToEndId", NULL AS "refundKind"
      FROM transactions
     WHERE type = 'pix_in' AND provider_id = ${providerId} AND paid_at >= ${from} AND paid_at < ${to} AND end_to_end_id IS NOT NULL
    UNION ALL
    SELECT 'payment', payment_end_to_end_id, NULL, account_id, transaction_id, amount_cents, 'settled', NULL, NULL
      FROM refunds
     WHERE kind = 'returned_payment' AND provider_id = ${providerId} AND created_at >= ${from} AND created_at < ${to}
    UNION ALL
    SELECT 'withdrawal', id::text, NULL, account_id, id, amount_cents,
           CASE WHEN status IN ('paid', 'refunded', 'partially_refunded') THEN 'settled' WHEN status = 'failed' THEN 'failed' ELSE 'pending' END,
           NULL, NULL
      FROM transactions
     WHERE type = 'withdrawal' AND provider_id = ${providerId} AND created_at >= ${from} AND created_at < ${to}
       AND status IN ('processing', 'failed_unknown', 'paid', 'refunded', 'partially_refunded', 'failed')
    UNION ALL
    SELECT 'refund', id::text, refund_end_to_end_id, account_id, transaction_id, amount_cents,
           CASE status WHEN 'refunded' THEN 'settled' WHEN 'failed' THEN 'failed' ELSE 'pending' END,
           payment_end_to_end_id, kind
      FROM refunds
     WHERE provider_id = ${providerId} AND created_at >= ${from} AND created_at < ${to}`.execute(db);
  return rows.map((row) => ({ ...row, amountCents: Number(row.amountCents) }));
}

/** Which of these references the ledger holds at all, in any period (a PSP record near a period's edge belongs to the next one). */
export async function knownReferences(db: Executor, movement: MovementKind, references: string[]): Promise<Set<string>> {
  if (references.length === 0) return new Set();
  const list = sql.join(references);
  const query =
    movement === 'payment'
      ? sql<{ reference: string }>`SELECT end_to_end_id AS reference FROM transactions WHERE end_to_end_id IN (${list})
          UNION SELECT payment_end_to_end_id FROM refunds WHERE kind = 'returned_payment' AND payment_end_to_end_id IN (${list})`
      : movement === 'withdrawal'
        ? sql<{ reference: string }>`SELECT id::text AS reference FROM transactions WHERE id::text IN (${list})`
        : sql<{ reference: string }>`SELECT id::text AS reference FROM refunds WHERE id::text IN (${list})
            UNION SELECT refund_end_to_end_id FROM refunds WHERE refund_end_to_end_id IN (${list})`;
  const { rows } = await query.execute(db);
  return new Set(rows.map((row) => row.reference));
}

export type NewRun = { id: string; providerId: string; periodFrom: Date; periodTo: Date; requestedBy: string; startedAt: Date };

/** A run starts; a scheduled one only once per provider and period (undefined: another worker has it). */
export async function insertRun(db: Executor, run: NewRun): Promise<ReconciliationRunRow | undefined> {
  let query = db
    .insertInto('reconciliationRuns')
    .values({ ...run, status: 'running' })
    .returningAll();
  if (run.requestedBy === 'schedule') {
    // The partial unique index is named by its predicate, which must be written as a literal to be recognized.
    query = query.onConflict((conflict) =>
      conflict
        .columns(['providerId', 'periodFrom'])
        .where(sql<boolean>`requested_by = 'schedule' AND status <> 'failed'`)
        .doNothing(),
    );
  }
  return query.executeTakeFirst();
}

/** A difference as a run finds it; its run and position are given when the run is stored. */
export type NewDifference = Omit<ReconciliationDifferenceRow, 'runId' | 'position'>;

/** A run's outcome: its counts and totals, and every difference, in one transaction of the caller's. */
export async function finishRun(
  db: Executor,
  runId: string,
  outcome: {
    status: 'done' | 'failed';
    matched: number;
    ledgerInCents: number;
    ledgerOutCents: number;
    pspInCents: number;
    pspOutCents: number;
    error: string | null;
    finishedAt: Date;
    differences: NewDifference[];
  },
): Promise<ReconciliationRunRow> {
  const { differences, ...counts } = outcome;
  if (differences.length > 0) {
    await db
      .insertInto('reconciliationDifferences')
      .values(differences.map((difference, position) => ({ ...difference, runId, position })))
      .execute();
  }
  return db
    .updateTable('reconciliationRuns')
    .set({ ...counts, differences: differences.length })
    .where('id', '=', runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listRuns(db: Executor, providerId: string | undefined, limit: number): Promise<ReconciliationRunRow[]> {
  let query = db.selectFrom('reconciliationRuns').selectAll().orderBy('startedAt', 'desc').orderBy('id', 'desc').limit(limit);
  if (providerId) query = query.where('providerId', '=', providerId);
  return query.execute();
}

export function findRun(db: Executor, runId: string): Promise<ReconciliationRunRow | undefined> {
  return db.selectFrom('reconciliationRuns').selectAll().where('id', '=', runId).executeTakeFirst();
}

export function listDifferences(db: Executor, runId: string): Promise<ReconciliationDifferenceRow[]> {
  return db.selectFrom('reconciliationDifferences').selectAll().where('runId', '=', runId).orderBy('position').execute();
}

/** Each provider's latest finished run's differences (metrics). */
export async function latestDifferences(db: Executor): Promise<{ providerId: string; differences: number }[]> {
  const { rows } = await sql<{ providerId: string; differences: number }>`
    SELECT DISTINCT ON (provider_id) provider_id AS "providerId", differences
      FROM reconciliation_runs WHERE status = 'done'
     ORDER BY provider_id, started_at DESC`.execute(db);
  return rows;
}
