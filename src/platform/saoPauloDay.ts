/**
 * Days as Brazil counts them (America/Sao_Paulo). Brazil has kept UTC−3 all year since 2019, so a
 * day starts at 03:00 UTC; the gateway keeps no earlier history.
 */
const OFFSET_MS = 3 * 3_600_000;
const DAY_MS = 86_400_000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The instant a day (AAAA-MM-DD) starts; undefined for text that is not a real day (2026-02-30). */
export function dayStart(day: string): Date | undefined {
  if (!DAY_PATTERN.test(day)) return undefined;
  const at = new Date(`${day}T00:00:00-03:00`);
  return Number.isNaN(at.getTime()) || dayOf(at) !== day ? undefined : at;
}

/** The day (AAAA-MM-DD) an instant falls on. */
export function dayOf(at: Date): string {
  return new Date(at.getTime() - OFFSET_MS).toISOString().slice(0, 10);
}

/** The day after (or `days` after) a valid day. */
export function dayAfter(day: string, days = 1): string {
  const start = dayStart(day);
  if (!start) throw new Error(`not a day: ${day}`);
  return dayOf(new Date(start.getTime() + days * DAY_MS));
}

/** An instant in Brazil's local time, ISO 8601 with its offset: 2026-11-25T21:30:00.000-03:00. */
export function saoPauloIso(at: Date): string {
  return `${new Date(at.getTime() - OFFSET_MS).toISOString().slice(0, 23)}-03:00`;
}

/** The minute of Brazil's day an instant falls on: 0 (00:00) to 1439 (23:59). */
export function saoPauloMinuteOfDay(at: Date): number {
  return Math.floor(((((at.getTime() - OFFSET_MS) % DAY_MS) + DAY_MS) % DAY_MS) / 60_000);
}
