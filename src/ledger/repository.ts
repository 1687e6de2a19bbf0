import { sql, type RawBuilder } from 'kysely';
import type { Db, Executor, Tx } from '../platform/database.js';
import { precompiled } from '../platform/precompiled.js';
import { LimitExceededError } from '../errors.js';
import { messages } from '../messages.js';
import { newId } from '../platform/ids.js';
import { refusalInStatement } from '../platform/errors.js';
import { windowBounds } from '../platform/rateLimitRepository.js';
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
function merchantDeltaOf(movement: Pick<Movement, 'kind' | 'entries'>): number {
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

/** The UTC day and first day of the UTC month `at` falls in, as the balance row's withdrawn sums name them. */
export function withdrawnPeriods(at: Date): WithdrawnPeriod {
  const day = at.toISOString().slice(0, 10);
  return { day, month: `${day.slice(0, 8)}01` };
}

/** A new withdrawal's claim on its account: its rate limits, its caps, and (automatic mode) its debit. */
export type WithdrawalReservation = {
  accountId: string;
  /** The withdrawal's creation: its UTC day and month are the ones it counts in, and the rate windows the ones it falls in. */
  at: Date;
  amountCents: number;
  /** How many withdrawals each fixed window (a second, a minute, a UTC hour) allows. */
  rateLimits: Readonly<Record<RateWindowName, number>>;
  caps: { dailyCents: number; monthlyCents: number };
  /** The debit posted now (automatic mode); null when it waits for an operator (manual mode: counted, not debited). */
  debit: Omit<Movement, 'accountId' | 'at' | 'forbidNegativeBalance'> | null;
};

/** A withdrawal's rate windows, checked in this order (the spec's three messages). */
const RATE_WINDOWS = ['second', 'minute', 'hour'] as const;
export type RateWindowName = (typeof RATE_WINDOWS)[number];
const RATE_WINDOW_MS: Record<RateWindowName, number> = { second: 1_000, minute: 60_000, hour: 3_600_000 };
const isRateWindowName = (name: string): name is RateWindowName => name in RATE_WINDOW_MS;

/** Why a reservation was refused: the first rate window it does not fit, a cap, or the balance. */
export type ReservationRefusal = { rateWindow: RateWindowName } | { cap: 'daily' | 'monthly' } | { balance: 'insufficient' };

/** A withdrawal's UTC day and month, summed from its account's withdrawals (itself left out). */
export type PeriodSums = { dayCents: number; monthCents: number };

/** A UTC day and the first day of its month, as `YYYY-MM-DD`. */
export type WithdrawnPeriod = { day: string; month: string };

/** The values a withdrawal's reservation statement is run with (reservationValues), each one parameter of it. */
export const RESERVATION_VALUES = [
  'accountId',
  'at',
  'day',
  'month',
  'sumsGiven',
  'givenDayCents',
  'givenMonthCents',
  'amountCents',
  'debitCents',
  'secondLimit',
  'minuteLimit',
  'hourLimit',
  'dailyCents',
  'monthlyCents',
  'secondStart',
  'secondBefore',
  'minuteStart',
  'minuteBefore',
  'hourStart',
  'hourBefore',
] as const;
export type ReservationValue = (typeof RESERVATION_VALUES)[number];

/** A reservation's values (withdrawalReservation), with the period's sums when they are `given`. */
export function reservationValues(reservation: WithdrawalReservation, given: PeriodSums | null): Readonly<Record<ReservationValue, unknown>> {
  const { day, month } = withdrawnPeriods(reservation.at);
  // A window's start and the start of the window before it.
  const startsOf = (name: RateWindowName): [Date, Date] => {
    const start = windowBounds({ windowMs: RATE_WINDOW_MS[name] }, reservation.at).windowStart.getTime();
    return [new Date(start), new Date(start - RATE_WINDOW_MS[name])];
  };
  const [[secondStart, secondBefore], [minuteStart, minuteBefore], [hourStart, hourBefore]] = [startsOf('second'), startsOf('minute'), startsOf('hour')];
  return {
    accountId: reservation.accountId,
    at: reservation.at,
    day,
    month,
    sumsGiven: given !== null,
    givenDayCents: given?.dayCents ?? 0,
    givenMonthCents: given?.monthCents ?? 0,
    amountCents: reservation.amountCents,
    debitCents: reservation.debit ? -merchantDeltaOf(reservation.debit) : 0,
    secondLimit: reservation.rateLimits.second,
    minuteLimit: reservation.rateLimits.minute,
    hourLimit: reservation.rateLimits.hour,
    dailyCents: reservation.caps.dailyCents,
    monthlyCents: reservation.caps.monthlyCents,
    secondStart,
    secondBefore,
    minuteStart,
    minuteBefore,
    hourStart,
    hourBefore,
  };
}

/**
 * The SQL of one rate window on the balance row, which keeps its latest window's count and the
 * count of the window before it: the count this withdrawal is checked against (its window's, with
 * it; a window older than those two — a clock behind by more than a window — counts in the one
 * before the latest), and the row's windows after it.
 */
function rateWindowParts(name: RateWindowName, value: (key: ReservationValue) => unknown) {
  const own = sql`${value(`${name}Start`)}::timestamptz`;
  const before = sql`${value(`${name}Before`)}::timestamptz`;
  const latest = sql.ref(`withdraw_${name}_start`);
  const count = sql.ref(`withdraw_${name}_count`);
  const previous = sql.ref(`withdraw_${name}_prev_count`);
  const counted = sql.ref(`${name}_count`);
  return {
    counted: sql`CASE WHEN ${latest} = ${own} THEN ${count} + 1 WHEN ${latest} < ${own} THEN 1 ELSE ${previous} + 1 END AS ${counted}`,
    kept: sql`${latest} = greatest(${latest}, ${own}),
        ${count} = CASE WHEN ${latest} = ${own} THEN verdict.${counted} WHEN ${latest} < ${own} THEN 1 ELSE ${count} END,
        ${previous} = CASE WHEN ${latest} = ${own} THEN ${previous} WHEN ${latest} = ${before} THEN ${count} WHEN ${latest} < ${own} THEN 0 ELSE verdict.${counted} END`,
  };
}

/**
 * A new withdrawal's reservation as the first CTEs of its statement (`locked`, then `claim` when
 * given, `verdict`, `balance`): counts it in the balance row's rate windows and withdrawn sums
 * and takes its debit off the balance (its entries are withdrawalDebits', written in the same
 * database transaction). The balance row is locked first, so the windows, the caps and
 * the spendable balance are read as the last withdrawal of the account committed them. A refusal
 * (reservationRefusalOf) raises an error, which undoes every CTE of the statement: a `claim` (an
 * externalRef's, run after the lock) that returns no row, then a window, a cap or the spendable
 * balance (available − blocked), in that order.
 *
 * When the row's sums already belong to a later day or month than the withdrawal's (it was stamped
 * just before midnight and got the lock after one of the next day, or its process's clock is
 * behind), they say nothing of its own period: it is refused as 'late', and the caller sums that
 * period from the transactions under the row's lock and gives the sums (`given`).
 *
 * Its values are `value`'s (reservationValues, or a statement template's stand-ins for them), each
 * cast where it is used so that one parameter can stand for every use.
 */
export function withdrawalReservation(value: (key: ReservationValue) => unknown, claim?: RawBuilder<unknown>): RawBuilder<unknown> {
  const windows = RATE_WINDOWS.map((name) => rateWindowParts(name, value));
  const [accountId, at, day, month] = [
    sql`${value('accountId')}::uuid`,
    sql`${value('at')}::timestamptz`,
    sql`${value('day')}::date`,
    sql`${value('month')}::date`,
  ];
  const [amountCents, debitCents] = [sql`${value('amountCents')}::int8`, sql`${value('debitCents')}::int8`];
  const sumsGiven = sql`${value('sumsGiven')}::boolean`;
  // The reasons are the statement's own constants: literals, not parameters to bind on every call.
  const refuse = (reason: string) => sql`gateway_refusal(${sql.lit(reason)}::text)`;
  // A sum of a later day or month than the withdrawal's is NULL here: 'late', unless the period's sums are given.
  return sql`locked AS (
      SELECT available_cents - blocked_cents AS spendable_cents,
             CASE WHEN ${sumsGiven} THEN ${value('givenDayCents')}::int8
                  WHEN withdrawn_day = ${day} THEN withdrawn_day_cents WHEN withdrawn_day < ${day} THEN 0 END AS day_cents,
             CASE WHEN ${sumsGiven} THEN ${value('givenMonthCents')}::int8
                  WHEN withdrawn_month = ${month} THEN withdrawn_month_cents WHEN withdrawn_month < ${month} THEN 0 END AS month_cents,
             ${sql.join(windows.map((window) => window.counted))}
      FROM balances WHERE account_id = ${accountId} FOR UPDATE
    )${claim ? sql`, claim AS (${claim})` : sql``}, verdict AS (
      SELECT CASE WHEN locked.spendable_cents IS NULL THEN ${refuse(NO_BALANCE_ROW)}
                  ${claim ? sql`WHEN NOT EXISTS (SELECT 1 FROM claim) THEN ${refuse('replay')}` : sql``}
                  WHEN second_count > ${value('secondLimit')}::int8 THEN ${refuse('rate:second')}
                  WHEN minute_count > ${value('minuteLimit')}::int8 THEN ${refuse('rate:minute')}
                  WHEN hour_count > ${value('hourLimit')}::int8 THEN ${refuse('rate:hour')}
                  WHEN day_cents IS NULL OR month_cents IS NULL THEN ${refuse('late')}
                  WHEN day_cents + ${amountCents} > ${value('dailyCents')}::int8 THEN ${refuse('cap:daily')}
                  WHEN month_cents + ${amountCents} > ${value('monthlyCents')}::int8 THEN ${refuse('cap:monthly')}
                  WHEN ${debitCents} > 0 AND spendable_cents < ${debitCents} THEN ${refuse('balance:insufficient')} END AS refusal,
             second_count, minute_count, hour_count
      FROM (SELECT) AS one LEFT JOIN locked ON true
    ), balance AS (
      UPDATE balances SET
        available_cents = available_cents - ${debitCents},
        withdrawn_day_cents = CASE WHEN withdrawn_day = ${day} THEN withdrawn_day_cents + ${amountCents}
                                   WHEN withdrawn_day < ${day} THEN ${amountCents} ELSE withdrawn_day_cents END,
        withdrawn_day = greatest(withdrawn_day, ${day}),
        withdrawn_month_cents = CASE WHEN withdrawn_month = ${month} THEN withdrawn_month_cents + ${amountCents}
                                     WHEN withdrawn_month < ${month} THEN ${amountCents} ELSE withdrawn_month_cents END,
        withdrawn_month = greatest(withdrawn_month, ${month}),
        ${sql.join(windows.map((window) => window.kept))},
        updated_at = greatest(updated_at, ${at})
      FROM verdict
      WHERE account_id = ${accountId}
      RETURNING 1
    )`;
}

/**
 * The ledger entries of the debits of withdrawals whose reservations (withdrawalReservation) hold,
 * in one insert for a caller's statement; manual mode's reservations debit nothing. They need no
 * `balance` CTE to follow: a reservation that did not move its balance row (no row) raised its
 * refusal, which undoes the statement or the database transaction these entries are written in.
 */
export function withdrawalDebits(reservations: readonly WithdrawalReservation[]): RawBuilder<unknown> {
  const movements = reservations.flatMap(({ debit, accountId, at }) => (debit ? [{ ...debit, accountId, at, movementId: newId() }] : []));
  return entriesInsert(movements, { afterBalance: false });
}

/** The refusal of a reservation that found no balance row: every account has one, so it is a fault, not an answer. */
const NO_BALANCE_ROW = 'no balance row';

/**
 * What a withdrawal's reservation refused, from the error its statement raised: a refusal to
 * answer, 'late' (sums to give), 'replay' (its claim found a still-valid key); undefined when the
 * error is no refusal.
 */
export function reservationRefusalOf(error: unknown): ReservationRefusal | 'late' | 'replay' | undefined {
  const reason = refusalInStatement(error);
  if (reason === undefined || reason === NO_BALANCE_ROW) return undefined;
  if (reason === 'late' || reason === 'replay') return reason;
  const [kind, detail = ''] = reason.split(':', 2);
  if (kind === 'rate' && isRateWindowName(detail)) return { rateWindow: detail };
  if (kind === 'cap') return { cap: detail === 'daily' ? 'daily' : 'monthly' };
  if (kind === 'balance') return { balance: 'insufficient' };
  return undefined;
}

/**
 * Moves a withdrawal's amount in or out of its UTC day's and month's withdrawn sums when it stops
 * or starts counting again (failed, cancelled; paid after its reversal). A sum of another day or
 * month than the withdrawal's is left alone: that withdrawal is not in it.
 */
export async function recountWithdrawn(tx: Tx, change: { accountId: string; createdAt: Date; deltaCents: number }): Promise<void> {
  const { day, month } = withdrawnPeriods(change.createdAt);
  await sql`
    UPDATE balances SET
      withdrawn_day_cents = withdrawn_day_cents + CASE WHEN withdrawn_day = ${day}::date THEN ${change.deltaCents}::int8 ELSE 0 END,
      withdrawn_month_cents = withdrawn_month_cents + CASE WHEN withdrawn_month = ${month}::date THEN ${change.deltaCents}::int8 ELSE 0 END
    WHERE account_id = ${change.accountId}`.execute(tx);
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
  block: { id: string; accountId: string; amountCents: number; reason: string; at: Date; infractionId?: string; kind?: BlockKind },
) {
  await sql`
    WITH block AS (
      INSERT INTO blocks (id, account_id, amount_cents, reason, status, created_at, released_at, infraction_id, kind)
      VALUES (${block.id}, ${block.accountId}, ${block.amountCents}, ${block.reason}, 'active', ${block.at}, NULL, ${block.infractionId ?? null}, ${block.kind ?? 'precautionary'})
      RETURNING account_id, amount_cents
    )
    UPDATE balances SET blocked_cents = balances.blocked_cents + block.amount_cents FROM block WHERE balances.account_id = block.account_id`.execute(db);
}

/** Releases active blocks matching `which` and takes their amounts off the balance row's `blocked_cents`; how many were released. */
async function releaseBlocks(db: Executor, which: { id: string } | { infractionId: string }, at: Date): Promise<number> {
  const match = 'id' in which ? sql`id = ${which.id}` : sql`infraction_id = ${which.infractionId}`;
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
  // The withdrawn sums of the day and month each balance row names, against the withdrawals that count (migration 019).
  const withdrawnMismatch = await sql<{ accountId: string; period: string; keptCents: number; sumCents: number }>`
    SELECT b.account_id, p.period, p.kept_cents, p.sum_cents
    FROM balances b
    CROSS JOIN LATERAL (
      SELECT 'day ' || b.withdrawn_day::text AS period, b.withdrawn_day_cents AS kept_cents,
             (SELECT coalesce(sum(t.amount_cents), 0)::int8 FROM transactions t
              WHERE t.account_id = b.account_id AND t.type = 'withdrawal' AND t.status NOT IN ('failed', 'cancelled')
                AND t.created_at >= b.withdrawn_day::timestamp AT TIME ZONE 'UTC' AND t.created_at < (b.withdrawn_day + 1)::timestamp AT TIME ZONE 'UTC') AS sum_cents
      UNION ALL
      SELECT 'month ' || to_char(b.withdrawn_month, 'YYYY-MM'), b.withdrawn_month_cents,
             (SELECT coalesce(sum(t.amount_cents), 0)::int8 FROM transactions t
              WHERE t.account_id = b.account_id AND t.type = 'withdrawal' AND t.status NOT IN ('failed', 'cancelled')
                AND t.created_at >= b.withdrawn_month::timestamp AT TIME ZONE 'UTC'
                AND t.created_at < (b.withdrawn_month + interval '1 month') AT TIME ZONE 'UTC')
    ) p
    WHERE p.kept_cents <> p.sum_cents`.execute(db);
  for (const row of withdrawnMismatch.rows) {
    problems.push(`account ${row.accountId}: withdrawn sum of ${row.period} is ${row.keptCents} but its withdrawals sum to ${row.sumCents}`);
  }
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
