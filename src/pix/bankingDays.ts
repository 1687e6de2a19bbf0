import Holidays from 'date-holidays';

/**
 * Brazil's banking calendar for the PIX rules that count business days (cobv: a due date moved
 * past a weekend or holiday, interest and discounts per business day). A business day is a
 * weekday that is neither a national holiday nor a bank holiday (Carnival Monday and Tuesday,
 * Corpus Christi), as `date-holidays` lists them for BR. Without the payer's municipality the
 * receiving PSP assumes no state or municipal holidays (Manual de Padrões para Iniciação do Pix,
 * §1.6.6), and so do we. Days are calendar dates, AAAA-MM-DD, with no time zone.
 */
const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

const calendar = new Holidays('BR');
const closedDaysByYear = new Map<number, Set<string>>();

function closedDaysOf(year: number): Set<string> {
  let days = closedDaysByYear.get(year);
  if (!days) {
    const holidays = calendar.getHolidays(year) || [];
    days = new Set(holidays.filter((holiday) => holiday.type === 'public' || holiday.type === 'bank').map((holiday) => holiday.date.slice(0, 10)));
    closedDaysByYear.set(year, days);
  }
  return days;
}

/** The day's number since 1970-01-01; undefined for text that is not a real date (2026-02-30). */
export function dayNumber(day: string): number | undefined {
  const match = DAY_PATTERN.exec(day);
  if (!match) return undefined;
  const at = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(at).toISOString().slice(0, 10) === day ? at / DAY_MS : undefined;
}

function numberOf(day: string): number {
  const number = dayNumber(day);
  if (number === undefined) throw new Error(`not a day: ${day}`);
  return number;
}

/** The date of a day number. */
const dayOfNumber = (number: number): string => new Date(number * DAY_MS).toISOString().slice(0, 10);

/** The day `days` after (negative: before) a date. */
export const addDays = (day: string, days: number): string => dayOfNumber(numberOf(day) + days);

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => numberOf(to) - numberOf(from);

/** A weekday that is not a national or bank holiday. */
export function isBusinessDay(day: string): boolean {
  const weekday = new Date(numberOf(day) * DAY_MS).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !closedDaysOf(Number(day.slice(0, 4))).has(day);
}

/** The day itself when it is a business day, else the first business day after it. */
export function nextBusinessDay(day: string): string {
  let current = day;
  while (!isBusinessDay(current)) current = addDays(current, 1);
  return current;
}

/** Business days in (from, to]: 0 when `to` is not after `from`. */
export function businessDaysBetween(from: string, to: string): number {
  let count = 0;
  for (let current = addDays(from, 1); current <= to; current = addDays(current, 1)) if (isBusinessDay(current)) count++;
  return count;
}
