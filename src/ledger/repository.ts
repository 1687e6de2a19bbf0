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
 * The daily summary's rows of movements (migration 040) as one upsert, a CTE of the same statement
 * as their entries (and so of their transaction): each movement's merchant credits and debits,
 * summed per account and America/Sao_Paulo day. With `afterBalance`, written only when the
 * statement's `balance` CTE moved the balance row; a day's row is thus only updated by a holder of
 * the account's balance row lock, in (account, day) order. The arrays' lengths change nothing of
 * the text: a movement without merchant entries counts 0.
 */
function dailyUpsert(movements: readonly Pick<Movement, 'accountId' | 'at' | 'entries'>[], options: { afterBalance: boolean }) {
  const merchant = (movement: (typeof movements)[number], sign: 1 | -1) =>
    movement.entries.filter((entry) => entry.book === 'merchant' && entry.amountCents * sign > 0).reduce((sum, entry) => sum + entry.amountCents * sign, 0);
  return sql`
      INSERT INTO ledger_days (account_id, day, credited_cents, debited_cents)
      SELECT d.account_id, (d.at AT TIME ZONE 'America/Sao_Paulo')::date, sum(d.credited), sum(d.debited)
      FROM ${options.afterBalance ? sql`balance, ` : sql``}unnest(${movements.map((movement) => movement.accountId)}::uuid[], ${movements.map((movement) => movement.at)}::timestamptz[],
                  ${movements.map((movement) => merchant(movement, 1))}::int8[], ${movements.map((movement) => merchant(movement, -1))}::int8[])
           AS d(account_id, at, credited, debited)
      WHERE d.credited <> 0 OR d.debited <> 0
      GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (account_id, day) DO UPDATE SET credited_cents = ledger_days.credited_cents + excluded.credited_cents,
        debited_cents = ledger_days.debited_cents + excluded.debited_cents`;
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
  const inRange = sql`available_cents + ${merchantDelta} BETWEEN ${sql.lit(-Number.MAX_SAFE_INTEGER)} AND ${sql.lit(Number.MAX_SAFE_INTEGER)}`;
  const entries = entriesInsert([{ ...movement, movementId }], { afterBalance: true });
  const days = dailyUpsert([movement], { afterBalance: true });
  // One statement (one round trip): the balance row moves, and the entries are written only if it did.
  // A credit also tops up the blocks of running MED cases that lack money (DESIGN.md §19), from
  // what it makes withdrawable: `old` locks the row first so `top` is computed on its latest version.
  const { rows } =
    merchantDelta > 0
      ? await sql<{ availableCents: number; topCents: number }>`
    WITH old AS (
      SELECT least(shortfall_cents, greatest(0, available_cents + ${merchantDelta} - blocked_cents)) AS top_cents
      FROM balances WHERE account_id = ${movement.accountId} FOR UPDATE
    ), balance AS (
      UPDATE balances SET available_cents = available_cents + ${merchantDelta}, blocked_cents = blocked_cents + old.top_cents,
        shortfall_cents = shortfall_cents - old.top_cents, updated_at = ${movement.at}
      FROM old WHERE account_id = ${movement.accountId} AND ${inRange}
      RETURNING available_cents, old.top_cents
    ), entries AS (${entries}), days AS (${days})
    SELECT available_cents, top_cents FROM balance`.execute(tx)
      : await sql<{ availableCents: number; topCents: number }>`
    WITH balance AS (
      UPDATE balances SET available_cents = available_cents + ${merchantDelta}, updated_at = ${movement.at}
      WHERE account_id = ${movement.accountId} AND (NOT ${movement.forbidNegativeBalance ?? false}::boolean OR ${merchantDelta}::int8 >= 0 OR available_cents + ${merchantDelta} >= 0)
        AND ${inRange}
      RETURNING available_cents
    ), entries AS (${entries}), days AS (${days})
    SELECT available_cents, 0::int8 AS top_cents FROM balance`.execute(tx);
  const balance = rows[0];
  if (balance) {
    if (balance.topCents > 0) await topUpCaseBlocks(tx, movement.accountId, balance.topCents);
    return { movementId, availableCents: balance.availableCents };
  }
  if (!Number.isSafeInteger((await findAvailable(tx, movement.accountId)) + merchantDelta)) {
    throw new LimitExceededError(messages.balanceOutOfRange(Number.MAX_SAFE_INTEGER));
  }
  return null;
}

/**
 * Spreads `topCents`, already counted in the balance row's `blocked_cents`, over the blocks of the
 * account's running MED cases that lack money, the oldest case first. A statement of its own, run
 * under the balance row's lock: its snapshot sees every case block committed before that lock.
 */
async function topUpCaseBlocks(db: Executor, accountId: string, topCents: number): Promise<void> {
  await sql`
    WITH lacking AS (
      SELECT b.id, i.amount_cents - b.amount_cents AS lack,
             sum(i.amount_cents - b.amount_cents) OVER (ORDER BY b.created_at, b.id) AS through
      FROM blocks b JOIN infractions i ON i.id = b.infraction_id
      WHERE b.account_id = ${accountId} AND b.status = 'active' AND i.amount_cents > b.amount_cents
    )
    UPDATE blocks SET amount_cents = blocks.amount_cents + least(l.lack, ${topCents}::int8 - (l.through - l.lack))
    FROM lacking l WHERE blocks.id = l.id AND l.through - l.lack < ${topCents}::int8`.execute(db);
}

/**
 * The ledger entries of the debits of new withdrawals, and their days in the daily summary, as two
 * CTEs for a caller's statement (the payout engine's); a reservation without a debit (manual mode)
 * writes none. They need no
 * `balance` CTE to follow: the engine's reservation moved the balance row in the same transaction,
 * or raised its refusal, which undoes them.
 */
export function withdrawalDebits(
  reservations: readonly { accountId: string; at: Date; debit: Omit<Movement, 'accountId' | 'at' | 'forbidNegativeBalance'> | null }[],
): { entries: RawBuilder<unknown>; days: RawBuilder<unknown> } {
  const movements = reservations.flatMap(({ debit, accountId, at }) => (debit ? [{ ...debit, accountId, at, movementId: newId() }] : []));
  return { entries: entriesInsert(movements, { afterBalance: false }), days: dailyUpsert(movements, { afterBalance: false }) };
}

const availableOf = precompiled((db, accountId: string) => db.selectFrom('balances').select('availableCents').where('accountId', '=', accountId));

/** The gross balance alone, to tell why a movement was refused. */
async function findAvailable(db: Executor, accountId: string): Promise<number> {
  const [row] = await availableOf(db, accountId);
  if (!row) throw new Error(`balance row missing for account ${accountId}`);
  return row.availableCents;
}

const balanceColumns = (db: Db, accountId: string) =>
  db.selectFrom('balances').select(['availableCents', 'blockedCents', 'shortfallCents']).where('accountId', '=', accountId);
const balanceRow = precompiled((db, accountId: string) => balanceColumns(db, accountId));
const lockedBalanceRow = precompiled((db, accountId: string) => balanceColumns(db, accountId).forUpdate());

/**
 * The balance row: gross, blocked (the sum of active blocks, kept with them) and what running MED
 * cases' blocks still lack; `lock` holds the row (FOR UPDATE) for a check-then-debit.
 */
export async function findBalance(
  db: Executor,
  accountId: string,
  options: { lock?: boolean } = {},
): Promise<{ availableCents: number; blockedCents: number; shortfallCents: number }> {
  const [row] = await (options.lock ? lockedBalanceRow : balanceRow)(db, accountId);
  if (!row) throw new Error(`balance row missing for account ${accountId}`);
  return { availableCents: row.availableCents, blockedCents: row.blockedCents, shortfallCents: row.shortfallCents };
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

/**
 * The block of a MED case: it holds `heldCents` now (what was withdrawable, up to the case's
 * amount) and the rest of the case's amount is the balance row's shortfall, which later credits
 * top up (DESIGN.md §19). One statement, like `insertBlock`.
 */
export async function insertCaseBlock(
  db: Executor,
  block: { id: string; accountId: string; infractionId: string; caseCents: number; heldCents: number; reason: string; at: Date },
): Promise<void> {
  await sql`
    WITH block AS (
      INSERT INTO blocks (id, account_id, amount_cents, reason, status, created_at, released_at, infraction_id, kind)
      VALUES (${block.id}, ${block.accountId}, ${block.heldCents}, ${block.reason}, 'active', ${block.at}, NULL, ${block.infractionId}, 'precautionary')
      RETURNING account_id, amount_cents
    )
    UPDATE balances SET blocked_cents = balances.blocked_cents + block.amount_cents,
      shortfall_cents = balances.shortfall_cents + ${block.caseCents - block.heldCents}::int8
    FROM block WHERE balances.account_id = block.account_id`.execute(db);
}

/**
 * Releases active blocks matching `which` and takes their amounts off the balance row's
 * `blocked_cents`, and what a MED case's block still lacked off its `shortfall_cents`; what the
 * release makes withdrawable then tops up other running cases' short blocks. How many balance rows
 * moved. The balance rows are locked first, the order a topping-up credit takes.
 */
async function releaseBlocks(db: Executor, which: { id: string } | { infractionId: string } | { cautionaryOf: string }, at: Date): Promise<number> {
  const match =
    'id' in which
      ? sql`b.id = ${which.id}`
      : 'infractionId' in which
        ? sql`b.infraction_id = ${which.infractionId}`
        : sql`b.kind = 'cautionary' AND b.transaction_id = ${which.cautionaryOf}`;
  await sql`SELECT 1 FROM balances WHERE account_id IN (SELECT b.account_id FROM blocks b WHERE ${match} AND b.status = 'active') FOR UPDATE`.execute(db);
  const { rows } = await sql<{ accountId: string }>`
    WITH released AS (
      UPDATE blocks b SET status = 'released', released_at = ${at}
      WHERE ${match} AND b.status = 'active'
      RETURNING b.account_id, b.amount_cents, coalesce((SELECT i.amount_cents FROM infractions i WHERE i.id = b.infraction_id) - b.amount_cents, 0) AS lack_cents
    ), per_account AS (
      SELECT account_id, sum(amount_cents) AS amount_cents, sum(lack_cents) AS lack_cents FROM released GROUP BY account_id
    )
    UPDATE balances SET blocked_cents = balances.blocked_cents - per_account.amount_cents, shortfall_cents = balances.shortfall_cents - per_account.lack_cents
    FROM per_account WHERE balances.account_id = per_account.account_id
    RETURNING balances.account_id`.execute(db);
  for (const { accountId } of rows) await topUpFromWithdrawable(db, accountId);
  return rows.length;
}

/**
 * Tops up the account's short MED blocks from what is withdrawable now (after a release), on the
 * balance row its caller locked; nothing when no case lacks money or nothing is withdrawable.
 */
async function topUpFromWithdrawable(db: Executor, accountId: string): Promise<void> {
  const { rows } = await sql<{ topCents: number }>`
    UPDATE balances SET blocked_cents = blocked_cents + t.top_cents, shortfall_cents = shortfall_cents - t.top_cents
    FROM (SELECT least(shortfall_cents, greatest(0, available_cents - blocked_cents)) AS top_cents FROM balances WHERE account_id = ${accountId}) t
    WHERE account_id = ${accountId} AND t.top_cents > 0
    RETURNING t.top_cents`.execute(db);
  const [topped] = rows;
  if (topped) await topUpCaseBlocks(db, accountId, topped.topCents);
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
  // A running MED case's block holds at most the case's amount; what it lacks is the balance row's shortfall.
  const shortfallMismatch = await sql<{ accountId: string; shortfallCents: number; lackCents: number }>`
    SELECT b.account_id, b.shortfall_cents, coalesce(l.lack_cents, 0)::int8 AS lack_cents
    FROM balances b LEFT JOIN (
      SELECT k.account_id, sum(i.amount_cents - k.amount_cents) AS lack_cents
      FROM blocks k JOIN infractions i ON i.id = k.infraction_id WHERE k.status = 'active' GROUP BY k.account_id
    ) l USING (account_id)
    WHERE b.shortfall_cents <> coalesce(l.lack_cents, 0)`.execute(db);
  for (const row of shortfallMismatch.rows) {
    problems.push(`account ${row.accountId}: shortfall ${row.shortfallCents} but running cases' blocks lack ${row.lackCents}`);
  }
  // The daily summary (migration 040) is the ledger's merchant entries summed per day, nothing else.
  const dayMismatch = await sql<{
    accountId: string;
    day: string;
    summaryCredited: number | null;
    summaryDebited: number | null;
    ledgerCredited: number | null;
    ledgerDebited: number | null;
  }>`
    SELECT coalesce(s.account_id, l.account_id) AS account_id, coalesce(s.day, l.day)::text AS day,
           s.credited_cents AS summary_credited, s.debited_cents AS summary_debited, l.credited_cents AS ledger_credited, l.debited_cents AS ledger_debited
    FROM ledger_days s FULL JOIN (
      SELECT account_id, (created_at AT TIME ZONE 'America/Sao_Paulo')::date AS day,
             coalesce(sum(amount_cents) FILTER (WHERE amount_cents > 0), 0)::int8 AS credited_cents,
             coalesce(-sum(amount_cents) FILTER (WHERE amount_cents < 0), 0)::int8 AS debited_cents
      FROM ledger_entries WHERE book = 'merchant' AND amount_cents <> 0 GROUP BY 1, 2
    ) l ON l.account_id = s.account_id AND l.day = s.day
    WHERE s.credited_cents IS DISTINCT FROM l.credited_cents OR s.debited_cents IS DISTINCT FROM l.debited_cents`.execute(db);
  for (const row of dayMismatch.rows) {
    problems.push(
      `account ${row.accountId}, day ${row.day}: summary credited ${row.summaryCredited ?? 0} and debited ${row.summaryDebited ?? 0} but merchant entries credited ${row.ledgerCredited ?? 0} and debited ${row.ledgerDebited ?? 0}`,
    );
  }
  const overfull = await sql<{ blockId: string }>`
    SELECT k.id AS block_id FROM blocks k JOIN infractions i ON i.id = k.infraction_id WHERE k.amount_cents > i.amount_cents`.execute(db);
  for (const row of overfull.rows) problems.push(`block ${row.blockId} holds more than its MED case`);
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

/** What the merchant entries credited and debited on each day from `first` to `last` (AAAA-MM-DD, America/Sao_Paulo) that moved money: the daily summary's rows, one primary-key range scan. */
export async function dailySums(
  db: Executor,
  accountId: string,
  first: string,
  last: string,
): Promise<{ day: string; creditedCents: number; debitedCents: number }[]> {
  const { rows } = await sql<{ day: string; creditedCents: number; debitedCents: number }>`
    SELECT day::text AS day, credited_cents, debited_cents FROM ledger_days
    WHERE account_id = ${accountId} AND day BETWEEN ${first}::date AND ${last}::date ORDER BY day`.execute(db);
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
