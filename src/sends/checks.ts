import type { Executor } from '../platform/database.js';
import type { ProviderSendNote, ProviderSendRow } from '../platform/schema.js';
import type { SendTiming } from '../provider/provider.js';
import { nextCheckAt } from './policy.js';
import { changeSend } from './repository.js';

/**
 * A check that decided nothing: a send whose withdrawal or refund is settled closes (once its watch
 * for a late completion is over); otherwise it is asked about again on the schedule, and the
 * operator is told once when its 24 hours pass without an outcome (`escalate`).
 */
export async function followUp(
  db: Executor,
  send: ProviderSendRow,
  check: { note: ProviderSendNote; settled: boolean; now: Date; timing: SendTiming; escalate: () => Promise<void> },
): Promise<void> {
  const { note, now } = check;
  if (check.settled && (send.state !== 'watching' || now >= send.deadlineAt)) {
    await changeSend(db, send.id, { state: 'closed', note, checks: 'counted' }, now);
    return;
  }
  const escalate = send.state === 'sent' && now >= send.deadlineAt && !send.escalatedAt;
  if (escalate) await check.escalate();
  await changeSend(
    db,
    send.id,
    { state: send.state, note, checks: 'counted', nextCheckAt: nextCheckAt(send, now, check.timing), ...(escalate ? { escalatedAt: now } : {}) },
    now,
  );
}
