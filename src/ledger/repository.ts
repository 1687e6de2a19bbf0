import { sql, type RawBuilder } from 'kysely';
import type { Db, Executor, Tx } from '../platform/database.js';
import { precompiled } from '../platform/precompiled.js';
import { LimitExceededError } from '../errors.js';
import { messages } from '../messages.js';
import { newId } from '../platform/ids.js';
import type { BlockKind, LedgerBook } from '../platform/schema.js';

export type Movement = {
  accountId: string;
  kind: string;
  transactionId?: string | null;
  memo?: string | null;
  at: Date;
  entries: { book: LedgerBook; amountCents: number }[];
  /** Refuse the movement (return null) if it would take the merchant's balance below zero (a credit always passes: it may top up a balance a chargeback left negative). */
  forbidNegativeBalance?: boolean;
};

/** What a movement does to the merchant's balance (its merchant entries); an unbalanced movement is a bug, never written. */
export function merchantDeltaOf(movement: Pick<Movement, 'kind' | 'entries'>): number {
  const total = movement.entries.reduce((sum, entry) => sum + entry.amountCents, 0);
  if (total !== 0) throw new Error(`unbalanced movement ${movement.kind}: entries sum to ${total}`);
  return movement.entries.filter((entry) => entry.book === 'merchant').reduce((sum, entry) => sum + entry.amountCents, 0);
}

/**
 * The entries of movements, in their order, as one insert (a CTE of the caller's statement); with
 * `afterBalance`, written only when the statement's `balance` CTE moved the balance row.
 */
function entriesInsert(movements: readonly (Omit<Movement, 'forbidNegativeBalance'> & { movementId: string })[], options: { afterBalance: boolean }) {
  const entries = movements.flatMap((movement) => movement.entries.map((entry) => ({ movement, entry })));
  const column = <T>(value: (entry: (typeof entries)[number]) => T) => entries.map(value);
  return sql`
      INSERT INTO ledger_entries (account_id, movement_id, book, kind, transaction_id, amount_cents, memo, created_at)
      SELECT e.account_id, e.movement_id, e.book, e.kind, e.transaction_id, e.amount_cents, e.memo, e.at
      FROM ${options.afterBalance ? sql`balance, ` : sql``}unnest(${column(({ movement }) => movement.accountId)}::uuid[], ${column(({ movement }) => movement.movementId)}::uuid[],
                  ${column(({ entry }) => entry.book)}::text[], ${column(({ movement }) => movement.kind)}::text[],
                  ${column(({ movement }) => movement.transactionId ?? null)}::uuid[], ${column(({ entry }) => entry.amountCents)}::int8[],
                  ${column(({ movement }) => movement.memo ?? null)}::text[], ${column(({ movement }) => movement.at)}::timestamptz[])
           WITH ORDINALITY AS e(account_id, movement_id, book, kind, transaction_id, amount_cents, memo, at, position)
      ORDER BY e.position`;
}

/**
 * Writes one balanced movement and moves the merchant's balance row by its merchant entries,
 * inside the caller's transaction. Returns the new available balance, or null when refused
 * (`forbidNegativeBalance`). A balance that would leave the range where cents are exact
 * (±2^53−1) is refused with a LimitExceededError: nothing is written.
 */
export async function postMovement(tx: Tx, movement: Movement): Promise<{ movementId: string; availableCents: number } | null> {
  const merchantDelta = merchantDeltaOf(movement);
  const movementId = newId();
  // One statement (one round trip): the balance row moves, and the entries are written only if it did.
  const { rows } = await sql<{ availableCents: number }>`
    WITH balance AS (
      UPDATE balances SET available_cents = available_cents + ${merchantDelta}, updated_at = ${movement.at}
      WHERE account_id = ${movement.accountId} AND (NOT ${movement.forbidNegativeBalance ?? false}::boolean OR ${merchantDelta}::int8 >= 0 OR available_cents + ${merchantDelta} >= 0)
        AND available_cents + ${merchantDelta} BETWEEN ${sql.lit(-Number.MAX_SAFE_INTEGER)} AND ${sql.lit(Number.MAX_SAFE_INTEGER)}
      RETURNING available_cents
    ), entries AS (${entriesInsert([{ ...movement, movementId }], { afterBalance: true })})
    SELECT available_cents FROM balance`.execute(tx);
  const balance = rows[0];
  if (balance) return { movementId, availableCents: balance.availableCents };
  if (!Number.isSafeInteger((await findAvailable(tx, movement.accountId)) + merchantDelta)) {
    throw new LimitExceededError(messages.balanceOutOfRange(Number.MAX_SAFE_INTEGER));
  }
  return null;
}

/**
 * The ledger entries of the debits of new withdrawals, in one insert for a caller's statement (the
 * payout engine's); a reservation without a debit (manual mode) writes none. They need no
 * `balance` CTE to follow: the engine's reservation moved the balance row in the same transaction,
 * or raised its refusal, which undoes them.
 */
export function withdrawalDebits(
  reservations: readonly { accountId: string; at: Date; debit: Omit<Movement, 'accountId' | 'at' | 'forbidNegativeBalance'> | null }[],
): RawBuilder<unknown> {
  const movements = reservations.flatMap(({ debit, accountId, at }) => (debit ? [{ ...debit, accountId, at, movementId: newId() }] : []));
  return entriesInsert(movements, { afterBalance: false });
}

const availableOf = precompiled((db, accountId: string) => db.selectFrom('balances').select('availableCents').where('accountId', '=', accountId));

/** The gross balance alone, to tell why a movement was refused. */
async function findAvailable(db: Executor, accountId: string): Promise<number> {
  const [row] = await availableOf(db, accountId);
  if (!row) throw new Error(`balance row missing for account ${accountId}`);
  return row.availableCents;
}

const balanceColumns = (db: Db, accountId: string) => db.selectFrom('balances').select(['availableCents', 'blockedCents']).where('accountId', '=', accountId);
const balanceRow = precompiled((db, accountId: string) => balanceColumns(db, accountId));
const lockedBalanceRow = precompiled((db, accountId: string) => balanceColumns(db, accountId).forUpdate());

/** The balance row: gross and blocked (the sum of active blocks, kept with them); `lock` holds the row (FOR UPDATE) for a check-then-debit. */
export async function findBalance(
  db: Executor,
  accountId: string,
  options: { lock?: boolean } = {},
): Promise<{ availableCents: number; blockedCents: number }> {
  const [row] = await (options.lock ? lockedBalanceRow : balanceRow)(db, accountId);
  if (!row) throw new Error(`balance row missing for account ${accountId}`);
  return { availableCents: row.availableCents, blockedCents: row.blockedCents };
}

/**
 * A new active block, and the balance row's `blocked_cents` grown by its amount, in one statement:
 * the balance row always holds the sum of the account's active blocks (one read for the balance).
 */
export async function insertBlock(
  db: Executor,
  block: { id: string; accountId: string; amountCents: number; reason: string; at: Date; infractionId?: string; kind?: BlockKind; transactionId?: string },
) {
  await sql`
    WITH block AS (
      INSERT INTO blocks (id, account_id, amount_cents, reason, status, created_at, released_at, infraction_id, kind, transaction_id)
      VALUES (${block.id}, ${block.accountId}, ${block.amountCents}, ${block.reason}, 'active', ${block.at}, NULL, ${block.infractionId ?? null}, ${block.kind ?? 'precautionary'}, ${block.transactionId ?? null})
      RETURNING account_id, amount_cents
    )
    UPDATE balances SET blocked_cents = balances.blocked_cents + block.amount_cents FROM block WHERE balances.account_id = block.account_id`.execute(db);
}

/** Releases active blocks matching `which` and takes their amounts off the balance row's `blocked_cents`; how many were released. */
async function releaseBlocks(db: Executor, which: { id: string } | { infractionId: string } | { cautionaryOf: string }, at: Date): Promise<number> {
  const match =
    'id' in which
      ? sql`id = ${which.id}`
      : 'infractionId' in which
        ? sql`infraction_id = ${which.infractionId}`
        : sql`kind = 'cautionary' AND transaction_id = ${which.cautionaryOf}`;
  const { rows } = await sql<{ accountId: string }>`
    WITH released AS (
      UPDATE blocks SET status = 'released', released_at = ${at} WHERE ${match} AND status = 'active' RETURNING account_id, amount_cents
    ), per_account AS (
      SELECT account_id, sum(amount_cents) AS amount_cents FROM released GROUP BY account_id
    )
    UPDATE balances SET blocked_cents = balances.blocked_cents - per_account.amount_cents
    FROM per_account WHERE balances.account_id = per_account.account_id
    RETURNING balances.account_id`.execute(db);
  return rows.length;
}

/** Releases an active block; false when it does not exist or was already released. */
export async function releaseBlock(db: Executor, blockId: string, at: Date): Promise<boolean> {
  return (await releaseBlocks(db, { id: blockId }, at)) > 0;
}

/** Releases the block a MED case holds (when the case closes). */
export async function releaseBlockOfInfraction(tx: Tx, infractionId: string, at: Date): Promise<void> {
  await releaseBlocks(tx, { infractionId }, at);
}

/** Releases the cautionary block of a held charge (released, or consumed by its return); false when it has none active. */
export async function releaseCautionaryBlock(tx: Tx, transactionId: string, at: Date): Promise<boolean> {
  return (await releaseBlocks(tx, { cautionaryOf: transactionId }, at)) > 0;
}

/** The sum of the account's active cautionary blocks: received PIX the PSP holds (part of `blocked`). */
export async function findHeldCents(db: Executor, accountId: string): Promise<number> {
  const { rows } = await sql<{ cents: number }>`
    SELECT coalesce(sum(amount_cents), 0)::int8 AS cents FROM blocks WHERE account_id = ${accountId} AND status = 'active' AND kind = 'cautionary'`.execute(db);
  return rows[0]?.cents ?? 0;
}

/** The account's blocks, active first, then the latest released. */
export function listBlocks(db: Executor, accountId: string, limit: number) {
  return db
    .selectFrom('blocks')
    .selectAll()
    .where('accountId', '=', accountId)
    .orderBy(sql`status = 'active'`, 'desc')
    .orderBy('createdAt', 'desc')
    .limit(limit)
    .execute();
}

export function findBlock(db: Executor, blockId: string) {
  return db.selectFrom('blocks').selectAll().where('id', '=', blockId).executeTakeFirst();
}

/** Ledger invariants (DESIGN.md §4): the problems found, empty when all hold. */
export async function findLedgerProblems(db: Executor): Promise<string[]> {
  const problems: string[] = [];
  const total = await db
    .selectFrom('ledgerEntries')
    .select(sql<number>`coalesce(sum(amount_cents), 0)`.as('total'))
    .executeTakeFirstOrThrow();
  if (total.total !== 0) problems.push(`ledger entries sum to ${total.total}, not 0`);

  const unbalanced = await db
    .selectFrom('ledgerEntries')
    .select(['movementId', sql<number>`sum(amount_cents)`.as('total')])
    .groupBy('movementId')
    .having(sql`sum(amount_cents)`, '<>', 0)
    .execute();
  for (const row of unbalanced) problems.push(`movement ${row.movementId} sums to ${row.total}`);

  const mismatched = await db
    .selectFrom('balances as b')
    .select([
      'b.accountId',
      'b.availableCents',
      (eb) =>
        eb
          .selectFrom('ledgerEntries as e')
          .select(sql<number>`coalesce(sum(e.amount_cents), 0)`.as('sum'))
          .whereRef('e.accountId', '=', 'b.accountId')
          .where('e.book', '=', 'merchant')
          .as('entriesCents'),
      (eb) =>
        eb
          .selectFrom('ledgerEntries as e')
          .select(sql<number>`coalesce(-sum(e.amount_cents), 0)`.as('sum'))
          .whereRef('e.accountId', '=', 'b.accountId')
          .where('e.book', '=', 'merchant')
          // Net of the chargebacks whose MED return failed and came back.
          .where('e.kind', 'in', ['chargeback', 'chargeback_reversal'])
          .as('chargebacksCents'),
    ])
    .execute();
  const blockedMismatch = await sql<{ accountId: string; blockedCents: number; activeCents: number }>`
    SELECT b.account_id, b.blocked_cents, coalesce(a.active_cents, 0)::int8 AS active_cents
    FROM balances b LEFT JOIN (SELECT account_id, sum(amount_cents) AS active_cents FROM blocks WHERE status = 'active' GROUP BY account_id) a USING (account_id)
    WHERE b.blocked_cents <> coalesce(a.active_cents, 0)`.execute(db);
  for (const row of blockedMismatch.rows) {
    problems.push(`account ${row.accountId}: blocked ${row.blockedCents} but active blocks sum to ${row.activeCents}`);
  }
  for (const row of mismatched) {
    if (row.availableCents !== (row.entriesCents ?? 0)) {
      problems.push(`account ${row.accountId}: balance ${row.availableCents} but merchant entries sum to ${row.entriesCents}`);
    }
    // Only a MED chargeback may take a balance below zero, and never deeper than the chargebacks themselves.
    if (row.availableCents < 0 && -row.availableCents > (row.chargebacksCents ?? 0)) {
      problems.push(`account ${row.accountId}: negative balance ${row.availableCents} beyond its chargebacks (${row.chargebacksCents ?? 0})`);
    }
  }
  return problems;
}

/** One movement as the merchant's history shows it: what it did to the balance, and the fee it carried. */
export type MerchantMovement = {
  /** The merchant entry's id: the ledger's posting order, and a keyset cursor. */
  entryId: number;
  movementId: string;
  kind: string;
  transactionId: string | null;
  memo: string | null;
  at: Date;
  /** Signed: a credit is positive. */
  amountCents: number;
  /** The fee the movement took (0 when none); a fee refunded is negative. */
  feeCents: number;
};

/** Where a read of movements resumes: after this entry, in (time, entry id) order. */
export type MovementPosition = { at: Date; entryId: number };

/**
 * The account's movements of the merchant book with `from <= at < to`, in posting order (time,
 * then entry id), `limit` at a time after `after`: a keyset on migration 018's index, so each read
 * is one range scan whatever its depth.
 */
export async function merchantMovements(
  db: Executor,
  accountId: string,
  period: { from: Date; to: Date },
  page: { after: MovementPosition | undefined; limit: number },
): Promise<MerchantMovement[]> {
  const after = page.after ? sql`AND (m.created_at, m.id) > (${page.after.at}, ${page.after.entryId})` : sql``;
  const { rows } = await sql<MerchantMovement>`
    SELECT m.id AS entry_id, m.movement_id, m.kind, m.transaction_id, m.memo, m.created_at AS at, m.amount_cents,
           coalesce((SELECT sum(f.amount_cents) FROM ledger_entries f WHERE f.movement_id = m.movement_id AND f.book = 'fees'), 0)::int8 AS fee_cents
    FROM ledger_entries m
    WHERE m.account_id = ${accountId} AND m.book = 'merchant' AND m.created_at >= ${period.from} AND m.created_at < ${period.to} ${after}
    ORDER BY m.created_at, m.id
    LIMIT ${page.limit}`.execute(db);
  return rows;
}

/** The merchant balance as the ledger had it at `at` (entries before it): one index range scan. */
export async function merchantBalanceAt(db: Executor, accountId: string, at: Date): Promise<number> {
  const { rows } = await sql<{ cents: number }>`
    SELECT coalesce(sum(amount_cents), 0)::int8 AS cents FROM ledger_entries
    WHERE account_id = ${accountId} AND book = 'merchant' AND created_at < ${at}`.execute(db);
  return rows[0]?.cents ?? 0;
}

/** A block placed or released within a period. */
export type BlockEvent = { blockId: string; at: Date; event: 'placed' | 'released'; amountCents: number; reason: string };

/** The account's blocks placed or released with `from <= at < to`, in time order. */
export async function blockEvents(db: Executor, accountId: string, period: { from: Date; to: Date }): Promise<BlockEvent[]> {
  const { rows } = await sql<BlockEvent>`
    SELECT id AS block_id, created_at AS at, 'placed' AS event, amount_cents, reason FROM blocks
    WHERE account_id = ${accountId} AND created_at >= ${period.from} AND created_at < ${period.to}
    UNION ALL
    SELECT id, released_at, 'released', amount_cents, reason FROM blocks
    WHERE account_id = ${accountId} AND released_at >= ${period.from} AND released_at < ${period.to}
    ORDER BY at, block_id, event DESC`.execute(db);
  return rows;
}

/** The sum of the account's blocks active at `at` (placed before it, not released before it). */
export async function blockedAt(db: Executor, accountId: string, at: Date): Promise<number> {
  const { rows } = await sql<{ cents: number }>`
    SELECT coalesce(sum(amount_cents), 0)::int8 AS cents FROM blocks
    WHERE account_id = ${accountId} AND created_at < ${at} AND (released_at IS NULL OR released_at >= ${at})`.execute(db);
  return rows[0]?.cents ?? 0;
}
