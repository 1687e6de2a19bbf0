import type { ProviderCaps } from '../config.js';
import { saoPauloMinuteOfDay } from '../platform/saoPauloDay.js';

/** Which way a PIX goes at its provider: a charge received, or a withdrawal sent. */
export type CapDirection = 'charge' | 'withdrawal';

/** A provider's caps made ready to judge: the night window in minutes of São Paulo's day. */
export type CapRule = {
  caps: ProviderCaps;
  night: { fromMinute: number; toMinute: number; maxCents: number } | null;
};

const minuteOf = (clockTime: string): number => Number(clockTime.slice(0, 2)) * 60 + Number(clockTime.slice(3, 5));

export function capRuleOf(caps: ProviderCaps): CapRule {
  const { night } = caps;
  return { caps, night: night && { fromMinute: minuteOf(night.from), toMinute: minuteOf(night.to), maxCents: night.maxCents } };
}

/** Whether a minute of the day is within the night window [from, to), which may cross midnight (20:00 → 06:00). */
function inNight(night: NonNullable<CapRule['night']>, minute: number): boolean {
  return night.fromMinute < night.toMinute ? minute >= night.fromMinute && minute < night.toMinute : minute >= night.fromMinute || minute < night.toMinute;
}

/**
 * The most one PIX of this direction may carry at the provider at `at` (DESIGN.md §19): the
 * lowest of the caps that apply then; null when none does.
 */
export function capAt(rule: CapRule, direction: CapDirection, at: Date): number | null {
  const always = direction === 'charge' ? rule.caps.maxChargeCents : rule.caps.maxWithdrawalCents;
  const night = rule.night && inNight(rule.night, saoPauloMinuteOfDay(at)) ? rule.night.maxCents : null;
  if (always === null) return night;
  return night === null ? always : Math.min(always, night);
}
