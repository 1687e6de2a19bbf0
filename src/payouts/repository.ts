import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { Db, Executor, Tx } from '../platform/database.js';
import { refusalInStatement } from '../platform/errors.js';
import { statementTemplate } from '../platform/precompiled.js';
import { FIXED_WINDOW_MS, windowBounds } from '../platform/rateLimitRepository.js';
import type { TransactionRow } from '../platform/schema.js';
import { alertsInsert, type NewAlert } from '../alerts/repository.js';
import { findBalance, merchantDeltaOf, withdrawalDebits, type Movement } from '../ledger/repository.js';
import { sendsInsert, type NewSend } from '../sends/repository.js';
import { creationsWithEvents, type TransactionCreation } from '../transactions/repository.js';
import { idempotencyClaim, type IdempotencyScope } from '../transactions/idempotencyRepository.js';
import {
  NOT_COUNTED_TOWARDS_CAPS,
  RATE_WINDOWS,
  RESERVATION_CHECKS,
  reservationCheckOf,
  withdrawnPeriods,
  type PeriodSums,
  type RateWindowName,
  type ReservationCheck,
  type WithdrawnPeriod,
} from './rules.js';

/** A new withdrawal's claim on its account: its rate limits, its caps, and (automatic mode) its debit. */
export type Reservation = {
  accountId: string;
  /** The withdrawal's creation: its UTC day and month are the ones it counts in, and the rate windows the ones it falls in. */
  at: Date;
  amountCents: number;
  /** How many withdrawals each fixed window allows. */
  rateLimits: Readonly<Record<RateWindowName, number>>;
  caps: { dailyCents: number; monthlyCents: number };
  /** The debit posted now (automatic mode); null when it waits for an operator (manual mode: counted, not debited). */
  debit: Omit<Movement, 'accountId' | 'at' | 'forbidNegativeBalance'> | null;
};

/** An externalRef claimed for a new withdrawal, in its account, at the reservation's time. */
export type Claim = { scope: IdempotencyScope; externalRef: string; transactionId: string };

/** A new withdrawal as the engine writes it: its reservation, its externalRef's claim, and the records it writes once the reservation holds. */
export type PayoutWrite = {
  /** The new transaction as it will be read back (transactions/repository.ts, insertValuesOf): what a written withdrawal answers. */
  row: TransactionRow;
  reservation: Reservation;
  claim: Claim | undefined;
  /** The transaction and its events (transactions/transition.ts, transactionCreation). */
  creation: TransactionCreation;
  /** The durable intent to send (automatic mode). */
  send: NewSend | undefined;
  alert: NewAlert | undefined;
};

/** The values a reservation's statement is run with (reservationValues), each one parameter of it. */
const RESERVATION_VALUES = [
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
type ReservationValue = (typeof RESERVATION_VALUES)[number];

/** The claim's own values in a reservation's statement (the account and the time are the reservation's). */
const CLAIM_VALUES = ['scope', 'externalRef', 'transactionId'] as const;
type ClaimValue = (typeof CLAIM_VALUES)[number];
type StatementValue = ReservationValue | ClaimValue;

/** A reservation's values, with the period's sums when they are `given`. */
function reservationValues(reservation: Reservation, given: PeriodSums | null): Readonly<Record<ReservationValue, unknown>> {
  const { day, month } = withdrawnPeriods(reservation.at);
  // A window's start and the start of the window before it.
  const startsOf = (name: RateWindowName): [Date, Date] => {
    const start = windowBounds({ windowMs: FIXED_WINDOW_MS[name] }, reservation.at).windowStart.getTime();
    return [new Date(start), new Date(start - FIXED_WINDOW_MS[name])];
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
 * and takes its debit off the balance (its entries are the ledger's withdrawalDebits, written in
 * the same database transaction). The balance row is locked first, so the windows, the caps and
 * the spendable balance are read as the last withdrawal of the account committed them. The
 * checks are rules.ts's RESERVATION_CHECKS, in their order; a failed one raises its code
 * (gateway_refusal, migration 025), which undoes every CTE of the statement.
 *
 * When the row's sums belong to a later day or month than the withdrawal's (it was stamped just
 * before midnight and got the lock after one of the next day, or its process's clock is behind),
 * they say nothing of its own period: `late`, and the engine sums that period from the
 * transactions under the row's lock and gives the sums.
 *
 * Its values are `value`'s (reservationValues, or a statement template's stand-ins for them), each
 * cast where it is used so that one parameter can stand for every use.
 */
function reservation(value: (key: ReservationValue) => unknown, claim?: RawBuilder<unknown>): RawBuilder<unknown> {
  const windows = RATE_WINDOWS.map((name) => rateWindowParts(name, value));
  const [accountId, at, day, month] = [
    sql`${value('accountId')}::uuid`,
    sql`${value('at')}::timestamptz`,
    sql`${value('day')}::date`,
    sql`${value('month')}::date`,
  ];
  const [amountCents, debitCents] = [sql`${value('amountCents')}::int8`, sql`${value('debitCents')}::int8`];
  const sumsGiven = sql`${value('sumsGiven')}::boolean`;
  const failing: Record<ReservationCheck, RawBuilder<unknown> | undefined> = {
    no_balance_row: sql`locked.spendable_cents IS NULL`,
    replay: claim && sql`NOT EXISTS (SELECT 1 FROM claim)`,
    rate_second: sql`second_count > ${value('secondLimit')}::int8`,
    rate_minute: sql`minute_count > ${value('minuteLimit')}::int8`,
    rate_hour: sql`hour_count > ${value('hourLimit')}::int8`,
    late: sql`day_cents IS NULL OR month_cents IS NULL`,
    daily_cap: sql`day_cents + ${amountCents} > ${value('dailyCents')}::int8`,
    monthly_cap: sql`month_cents + ${amountCents} > ${value('monthlyCents')}::int8`,
    insufficient_balance: sql`${debitCents} > 0 AND spendable_cents < ${debitCents}`,
  };
  // The codes are the statement's own constants: literals, not parameters to bind on every call.
  const checks = RESERVATION_CHECKS.flatMap((check) => {
    const condition = failing[check];
    return condition ? [sql`WHEN ${condition} THEN gateway_refusal(${sql.lit(check)}::text)`] : [];
  });
  // A sum of a later day or month than the withdrawal's is NULL here: `late`, unless the period's sums are given.
  return sql`locked AS (
      SELECT available_cents - blocked_cents AS spendable_cents,
             CASE WHEN ${sumsGiven} THEN ${value('givenDayCents')}::int8
                  WHEN withdrawn_day = ${day} THEN withdrawn_day_cents WHEN withdrawn_day < ${day} THEN 0 END AS day_cents,
             CASE WHEN ${sumsGiven} THEN ${value('givenMonthCents')}::int8
                  WHEN withdrawn_month = ${month} THEN withdrawn_month_cents WHEN withdrawn_month < ${month} THEN 0 END AS month_cents,
             ${sql.join(
               windows.map((window) => window.counted),
               sql`,\n             `,
             )}
      FROM balances WHERE account_id = ${accountId} FOR UPDATE
    )${claim ? sql`, claim AS (${claim})` : sql``}, verdict AS (
      SELECT CASE ${sql.join(checks, sql`\n                  `)} END AS refusal,
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
        ${sql.join(
          windows.map((window) => window.kept),
          sql`,\n        `,
        )},
        updated_at = greatest(updated_at, ${at})
      FROM verdict
      WHERE account_id = ${accountId}
      RETURNING 1
    )`;
}

const claimOf = (value: (key: StatementValue) => unknown) =>
  idempotencyClaim(
    { accountId: value('accountId'), scope: value('scope'), externalRef: value('externalRef'), transactionId: value('transactionId') },
    value('at'),
    'locked',
  );

/** A write's reservation CTEs, with its claim's when it has one. */
function reservationOf(write: PayoutWrite, given: PeriodSums | null): RawBuilder<unknown> {
  const values: Partial<Record<StatementValue, unknown>> = { ...reservationValues(write.reservation, given), ...write.claim };
  const value = (key: StatementValue) => values[key];
  return reservation(value, write.claim && claimOf(value));
}

/**
 * The reservation of one withdrawal of a batch, from one of two templates (with a claim or
 * without), compiled once each: building and compiling the ~300-node statement for each
 * withdrawal was ~10% of its CPU in the gateway.
 */
const reservationTemplates = {
  alone: statementTemplate(RESERVATION_VALUES, (value) => sql`WITH ${reservation(value)} SELECT 1 FROM verdict`),
  claiming: statementTemplate([...RESERVATION_VALUES, ...CLAIM_VALUES], (value) => sql`WITH ${reservation(value, claimOf(value))} SELECT 1 FROM verdict`),
};

function reservationStatement(executor: Executor, write: PayoutWrite): CompiledQuery {
  const values = reservationValues(write.reservation, null);
  return write.claim ? reservationTemplates.claiming(executor, { ...values, ...write.claim }) : reservationTemplates.alone(executor, values);
}

/**
 * What withdrawals whose reservations hold write, as CTEs of one statement (`created` and the
 * events' first, then `entries`, `days`, `send`, `alert`), each one insert for all of them. Every CTE is
 * there even when it writes nothing, so that every batch runs the same prepared statement.
 */
function records(writes: readonly PayoutWrite[]): RawBuilder<unknown> {
  const present = <T>(value: T | undefined): value is T => value !== undefined;
  const debits = withdrawalDebits(writes.map((write) => write.reservation));
  return sql`${creationsWithEvents(writes.map((write) => write.creation))},
    entries AS (${debits.entries}),
    days AS (${debits.days}),
    send AS (${sendsInsert(writes.map((write) => write.send).filter(present))}),
    alert AS (${alertsInsert(writes.map((write) => write.alert).filter(present))})`;
}

/**
 * What the records' statement answers of each withdrawal: its id. The rest of its row is the
 * write's own (`row`), as written: 30 columns sent back cost PostgreSQL their output and the
 * gateway their parsing, on the path every batch waits for.
 */
export type WrittenId = { id: string };

/**
 * How long a statement of a batch waits for a lock (an account's balance row held by another
 * transaction) before that withdrawal leaves the batch to be written alone.
 */
const BATCH_LOCK_TIMEOUT = '100ms';

/**
 * A batch's statements, for one transaction: the lock timeout, each withdrawal's reservation (that
 * of `writes[i]` is statement i + 1), then one statement that writes the records of them all and
 * answers their ids. Run without the camelCase plugin: the SQL names its columns in snake_case
 * already, and the plugin's pass rebuilt each of its ~300 nodes on every call.
 */
export function batchStatements(db: Db, writes: readonly PayoutWrite[]): CompiledQuery[] {
  const unplugged = db.withoutPlugins();
  return [
    sql`SET LOCAL lock_timeout = ${sql.lit(BATCH_LOCK_TIMEOUT)}`.compile(unplugged),
    ...writes.map((write) => reservationStatement(unplugged, write)),
    sql<WrittenId>`WITH ${records(writes)} SELECT created.id FROM created`.compile(unplugged),
  ];
}

/** The position of a write's reservation among batchStatements' statements. */
export const reservationPosition = (index: number): number => index + 1;

/**
 * One withdrawal in one statement, without BEGIN or COMMIT: its reservation (with the period's
 * sums when `given`), then its records, answering its id. A failed check raises its code.
 */
export function aloneStatement(db: Executor, write: PayoutWrite, given: PeriodSums | null): CompiledQuery<WrittenId> {
  return sql<WrittenId>`
    WITH ${reservationOf(write, given)}, ${records([write])}
    SELECT created.id FROM created, verdict`.compile(db.withoutPlugins());
}

/** Runs aloneStatement: the withdrawal's id once written; a failed check throws its code (statementRefusalOf). */
export async function writeAlone(db: Executor, write: PayoutWrite, given: PeriodSums | null): Promise<WrittenId | undefined> {
  const { rows } = await db.withoutPlugins().executeQuery(aloneStatement(db, write, given));
  return rows[0];
}

/** The check a reservation's statement refused with, from the error it raised; undefined when the error is no refusal. */
export const statementRefusalOf = (error: unknown): ReservationCheck | undefined => reservationCheckOf(refusalInStatement(error));

/** Locks an account's balance row for the rest of the transaction. */
export async function lockBalanceRow(tx: Tx, accountId: string): Promise<void> {
  await findBalance(tx, accountId, { lock: true });
}

/** The statuses that count toward the caps, as SQL: a withdrawal `t` that counts. */
const countsTowardsCapsSql = (t: string) =>
  sql`${sql.ref(`${t}.type`)} = 'withdrawal' AND ${sql.ref(`${t}.status`)} NOT IN (${sql.join(NOT_COUNTED_TOWARDS_CAPS.map((status) => sql.lit(status)))})`;

/**
 * The account's withdrawals that count toward the caps, summed for one UTC day and its month,
 * `excluding` one (the withdrawal being decided): what the balance row's sums hold, for a period
 * they no longer hold.
 */
export async function sumWithdrawalsOfPeriod(tx: Tx, accountId: string, period: WithdrawnPeriod, excluding: string): Promise<PeriodSums> {
  const { rows } = await sql<PeriodSums>`
    SELECT coalesce(sum(t.amount_cents) FILTER (WHERE t.created_at >= ${period.day}::date::timestamp AT TIME ZONE 'UTC'
                                                 AND t.created_at < (${period.day}::date + 1)::timestamp AT TIME ZONE 'UTC'), 0)::int8 AS day_cents,
           coalesce(sum(t.amount_cents), 0)::int8 AS month_cents
    FROM transactions t
    WHERE t.account_id = ${accountId} AND ${countsTowardsCapsSql('t')} AND t.id <> ${excluding}
      AND t.created_at >= ${period.month}::date::timestamp AT TIME ZONE 'UTC' AND t.created_at < (${period.month}::date + interval '1 month') AT TIME ZONE 'UTC'`.execute(
    tx,
  );
  return rows[0] ?? { dayCents: 0, monthCents: 0 };
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

/** The engine's invariant: each balance row's withdrawn sums of the day and month it names, against the withdrawals that count. */
export async function findWithdrawnSumProblems(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ accountId: string; period: string; keptCents: number; sumCents: number }>`
    SELECT b.account_id, p.period, p.kept_cents, p.sum_cents
    FROM balances b
    CROSS JOIN LATERAL (
      SELECT 'day ' || b.withdrawn_day::text AS period, b.withdrawn_day_cents AS kept_cents,
             (SELECT coalesce(sum(t.amount_cents), 0)::int8 FROM transactions t
              WHERE t.account_id = b.account_id AND ${countsTowardsCapsSql('t')}
                AND t.created_at >= b.withdrawn_day::timestamp AT TIME ZONE 'UTC' AND t.created_at < (b.withdrawn_day + 1)::timestamp AT TIME ZONE 'UTC') AS sum_cents
      UNION ALL
      SELECT 'month ' || to_char(b.withdrawn_month, 'YYYY-MM'), b.withdrawn_month_cents,
             (SELECT coalesce(sum(t.amount_cents), 0)::int8 FROM transactions t
              WHERE t.account_id = b.account_id AND ${countsTowardsCapsSql('t')}
                AND t.created_at >= b.withdrawn_month::timestamp AT TIME ZONE 'UTC'
                AND t.created_at < (b.withdrawn_month + interval '1 month') AT TIME ZONE 'UTC')
    ) p
    WHERE p.kept_cents <> p.sum_cents`.execute(db);
  return rows.map((row) => `account ${row.accountId}: withdrawn sum of ${row.period} is ${row.keptCents} but its withdrawals sum to ${row.sumCents}`);
}
