import { type FIXED_WINDOW_MS } from '../platform/rateLimitRepository.js';
import type { TransactionStatus } from '../platform/schema.js';
import { WITHDRAWAL } from '../transactions/states.js';

/**
 * The rules of money out, in TypeScript names: the limits a new withdrawal is checked against and
 * their order, and what counts toward a cap. The engine's SQL (repository.ts) is rendered from
 * these names; nothing else spells them.
 */

/** A withdrawal's rate windows: the fixed windows every rate limit uses (platform/rateLimitRepository.ts), checked in this order. */
export type RateWindowName = keyof typeof FIXED_WINDOW_MS;
export const RATE_WINDOWS: readonly RateWindowName[] = ['second', 'minute', 'hour'];

/**
 * A reservation's checks, in the order they run: the first it fails refuses it. The spec's three
 * rate messages come first, in its order, then the caps of the UTC day and month, then the
 * spendable balance (available − blocked). `no_balance_row` (a fault: every account has one),
 * `replay` (its externalRef is claimed by another withdrawal) and `late` (the balance row's sums
 * are of a later period: the engine sums its own and runs it again) are the engine's own.
 */
export const RESERVATION_CHECKS = [
  'no_balance_row',
  'replay',
  'rate_second',
  'rate_minute',
  'rate_hour',
  'late',
  'daily_cap',
  'monthly_cap',
  'insufficient_balance',
] as const;
export type ReservationCheck = (typeof RESERVATION_CHECKS)[number];

/** What a merchant is answered when a reservation is refused. */
export type Refusal = Exclude<ReservationCheck, 'no_balance_row' | 'replay' | 'late'>;

/** The check a reservation's statement refused with, read back from its code; undefined for any other code. */
export const reservationCheckOf = (code: string | undefined): ReservationCheck | undefined => RESERVATION_CHECKS.find((check) => check === code);

/**
 * The statuses of a withdrawal that no longer counts toward its account's daily and monthly caps:
 * it failed (its debit came back) or was cancelled before any debit. Every other status counts,
 * from its creation on (debited, or awaiting an operator's approval).
 */
export const NOT_COUNTED_TOWARDS_CAPS: readonly TransactionStatus[] = [WITHDRAWAL.fail.to, WITHDRAWAL.reject.to];

/** 1 while a withdrawal counts toward its account's caps, else 0. */
export const countsTowardsCaps = (status: TransactionStatus): 0 | 1 => (NOT_COUNTED_TOWARDS_CAPS.includes(status) ? 0 : 1);

/** A UTC day and the first day of its month, as `YYYY-MM-DD`: the periods a withdrawal counts in. */
export type WithdrawnPeriod = { day: string; month: string };

/** The UTC day and first day of the UTC month `at` falls in, as the balance row's withdrawn sums name them. */
export function withdrawnPeriods(at: Date): WithdrawnPeriod {
  const day = at.toISOString().slice(0, 10);
  return { day, month: `${day.slice(0, 8)}01` };
}

/** A withdrawal's UTC day and month, summed from its account's withdrawals that count (itself left out). */
export type PeriodSums = { dayCents: number; monthCents: number };
