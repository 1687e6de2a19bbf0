import { insertAlert } from '../alerts/repository.js';
import { InvalidStateError } from '../errors.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Executor } from '../platform/database.js';
import type { ProviderSendKind, ProviderSendNote, ProviderSendRow } from '../platform/schema.js';
import type { SendTiming } from '../provider/provider.js';
import { decisionNote } from './changes.js';
import { leaseUntil, nextCheckAt } from './policy.js';
import { changeSend, claimDueChecks, claimUnsent } from './repository.js';

type Worker = { db: Db; clock: Clock; timing: SendTiming; kind: ProviderSendKind };

/**
 * Worker step of a kind: its sends with no result whose lease lapsed are claimed for a new attempt.
 * `resend` sends the ones still open and answers null, or answers the status of one that settled
 * with this send's result lost (nothing to send: the send closes). Another attempt or a
 * notification settling it meanwhile (InvalidStateError) is not a failure. Returns how many were claimed.
 */
export async function resendUnsent(worker: Worker, batch: number, resend: (send: ProviderSendRow) => Promise<string | null>): Promise<number> {
  const now = worker.clock.now();
  const claimed = await claimUnsent(worker.db, { kind: worker.kind, limit: batch }, now, leaseUntil(now, worker.timing));
  for (const send of claimed) {
    try {
      const settledAs = await resend(send);
      if (settledAs !== null)
        await changeSend(worker.db, send.id, { state: 'closed', note: decisionNote(now, settledAs), attemptEnded: { reached: false } }, now);
    } catch (error) {
      if (!(error instanceof InvalidStateError)) throw error;
    }
  }
  return claimed.length;
}

/**
 * Worker step of a kind: each send whose check is due is held (no other worker asks at the same
 * time) and handed to `check`; one settled meanwhile (InvalidStateError) is skipped. Returns how
 * many reached an outcome.
 */
export async function checkDue(worker: Worker, batch: number, check: (send: ProviderSendRow) => Promise<boolean>): Promise<number> {
  const now = worker.clock.now();
  const due = await claimDueChecks(worker.db, worker.kind, now, leaseUntil(now, worker.timing), batch);
  let resolved = 0;
  for (const send of due) {
    try {
      if (await check(send)) resolved++;
    } catch (error) {
      if (!(error instanceof InvalidStateError)) throw error;
    }
  }
  return resolved;
}

/**
 * A check that decided nothing: a send whose withdrawal or refund is settled closes (once its watch
 * for a late completion is over); otherwise it is asked about again on the schedule, and the
 * operator is told once, by a high alert of the send's kind, when its 24 hours pass without an
 * outcome (`escalation`: what the alert names besides the send's own counts).
 */
export async function followUp(
  db: Executor,
  send: ProviderSendRow,
  check: {
    note: ProviderSendNote;
    settled: boolean;
    now: Date;
    timing: SendTiming;
    escalation: { transactionId: string; details: Record<string, unknown> };
  },
): Promise<void> {
  const { note, now } = check;
  if (check.settled && (send.state !== 'watching' || now >= send.deadlineAt)) {
    await changeSend(db, send.id, { state: 'closed', note, checks: 'counted' }, now);
    return;
  }
  const escalate = send.state === 'sent' && now >= send.deadlineAt && !send.escalatedAt;
  if (escalate) {
    const { transactionId, details } = check.escalation;
    await insertAlert(db, {
      accountId: send.accountId,
      kind: `${send.kind}_outcome_unknown_24h`,
      transactionId,
      details: { ...details, attempts: send.attempts, checks: send.checks + 1 },
      at: now,
      severity: 'high',
    });
  }
  await changeSend(
    db,
    send.id,
    { state: send.state, note, checks: 'counted', nextCheckAt: nextCheckAt(send, now, check.timing), ...(escalate ? { escalatedAt: now } : {}) },
    now,
  );
}
