import type { Config } from '../config.js';

const DAY_MS = 86_400_000;

/**
 * A MED case's defense deadline (DESIGN.md §19): the PSP's, so the days of the provider that
 * received the charge's PIX (its PROVIDERS_FILE entry's `medDefenseDays`), counted from the
 * opening; MED_DEFENSE_DAYS (5 by default) for a provider that declares none or is no longer
 * configured.
 */
export function defenseDeadlineOf(config: Pick<Config, 'medDefenseDays' | 'providers'>, providerId: string, openedAt: Date): Date {
  const days = config.providers.find((provider) => provider.id === providerId)?.medDefenseDays ?? config.medDefenseDays;
  return new Date(openedAt.getTime() + days * DAY_MS);
}
