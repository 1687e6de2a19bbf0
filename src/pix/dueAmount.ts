import { addDays, businessDaysBetween, daysBetween, nextBusinessDay } from './bankingDays.js';

/**
 * A charge with a due date (BCB's cobv) and the amount due on each day, as the receiving PSP
 * computes it: Manual de Padrões para Iniciação do Pix, Anexo III (equations 1–14), and the
 * BCB's pix-api 2.9.0 OpenAPI (`CobVValor`, `validadeAposVencimento`). docs/due-charges.md walks through every
 * rule and the cases where BCB's own texts differ.
 */

/** An amount in cents, or a percentage with at most two decimals (2.5 = 2,50%). */
export type DueValue = { amountCents: number } | { percent: number };

export type DueTerms = {
  /** AAAA-MM-DD: paid on or before it (moved past a weekend or holiday), nothing is added. */
  dueDate: string;
  /** Calendar days after the due date during which it can still be paid (BCB's default 30). */
  validityAfterDueDays: number;
  /** Once, in full, from the first business day after the (effective) due date. */
  fine?: DueValue | undefined;
  /** Simple interest per day late: an amount per day, or a percentage per day, month (30 or 21 business days) or year (360 or 252). */
  interest?: (DueValue & { per: 'day' | 'month' | 'year'; days: 'calendar' | 'business' }) | undefined;
  /** Taken off the original on every day. */
  abatement?: DueValue | undefined;
  /** Up to three dates, each with what is taken off when paid by it; or an amount per day paid early. */
  discount?: { until: (DueValue & { date: string })[] } | { perDayEarly: DueValue & { days: 'calendar' | 'business' } } | undefined;
};

/** What a payment on one day owes, in cents: BCB's `componentesValor` and the final amount. */
export type AmountDue = {
  date: string;
  payable: boolean;
  originalCents: number;
  abatementCents: number;
  discountCents: number;
  interestCents: number;
  fineCents: number;
  amountDueCents: number;
};

/** Days per period of a percentage interest rate (MAN eq. 11: n). */
const DAYS_PER = { calendar: { day: 1, month: 30, year: 360 }, business: { day: 1, month: 21, year: 252 } } as const;

/** A percentage as integer hundredths (2.5 → 250): BCB writes them with two decimals. */
export const hundredthsOf = (percent: number): number => Math.round(percent * 100);

/** `percent` of `base` cents, truncated to the cent (BCB truncates every component). */
function percentOf(base: number, percent: number, times = 1): number {
  return Number((BigInt(base) * BigInt(hundredthsOf(percent)) * BigInt(times)) / 10_000n);
}

const valueOn = (base: number, value: DueValue, times = 1): number =>
  'amountCents' in value ? value.amountCents * times : percentOf(base, value.percent, times);

/** The due date, moved to the first business day on or after it. */
const effectiveDueDate = (terms: Pick<DueTerms, 'dueDate'>): string => nextBusinessDay(terms.dueDate);

/**
 * The last day it can be paid, inclusive: the validity counted from the effective due date, and
 * moved to a business day — the OpenAPI's worked examples of `validadeAposVencimento` (the
 * manual's text counts from the original date; docs/due-charges.md).
 */
export const lastPayableDate = (terms: Pick<DueTerms, 'dueDate' | 'validityAfterDueDays'>): string =>
  nextBusinessDay(addDays(effectiveDueDate(terms), terms.validityAfterDueDays));

/** The discount for a payment on `date`, on `base` (the original less the abatement). */
function discountOn(terms: DueTerms, base: number, date: string): number {
  const { discount } = terms;
  if (!discount) return 0;
  if ('until' in discount) {
    // The earliest date (moved to a business day) not before the payment decides (MAN §2.3.2.1).
    const tier = [...discount.until].sort((a, b) => a.date.localeCompare(b.date)).find((entry) => date <= nextBusinessDay(entry.date));
    return tier ? valueOn(base, tier) : 0;
  }
  const { perDayEarly } = discount;
  // Calendar days early count to the original due date (MAN §2.3.2.2); business days to the effective one.
  const daysEarly = perDayEarly.days === 'calendar' ? Math.max(0, daysBetween(date, terms.dueDate)) : businessDaysBetween(date, effectiveDueDate(terms));
  return valueOn(base, perDayEarly, daysEarly);
}

/** Simple interest for `daysLate`, truncated: a percentage's factor to six decimals first (MAN eq. 11). */
function interestOn(interest: NonNullable<DueTerms['interest']>, base: number, daysLate: number): number {
  if ('amountCents' in interest) return interest.amountCents * daysLate;
  const factorMillionths = (BigInt(hundredthsOf(interest.percent)) * BigInt(daysLate) * 100n) / BigInt(DAYS_PER[interest.days][interest.per]);
  return Number((BigInt(base) * factorMillionths) / 1_000_000n);
}

/**
 * The amount due for a payment on `date` (AAAA-MM-DD, America/Sao_Paulo): original − abatement −
 * discount + interest + fine, each part on its own base and truncated to the cent. A payment is
 * late from the first business day after the effective due date (BCB, bacen/pix-api issues 167
 * and 297: a Friday due date paid on the weekend owes nothing); its days late then count from the
 * effective due date, in the interest's kind of days (MAN eq. 9 and 10).
 */
export function amountDueOn(terms: DueTerms, originalCents: number, date: string): AmountDue {
  const abatementCents = terms.abatement ? valueOn(originalCents, terms.abatement) : 0;
  const base = originalCents - abatementCents;
  const effective = effectiveDueDate(terms);
  const businessDaysLate = businessDaysBetween(effective, date);
  const late = businessDaysLate > 0;
  const daysLate = !late ? 0 : terms.interest?.days === 'business' ? businessDaysLate : daysBetween(effective, date);
  // Never the whole base: creation refuses terms that could reach it (BCB calls that an error).
  const discountCents = Math.min(discountOn(terms, base, date), base - 1);
  const interestCents = terms.interest ? interestOn(terms.interest, base, daysLate) : 0;
  // Flat, once late, whatever the interest's kind of days (issue 297).
  const fineCents = terms.fine && late ? valueOn(base, terms.fine) : 0;
  return {
    date,
    payable: date <= lastPayableDate(terms),
    originalCents,
    abatementCents,
    discountCents,
    interestCents,
    fineCents,
    amountDueCents: base - discountCents + interestCents + fineCents,
  };
}
