import type { RecurrenceCycleRow, RecurrenceRow, TransactionStatus } from '../platform/schema.js';

/** A recurrence as the API and its events show it: times in Unix milliseconds. */
export function presentRecurrence(row: RecurrenceRow) {
  return {
    id: row.id,
    providerRecurrenceId: row.providerRecurrenceId,
    status: row.status,
    contract: row.contract,
    debtor: row.debtor,
    object: row.object,
    frequency: row.frequency,
    amountCents: row.amountCents,
    maxAmountCents: row.maxAmountCents,
    startDate: row.startDate,
    endDate: row.endDate,
    retryPolicy: row.retryPolicy,
    businessDayAdjustment: row.businessDayAdjustment,
    externalRef: row.externalRef,
    authorizationExpiresAt: row.authorizationExpiresAt.getTime(),
    cancelledBy: row.cancelledBy,
    nextCycleDate: row.nextCycleDate,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
}

/** A cycle with its transaction's status and amount (null when skipped: no transaction). */
export type CycleWithCharge = RecurrenceCycleRow & { chargeStatus: TransactionStatus | null; amountCents: number | null };

/** A charged cycle shows its transaction's status; a skipped one `skipped`. */
export function presentCycle(cycle: CycleWithCharge) {
  return {
    cycle: cycle.cycle,
    transactionId: cycle.transactionId,
    dueDate: cycle.dueDate,
    attemptDate: cycle.attemptDate,
    failedAttempts: cycle.failedAttempts,
    status: cycle.chargeStatus ?? cycle.status,
    amountCents: cycle.amountCents,
  };
}

/** A recurrence as presented (the API's object). */
export type RecurrenceView = ReturnType<typeof presentRecurrence>;
/** A cycle as presented (an item of the API's `cycles`). */
export type CycleView = ReturnType<typeof presentCycle>;
