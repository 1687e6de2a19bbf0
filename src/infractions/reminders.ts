import { insertAlert } from '../alerts/repository.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import type { InfractionRow, InfractionStatus, ReminderStage } from '../platform/schema.js';
import { recordTransactionEvents } from '../transactions/events.js';
import { lockTransaction } from '../transactions/repository.js';
import { presentInfraction } from './presenter.js';
import * as repository from './repository.js';

const HOUR_MS = 3_600_000;

/** The reminders of a defense deadline, in hours before it, the earliest first (DESIGN.md §19). */
const REMINDER_STAGES = [48, 24, 6] as const satisfies readonly ReminderStage[];

/** Cases whose merchant may still act before the deadline: reminded, and shown in the dashboard's banner. */
const REMINDED_STATUSES = ['open', 'in_defense'] as const satisfies readonly InfractionStatus[];

/** The dashboard's banner shows the cases within the first stage of their deadline. */
const BANNER_WINDOW_MS = REMINDER_STAGES[0] * HOUR_MS;

/**
 * The reminder a case is due at `now`: the latest stage whose window holds the time left (6 h
 * within 6 h, 24 h within 24 h, 48 h within 48 h); null beyond 48 h or once the deadline passed.
 * A case first seen inside a later window (opened with a short deadline, or the workers stopped
 * for a while) gets that stage's reminder alone: the earlier ones it missed would only say less.
 */
export function reminderStageAt(defenseDeadline: Date, now: Date): ReminderStage | null {
  const left = defenseDeadline.getTime() - now.getTime();
  if (left <= 0) return null;
  return [...REMINDER_STAGES].reverse().find((hours) => left <= hours * HOUR_MS) ?? null;
}

/** What the dashboard's banner needs: the nearest deadline among the account's cases within 48 h, and how many there are. */
export type NearDeadlines = { nearest: InfractionRow; total: number };

/**
 * The MED defense deadline's reminders (DESIGN.md §19): 48 h, 24 h and 6 h before a running
 * case's deadline, the event `transaction.dispute_deadline` to the merchant and an alert to the
 * operators, once per stage per case however many workers run (the case's row is claimed with
 * SKIP LOCKED and its `reminded_stage` moves in the same transaction as the event).
 */
export class DeadlineReminderService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Worker step: every case due a reminder gets it, with its event and alert. Returns how many were reminded. */
  async remindDue(batch = 200): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const due = await repository.lockCasesToRemind(tx, REMINDED_STATUSES, REMINDER_STAGES, now, batch);
      let reminders = 0;
      for (const infraction of due) {
        const stage = reminderStageAt(infraction.defenseDeadline, now);
        if (!stage) continue;
        // The case, then its charge: the order every writer of both takes.
        const charge = await lockTransaction(tx, 'pix_in', infraction.transactionId);
        const reminded = await repository.markReminded(tx, infraction.id, stage);
        if (!charge || !reminded) continue;
        const deadlineIn = reminded.defenseDeadline.getTime() - now.getTime();
        const view = presentInfraction(reminded);
        await recordTransactionEvents(tx, [{ name: 'transaction.dispute_deadline', transaction: charge, infraction: view, deadlineIn }], now);
        await insertAlert(tx, {
          accountId: reminded.accountId,
          kind: 'med_defense_deadline',
          transactionId: charge.id,
          // The last reminder leaves hours, not days: someone should look now.
          severity: stage === 6 ? 'high' : 'normal',
          at: now,
          details: { infractionId: reminded.id, stageHours: stage, status: reminded.status, defenseDeadline: view.defenseDeadline, deadlineIn },
        });
        reminders += 1;
      }
      return reminders;
    });
  }

  /** The account's running cases whose deadline is within 48 h, the nearest `limit` first, and how many (Início's attention list). */
  async nearDeadlineCases(accountId: string, limit: number) {
    return repository.nearDeadlines(this.db, accountId, REMINDED_STATUSES, this.clock.now(), BANNER_WINDOW_MS, limit);
  }

  /** The account's running cases whose deadline is within 48 h (the dashboard's banner); null when none. */
  async nearDeadlines(accountId: string): Promise<NearDeadlines | null> {
    const { rows, total } = await repository.nearDeadlines(this.db, accountId, REMINDED_STATUSES, this.clock.now(), BANNER_WINDOW_MS, 1);
    const [nearest] = rows;
    return nearest ? { nearest, total } : null;
  }
}
