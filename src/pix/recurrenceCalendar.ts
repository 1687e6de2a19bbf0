/**
 * The days of a Pix Automático recurrence's cycles (BCB's `periodicidade`), as calendar days
 * AAAA-MM-DD: no time of day, so no time zone. A monthly cycle keeps the start's day of the
 * month, moved back to the month's last day where the month is shorter (a recurrence starting on
 * 31 January falls on 28 or 29 February, then on 31 March).
 */
export type Frequency = 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'annual';

const MONTHS: Record<Exclude<Frequency, 'weekly'>, number> = { monthly: 1, quarterly: 3, semiannual: 6, annual: 12 };

const utc = (day: string): Date => new Date(`${day}T00:00:00Z`);
const text = (at: Date): string => at.toISOString().slice(0, 10);

/** The day of cycle `cycle` (1 = the start day). */
export function cycleDate(startDate: string, frequency: Frequency, cycle: number): string {
  const start = utc(startDate);
  const steps = cycle - 1;
  if (frequency === 'weekly') return text(new Date(start.getTime() + steps * 7 * 86_400_000));
  const months = start.getUTCMonth() + steps * MONTHS[frequency];
  const year = start.getUTCFullYear() + Math.floor(months / 12);
  const month = months % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return text(new Date(Date.UTC(year, month, Math.min(start.getUTCDate(), lastDay))));
}
