import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from './platform/errors.js';
import type { Services } from './services.js';

type Logger = Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'>;

/**
 * Background jobs: webhook delivery, charge expiry, MED defense deadlines and sends left without a result (every second), MED deadline reminders, the simulator's
 * automatic settlement or a PSP's poller, the checks of withdrawals and refunds at the PSP, recurrences' cycles and lapsed requests,
 * orphan charges and orphan recs cancelled at their PSP (every 5 seconds), the daily statements, and housekeeping (every minute). Safe to run in
 * any number of processes: each step claims its rows with SKIP LOCKED or is idempotent.
 */
export function startWorkers(
  services: Services,
  logger: Logger,
  options: { expiryIntervalMs?: number; settlementIntervalMs?: number; reconciliationIntervalMs?: number } = {},
): () => Promise<void> {
  let stopped = false;
  const running = new Set<Promise<unknown>>();
  const timers = new Set<NodeJS.Timeout>();

  const every = (intervalMs: number, name: string, step: () => Promise<unknown>) => {
    const tick = async () => {
      if (stopped) return;
      const endTimer = services.metrics.workerStep.startTimer({ job: name });
      const run = step()
        // A lost database (restart, failover) is expected to pass: the step runs again on its next tick.
        .catch((error: unknown) =>
          isDatabaseUnavailable(error)
            ? logger.warn({ err: error, job: name }, 'worker step skipped: database unavailable')
            : logger.error({ err: error, job: name }, 'worker step failed'),
        )
        .finally(() => endTimer());
      running.add(run);
      await run;
      running.delete(run);
      if (!stopped) timers.add(setTimeout(() => void tick(), intervalMs));
    };
    timers.add(setTimeout(() => void tick(), 0));
  };

  every(options.expiryIntervalMs ?? 1000, 'charge-expiry', async () => {
    // Drain in batches so a backlog clears in one tick without one huge transaction.
    while (!stopped && (await services.charges.expireDueCharges()) > 0);
  });
  // Pix Automático: each authorized recurrence's next cycle gets its charge from 10 to 2 days ahead; unanswered requests lapse.
  every(options.reconciliationIntervalMs ?? 5000, 'recurrence-cycles', async () => {
    while (!stopped && (await services.recurrences.createDueCycles()) + (await services.recurrences.expireAuthorizations()) > 0);
  });
  // Recs left at a provider for recurrences that are over here are cancelled there, with backoff.
  every(options.reconciliationIntervalMs ?? 5000, 'orphan-recurrences', async () => {
    while (!stopped && (await services.recurrences.cancelOrphans()) > 0);
  });
  const { sandbox } = services;
  if (sandbox) {
    every(options.settlementIntervalMs ?? 500, 'sandbox-settlement', async () => {
      while (!stopped && (await sandbox.settleDue()) > 0);
    });
  }
  for (const inbound of services.providerInbound) {
    every(inbound.pollIntervalMs, `psp-poll-${inbound.providerId}`, () => inbound.poll());
  }
  // Charges registered where the answer was lost (a failover) are removed there once the provider answers again.
  every(options.reconciliationIntervalMs ?? 5000, 'orphan-charges', async () => {
    while (!stopped && (await services.charges.removeOrphans()) > 0);
  });
  // Sends whose request lost its result are sent again once their lease lapses; the others are asked about on their schedule.
  every(options.expiryIntervalMs ?? 1000, 'provider-sends', async () => {
    while (!stopped && (await services.withdrawals.sendUnsent()) + (await services.refunds.sendUnsent()) > 0);
  });
  every(options.reconciliationIntervalMs ?? 5000, 'withdrawal-reconciliation', () => services.withdrawals.reconcile());
  every(options.reconciliationIntervalMs ?? 5000, 'refund-reconciliation', () => services.refunds.reconcile());
  // A PSP may hold a received PIX 72 hours at most (Res. BCB 506): a hold it left undecided is released.
  every(options.expiryIntervalMs ?? 1000, 'cautionary-hold-expiry', async () => {
    while (!stopped && (await services.holds.releaseExpired()) > 0);
  });
  every(options.expiryIntervalMs ?? 1000, 'med-defense-deadlines', async () => {
    while (!stopped && (await services.infractions.analyzeOverdue()) > 0);
  });
  // 48 h, 24 h and 6 h before a MED case's defense deadline: the merchant's event and the operators' alert, once each.
  every(options.reconciliationIntervalMs ?? 5000, 'med-deadline-reminders', async () => {
    while (!stopped && (await services.deadlineReminders.remindDue()) > 0);
  });
  // Yesterday's comparison of each PSP's records with the ledger, once (the first worker to look claims it).
  every(60_000, 'reconciliation-daily', () => services.reconciliation.runDaily());
  // Each PSP's money in and out and its reported balance; a low cover raises an alert.
  every(60_000, 'treasury', () => services.treasury.refresh());
  // Each account's days that ended (America/Sao_Paulo) get their statement, in order; a round closes
  // up to 100 accounts' days, the next round the rest.
  every(60_000, 'statements', async () => {
    while (!stopped && (await services.history.closeDays()) > 0);
  });
  every(60_000, 'housekeeping', async () => {
    await services.accounts.purgeExpiredRateCounters();
    await services.transactions.purgeExpiredIdempotencyKeys();
    await services.webhooks.purgeHistory();
  });
  services.webhookDispatcher.start(logger);

  return async () => {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    await Promise.all([...running, services.webhookDispatcher.stop()]);
  };
}
