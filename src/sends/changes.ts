import type { ProviderSendNote, ProviderSendRow } from '../platform/schema.js';
import type { SendTiming } from '../provider/provider.js';
import { nextCheckAt, OWED_RETRY_MS, WATCH_AFTER_FAILURE_MS } from './policy.js';
import type { Acknowledgement, SendChange } from './repository.js';

/**
 * What becomes of a send at each step of docs/providers.md "Unknown outcomes", the same for a
 * withdrawal and a refund: each service applies these with its own status change.
 */

/** The history's note of an attempt that started at `started`. */
export const attemptNote = (started: Date, answer: string, detail?: string): ProviderSendNote => ({
  at: started.toISOString(),
  step: 'send',
  answer,
  ...(detail ? { detail } : {}),
});

/** The history's note of what the gateway decided. */
export const decisionNote = (at: Date, answer: string): ProviderSendNote => ({ at: at.toISOString(), step: 'decision', answer });

/** The PSP took the send: its outcome comes later, asked about on the schedule (recorded with others': `acknowledgeSends`). */
export function acknowledged(send: ProviderSendRow, note: ProviderSendNote, at: Date, timing: SendTiming): Acknowledgement {
  return { id: send.id, note, at, nextCheckAt: nextCheckAt({ ...send, acknowledged: true }, at, timing) };
}

/** No answer, and this attempt (`reached`) or an earlier one may have reached the PSP: asked about from now on. */
export function inDoubt(send: ProviderSendRow, note: ProviderSendNote, attempt: { reached: boolean; started: Date }, at: Date, timing: SendTiming): SendChange {
  const reachedMaybeAt = attempt.reached ? attempt.started : send.reachedMaybeAt;
  return {
    state: 'sent',
    note,
    attemptEnded: { reached: attempt.reached },
    nextCheckAt: nextCheckAt({ ...send, reachedMaybeAt, attemptStartedAt: null }, at, timing),
    onlyFrom: ['unsent'],
  };
}

/** Not found after the settling window: failed, and watched for a late completion. */
export function watchedAfterFailure(send: ProviderSendRow, note: ProviderSendNote, now: Date, timing: SendTiming): SendChange {
  return {
    state: 'watching',
    note: { ...note, detail: 'not found after the settling window' },
    checks: 'reset',
    nextCheckAt: nextCheckAt({ ...send, checks: 0 }, now, timing),
    deadlineAt: new Date(now.getTime() + WATCH_AFTER_FAILURE_MS),
  };
}

/** Completed after its reversal: closed when debited again, otherwise owed with its block. */
export function afterLateCompletion(note: ProviderSendNote, debit: { debited: boolean; blockId: string | null }, at: Date): SendChange {
  return debit.debited
    ? { state: 'closed', note: { ...note, detail: 'completed after the reversal: debited again' }, checks: 'counted' }
    : {
        state: 'owed',
        note: { ...note, detail: 'completed after the reversal: debit owed, amount blocked' },
        checks: 'counted',
        blockId: debit.blockId,
        nextCheckAt: new Date(at.getTime() + OWED_RETRY_MS),
      };
}
