import type { ProviderSendRow } from '../platform/schema.js';
import type { SendTiming } from '../provider/provider.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** The spec gives a withdrawal with an unknown outcome 24 hours of reconciliation; past it the operator is told. */
export const OUTCOME_DEADLINE_MS = 24 * HOUR_MS;
/** A send failed because the PSP never received it is still asked about this long, in case it completes late. */
export const WATCH_AFTER_FAILURE_MS = 24 * HOUR_MS;
/** Asking the PSP again: after 10 s, 30 s, 1, 2, 5, 10 and 30 minutes, then every hour. */
const CHECK_DELAYS_MS = [10_000, 30_000, MINUTE_MS, 2 * MINUTE_MS, 5 * MINUTE_MS, 10 * MINUTE_MS, 30 * MINUTE_MS, HOUR_MS];
/** A debit owed after a late completion is tried again this often, until the balance covers it. */
export const OWED_RETRY_MS = MINUTE_MS;

type SendTimes = Pick<ProviderSendRow, 'acknowledged' | 'reachedMaybeAt' | 'attemptStartedAt' | 'checks'>;

/** The start of the latest attempt that may have reached the PSP (an attempt without a recorded result may have). */
function latestReach(send: SendTimes): number | null {
  const times = [send.reachedMaybeAt, send.attemptStartedAt].filter((time): time is Date => time !== null).map((time) => time.getTime());
  return times.length === 0 ? null : Math.max(...times);
}

/**
 * Whether the PSP's "not found" proves that it never received the send: never once it acknowledged
 * it, and only after the provider's settling window since the latest attempt that may have reached
 * it (a send in flight, or queued at the PSP, is not found yet).
 */
export function notFoundIsProof(send: SendTimes, now: Date, timing: SendTiming): boolean {
  if (send.acknowledged) return false;
  const reach = latestReach(send);
  return reach === null || now.getTime() >= reach + timing.settlingWindowMs;
}

/** When to ask the PSP next: the backoff schedule, or the end of the settling window when that comes first. */
export function nextCheckAt(send: SendTimes, now: Date, timing: SendTiming): Date {
  const delay = CHECK_DELAYS_MS[Math.min(send.checks, CHECK_DELAYS_MS.length - 1)] ?? HOUR_MS;
  let next = now.getTime() + delay;
  const reach = latestReach(send);
  if (!send.acknowledged && reach !== null) {
    const windowEnd = reach + timing.settlingWindowMs;
    if (windowEnd > now.getTime() && windowEnd < next) next = windowEnd;
  }
  return new Date(next);
}

/** How long an attempt holds its send: no other process sends it meanwhile, and no attempt starts after it. */
export const leaseUntil = (now: Date, timing: SendTiming) => new Date(now.getTime() + timing.sendBudgetMs);
