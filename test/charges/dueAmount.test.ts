import { describe, expect, it } from 'vitest';
import { businessDaysBetween, isBusinessDay, nextBusinessDay } from '../../src/pix/bankingDays.js';
import { amountDueOn, lastPayableDate, type DueTerms } from '../../src/pix/dueAmount.js';

/**
 * The amount due of a charge with a due date, over BCB's rules (Manual de Padrões para Iniciação
 * do Pix, Anexo III; API Pix 2.9.0). "published": the numbers are BCB's own (the manual's
 * examples, the API's `componentesValor` example, the inputs of bacen/pix-api issues 347 and 607
 * with the manual's truncation); the others follow the manual's equations by hand.
 */
type Case = {
  name: string;
  original: number;
  terms: Omit<DueTerms, 'validityAfterDueDays'>;
  date: string;
  expected: { abatement?: number; discount?: number; interest?: number; fine?: number; due: number };
};

const CASES: Case[] = [
  {
    name: 'published (API componentesValor): fine 3% and interest 1% a day, 2 days late',
    original: 10_000,
    terms: { dueDate: '2024-04-15', fine: { percent: 3 }, interest: { percent: 1, per: 'day', days: 'calendar' } },
    date: '2024-04-17',
    expected: { interest: 200, fine: 300, due: 10_500 },
  },
  {
    name: 'published (manual): R$ 100,00 a day paid 3 days early',
    original: 100_000,
    terms: { dueDate: '2020-12-10', discount: { perDayEarly: { amountCents: 10_000, days: 'calendar' } } },
    date: '2020-12-07',
    expected: { discount: 30_000, due: 70_000 },
  },
  {
    name: 'published (manual): the same discount on the due date is none',
    original: 100_000,
    terms: { dueDate: '2020-12-10', discount: { perDayEarly: { amountCents: 10_000, days: 'calendar' } } },
    date: '2020-12-10',
    expected: { due: 100_000 },
  },
  {
    name: 'published (manual): a fixed discount until a date, paid on it',
    original: 100_000,
    terms: { dueDate: '2020-12-15', discount: { until: [{ date: '2020-12-10', amountCents: 30_000 }] } },
    date: '2020-12-10',
    expected: { discount: 30_000, due: 70_000 },
  },
  {
    name: 'published (manual): the same discount the day after its date is none',
    original: 100_000,
    terms: { dueDate: '2020-12-15', discount: { until: [{ date: '2020-12-10', amountCents: 30_000 }] } },
    date: '2020-12-11',
    expected: { due: 100_000 },
  },
  {
    name: 'published (issue 607 + manual): 1% a month, 1 day late, factor truncated to 0.000333',
    original: 3_000_000,
    terms: { dueDate: '2024-09-04', interest: { percent: 1, per: 'month', days: 'calendar' } },
    date: '2024-09-05',
    expected: { interest: 999, due: 3_000_999 },
  },
  {
    name: 'published (issue 347 + manual): due on a Saturday, paid Monday: on time',
    original: 1_000,
    terms: { dueDate: '2021-02-27', interest: { amountCents: 10, per: 'day', days: 'calendar' } },
    date: '2021-03-01',
    expected: { due: 1_000 },
  },
  {
    name: 'published (issue 347 + manual): due on a Saturday, paid Tuesday: one day of interest, not three',
    original: 1_000,
    terms: { dueDate: '2021-02-27', interest: { amountCents: 10, per: 'day', days: 'calendar' } },
    date: '2021-03-02',
    expected: { interest: 10, due: 1_010 },
  },
  {
    name: 'due on Christmas (a Friday), paid the next business day: on time',
    original: 10_000,
    terms: { dueDate: '2020-12-25', fine: { percent: 2 }, interest: { percent: 0.03, per: 'day', days: 'calendar' } },
    date: '2020-12-28',
    expected: { due: 10_000 },
  },
  {
    name: 'due on Christmas, paid a day after the next business day: fine and one day of interest',
    original: 10_000,
    terms: { dueDate: '2020-12-25', fine: { percent: 2 }, interest: { percent: 0.03, per: 'day', days: 'calendar' } },
    date: '2020-12-29',
    expected: { interest: 3, fine: 200, due: 10_203 },
  },
  {
    name: 'abatement 10%, fine 2% and interest 1% a month on the abated base, 10 days late',
    original: 12_345,
    terms: { dueDate: '2024-03-01', abatement: { percent: 10 }, fine: { percent: 2 }, interest: { percent: 1, per: 'month', days: 'calendar' } },
    date: '2024-03-11',
    expected: { abatement: 1_234, interest: 37, fine: 222, due: 11_370 },
  },
  {
    name: '2% a month in business days (21), 6 business days late over a weekend',
    original: 100_000,
    terms: { dueDate: '2024-04-12', interest: { percent: 2, per: 'month', days: 'business' } },
    date: '2024-04-22',
    expected: { interest: 571, due: 100_571 },
  },
  {
    name: '12% a year in calendar days (360), 45 days late',
    original: 50_000,
    terms: { dueDate: '2024-01-10', interest: { percent: 12, per: 'year', days: 'calendar' } },
    date: '2024-02-24',
    expected: { interest: 750, due: 50_750 },
  },
  {
    name: '0.5% a calendar day early, 10 days early',
    original: 20_000,
    terms: { dueDate: '2024-06-20', discount: { perDayEarly: { percent: 0.5, days: 'calendar' } } },
    date: '2024-06-10',
    expected: { discount: 1_000, due: 19_000 },
  },
  {
    name: '0.1% a business day early, a week early',
    original: 100_000,
    terms: { dueDate: '2024-07-12', discount: { perDayEarly: { percent: 0.1, days: 'business' } } },
    date: '2024-07-05',
    expected: { discount: 500, due: 99_500 },
  },
  {
    name: '1% a month, 10 days late: the factor truncated after the days (0.003333)',
    original: 3_000_000,
    terms: { dueDate: '2024-01-10', interest: { percent: 1, per: 'month', days: 'calendar' } },
    date: '2024-01-20',
    expected: { interest: 9_999, due: 3_009_999 },
  },
  {
    name: 'three percentage dates: one on a Sunday holds until Monday, on the base less the abatement',
    original: 25_000,
    terms: {
      dueDate: '2024-03-20',
      abatement: { amountCents: 1_000 },
      discount: {
        until: [
          { date: '2024-03-15', percent: 1 },
          { date: '2024-03-01', percent: 5 },
          { date: '2024-03-10', percent: 3 },
        ],
      },
    },
    date: '2024-03-11',
    expected: { abatement: 1_000, discount: 720, due: 23_280 },
  },
  {
    name: 'interest per business day: a Friday due date paid Saturday owes nothing, not even the fine',
    original: 8_000,
    terms: { dueDate: '2024-08-09', fine: { amountCents: 500 }, interest: { amountCents: 20, per: 'day', days: 'business' } },
    date: '2024-08-10',
    expected: { due: 8_000 },
  },
  {
    name: 'interest per business day: the same paid Tuesday, two business days late',
    original: 8_000,
    terms: { dueDate: '2024-08-09', fine: { amountCents: 500 }, interest: { amountCents: 20, per: 'day', days: 'business' } },
    date: '2024-08-13',
    expected: { interest: 40, fine: 500, due: 8_540 },
  },
  // BCB (bacen/pix-api issues 167 and 297): late from the first business day after the effective due date.
  ...(['2027-08-14', '2027-08-15'] as const).map((date) => ({
    name: `a Friday due date (2027-08-13) paid on the weekend (${date}): on time, neither fine nor interest`,
    original: 10_000,
    terms: { dueDate: '2027-08-13', fine: { percent: 2 }, interest: { amountCents: 10, per: 'day' as const, days: 'calendar' as const } },
    date,
    expected: { due: 10_000 },
  })),
  {
    name: 'a Friday due date paid Monday: late, the fine and 3 calendar days of interest from the due date',
    original: 10_000,
    terms: { dueDate: '2027-08-13', fine: { percent: 2 }, interest: { amountCents: 10, per: 'day', days: 'calendar' } },
    date: '2027-08-16',
    expected: { interest: 30, fine: 200, due: 10_230 },
  },
  {
    name: 'a Friday due date paid Tuesday: the fine and 4 calendar days of interest',
    original: 10_000,
    terms: { dueDate: '2027-08-13', fine: { percent: 2 }, interest: { amountCents: 10, per: 'day', days: 'calendar' } },
    date: '2027-08-17',
    expected: { interest: 40, fine: 200, due: 10_240 },
  },
  {
    name: 'a Friday due date with a fine and no interest, paid Saturday: no fine (the fine does not count calendar days)',
    original: 10_000,
    terms: { dueDate: '2027-08-13', fine: { amountCents: 700 } },
    date: '2027-08-14',
    expected: { due: 10_000 },
  },
  {
    name: 'the same paid Monday: the fine',
    original: 10_000,
    terms: { dueDate: '2027-08-13', fine: { amountCents: 700 } },
    date: '2027-08-16',
    expected: { fine: 700, due: 10_700 },
  },
  {
    name: 'a due date on a Saturday (2027-08-14) paid Monday: on time (moved to Monday)',
    original: 10_000,
    terms: { dueDate: '2027-08-14', fine: { percent: 2 }, interest: { amountCents: 10, per: 'day', days: 'calendar' } },
    date: '2027-08-16',
    expected: { due: 10_000 },
  },
  {
    name: 'a due date on a Saturday paid Tuesday: the fine and one day of interest',
    original: 10_000,
    terms: { dueDate: '2027-08-14', fine: { percent: 2 }, interest: { amountCents: 10, per: 'day', days: 'calendar' } },
    date: '2027-08-17',
    expected: { interest: 10, fine: 200, due: 10_210 },
  },
  {
    name: 'a fine is truncated, never rounded: 2% of R$ 99,99 is R$ 1,99',
    original: 9_999,
    terms: { dueDate: '2024-08-07', fine: { percent: 2 } },
    date: '2024-08-08',
    expected: { fine: 199, due: 10_198 },
  },
  {
    name: 'every part at once: abatement 3.33%, fine 2%, 25% a year in business days (252)',
    original: 41_237,
    terms: { dueDate: '2024-01-10', abatement: { percent: 3.33 }, fine: { percent: 2 }, interest: { percent: 25, per: 'year', days: 'business' } },
    date: '2024-01-17',
    expected: { abatement: 1_373, interest: 197, fine: 797, due: 40_858 },
  },
  {
    name: 'due on Carnival Monday (a bank holiday): Ash Wednesday is the effective due date',
    original: 10_000,
    terms: { dueDate: '2026-02-16', fine: { percent: 2 }, interest: { amountCents: 5, per: 'day', days: 'calendar' } },
    date: '2026-02-18',
    expected: { due: 10_000 },
  },
];

describe('the amount due of a charge with a due date (BCB rules)', () => {
  it.each(CASES)('$name', ({ original, terms, date, expected }) => {
    const due = amountDueOn({ ...terms, validityAfterDueDays: 60 }, original, date);
    expect(due).toEqual({
      date,
      payable: true,
      originalCents: original,
      abatementCents: expected.abatement ?? 0,
      discountCents: expected.discount ?? 0,
      interestCents: expected.interest ?? 0,
      fineCents: expected.fine ?? 0,
      amountDueCents: expected.due,
    });
    expect(due.amountDueCents).toBe(due.originalCents - due.abatementCents - due.discountCents + due.interestCents + due.fineCents);
  });

  it('the last payable day: the validity counts from the effective due date and ends on a business day (the API Pix examples)', () => {
    expect(lastPayableDate({ dueDate: '2020-12-25', validityAfterDueDays: 1 })).toBe('2020-12-29');
    expect(lastPayableDate({ dueDate: '2020-12-25', validityAfterDueDays: 10 })).toBe('2021-01-07');
    expect(lastPayableDate({ dueDate: '2021-08-28', validityAfterDueDays: 5 })).toBe('2021-09-06');
    expect(lastPayableDate({ dueDate: '2024-03-20', validityAfterDueDays: 0 })).toBe('2024-03-20');
    const terms: DueTerms = { dueDate: '2024-03-20', validityAfterDueDays: 2 };
    expect(amountDueOn(terms, 1_000, '2024-03-22').payable).toBe(true);
    expect(amountDueOn(terms, 1_000, '2024-03-23').payable).toBe(false);
  });

  it('a discount never takes the whole amount, whatever the days early', () => {
    const terms: DueTerms = { dueDate: '2024-06-20', validityAfterDueDays: 0, discount: { perDayEarly: { amountCents: 500, days: 'calendar' } } };
    expect(amountDueOn(terms, 2_000, '2024-06-01').amountDueCents).toBe(1);
  });
});

describe('the banking calendar', () => {
  it('knows weekends, national holidays and the bank holidays (Carnival, Corpus Christi)', () => {
    expect(isBusinessDay('2026-11-27')).toBe(true);
    expect(isBusinessDay('2026-11-28')).toBe(false);
    expect(isBusinessDay('2026-11-20')).toBe(false); // Consciência Negra, national since 2024
    expect(isBusinessDay('2026-02-16')).toBe(false);
    expect(isBusinessDay('2026-02-17')).toBe(false);
    expect(isBusinessDay('2026-02-18')).toBe(true);
    expect(isBusinessDay('2026-06-04')).toBe(false);
    expect(isBusinessDay('2026-04-03')).toBe(false); // Good Friday
    expect(nextBusinessDay('2026-12-25')).toBe('2026-12-28');
    expect(businessDaysBetween('2026-12-24', '2026-12-31')).toBe(4);
    expect(businessDaysBetween('2026-12-31', '2026-12-24')).toBe(0);
  });
});
