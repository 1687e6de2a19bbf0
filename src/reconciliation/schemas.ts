import { z } from 'zod';
import { messages } from '../messages.js';
import type { ReconciliationDifferenceRow, ReconciliationRunRow } from '../platform/schema.js';

const instant = z.int({ error: messages.reconciliationPeriodInvalid }).min(0, messages.reconciliationPeriodInvalid);

export const runReconciliationBody = z.object(
  {
    providerId: z.string().max(32).optional(),
    from: instant.meta({ description: 'Unix milliseconds, inclusive.' }),
    to: instant.meta({ description: 'Unix milliseconds, exclusive; at most 31 days after from.' }),
  },
  { error: messages.bodyNotObject },
);

export const reconciliationRunSchema = z
  .object({
    runId: z.string(),
    providerId: z.string(),
    from: z.int(),
    to: z.int(),
    requestedBy: z.string().meta({ description: "'schedule' (the daily job), 'admin-token' or 'operator:<id>'." }),
    status: z.enum(['running', 'done', 'failed']),
    matched: z.int(),
    differenceCount: z.int(),
    ledgerInCents: z.int(),
    ledgerOutCents: z.int(),
    pspInCents: z.int(),
    pspOutCents: z.int(),
    error: z.string().nullable().meta({ description: 'Why the PSP could not be read (status failed).' }),
    startedAt: z.int(),
    finishedAt: z.int().nullable(),
  })
  .meta({ id: 'ReconciliationRun' });

export const differenceSchema = z.object({
  kind: z.enum(['missing_at_psp', 'missing_in_ledger', 'amount', 'status']),
  movement: z.enum(['payment', 'withdrawal', 'refund']),
  reference: z.string().meta({ description: "A payment's end-to-end id; a withdrawal's or refund's id." }),
  accountId: z.string().nullable(),
  transactionId: z.string().nullable(),
  ledgerCents: z.int().nullable(),
  pspCents: z.int().nullable(),
  ledgerStatus: z.string().nullable(),
  pspStatus: z.string().nullable(),
});

export function presentRun(run: ReconciliationRunRow): z.infer<typeof reconciliationRunSchema> {
  return {
    runId: run.id,
    providerId: run.providerId,
    from: run.periodFrom.getTime(),
    to: run.periodTo.getTime(),
    requestedBy: run.requestedBy,
    status: run.status,
    matched: run.matched,
    differenceCount: run.differences,
    ledgerInCents: Number(run.ledgerInCents),
    ledgerOutCents: Number(run.ledgerOutCents),
    pspInCents: Number(run.pspInCents),
    pspOutCents: Number(run.pspOutCents),
    error: run.error,
    startedAt: run.startedAt.getTime(),
    finishedAt: run.finishedAt?.getTime() ?? null,
  };
}

export function presentDifference(row: ReconciliationDifferenceRow): z.infer<typeof differenceSchema> {
  return {
    kind: row.kind,
    movement: row.movement,
    reference: row.reference,
    accountId: row.accountId,
    transactionId: row.transactionId,
    ledgerCents: row.ledgerCents === null ? null : Number(row.ledgerCents),
    pspCents: row.pspCents === null ? null : Number(row.pspCents),
    ledgerStatus: row.ledgerStatus,
    pspStatus: row.pspStatus,
  };
}
