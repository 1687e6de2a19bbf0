import { z } from 'zod';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { messages, receivedText } from '../messages.js';
import { isValidCnpj, isValidCpf, normalizeDocument } from '../pix/documents.js';
import { dayStart } from '../platform/saoPauloDay.js';
import { RECURRENCE_FREQUENCIES, RECURRENCE_STATUSES, type RecurrenceFrequency, type RetryPolicy } from '../platform/schema.js';
import { externalRefSchema, listLimitQuery } from '../platform/schemas.js';
import { isId } from '../platform/ids.js';
import type { RecurrenceEventName } from '../webhooks/events.js';

const FREQUENCIES: ReadonlySet<string> = new Set(RECURRENCE_FREQUENCIES);
const RETRY_POLICIES: ReadonlySet<string> = new Set(['none', 'three_in_seven_days']);

const amountField = (message: string) =>
  z
    .number({ error: message })
    .refine((value) => Number.isInteger(value) && value >= 100, message)
    .meta({ type: 'integer', minimum: 100 });

const dayField = (message: string) =>
  z
    .string({ error: message })
    .refine((value) => dayStart(value) !== undefined, message)
    .meta({ description: 'AAAA-MM-DD (America/Sao_Paulo).' });

const debtorSchema = z.object(
  {
    name: z
      .string({ error: messages.recurrenceDebtorNameInvalid })
      .trim()
      .min(1, messages.recurrenceDebtorNameInvalid)
      .max(140, messages.recurrenceDebtorNameInvalid),
    document: z
      .object(
        {
          number: z.string({ error: messages.recurrenceDebtorDocumentInvalid }).transform(normalizeDocument),
          type: z.enum(['cpf', 'cnpj'], { error: messages.recurrenceDebtorDocumentInvalid }),
        },
        { error: messages.recurrenceDebtorDocumentInvalid },
      )
      .refine((document) => (document.type === 'cpf' ? isValidCpf(document.number) : isValidCnpj(document.number)), messages.recurrenceDebtorDocumentInvalid),
    account: z
      .object(
        {
          ispb: z.string({ error: messages.recurrenceDebtorAccountInvalid }).regex(/^[0-9A-Z]{8}$/, messages.recurrenceDebtorAccountInvalid),
          branch: z
            .string({ error: messages.recurrenceDebtorAccountInvalid })
            .regex(/^\d{1,4}$/, messages.recurrenceDebtorAccountInvalid)
            .optional(),
          number: z.string({ error: messages.recurrenceDebtorAccountInvalid }).regex(/^[0-9A-Za-z]{1,20}$/, messages.recurrenceDebtorAccountInvalid),
        },
        { error: messages.recurrenceDebtorAccountInvalid },
      )
      .optional()
      .meta({
        description:
          "The payer's account (BCB's solicrec destinatario: its bank's ISPB, branch, account number), where a PSP sends the authorization request; required by a provider that asks for it (a PSP reached through BCB's API, not the simulator).",
      }),
  },
  { error: messages.recurrenceDebtorNameInvalid },
);

/** POST /v1/recurrences, in the order errors are reported in (docs/errors.md). */
export const createRecurrenceBody = z
  .object(
    {
      contract: z
        .string({ error: messages.recurrenceContractInvalid })
        .trim()
        .min(1, messages.recurrenceContractInvalid)
        .max(35, messages.recurrenceContractInvalid)
        .meta({ description: "The contract's number or code (BCB's vinculo.contrato)." }),
      debtor: debtorSchema.meta({ description: "The payer (BCB's devedor): name, a valid CPF or CNPJ and, for some providers, its account." }),
      object: z
        .string({ error: messages.recurrenceObjectInvalid })
        .trim()
        .min(1, messages.recurrenceObjectInvalid)
        .max(35, messages.recurrenceObjectInvalid)
        .optional()
        .meta({ description: "What is paid, as the payer's app shows it (BCB's vinculo.objeto)." }),
      frequency: z
        .string({ error: (issue) => messages.recurrenceFrequencyInvalid(receivedText(issue.input)) })
        .refine((value): value is RecurrenceFrequency => FREQUENCIES.has(value), {
          error: (issue) => messages.recurrenceFrequencyInvalid(receivedText(issue.input)),
        })
        .meta({ description: "BCB's periodicidade: weekly, monthly, quarterly, semiannual or annual." }),
      amountCents: amountField(messages.chargeAmountInvalid).meta({ description: "Each cycle's amount in cents." }),
      maxAmountCents: amountField(messages.recurrenceMaxAmountInvalid)
        .optional()
        .meta({ description: 'Present: a variable recurrence whose cycles the payer authorizes up to this ceiling. Absent: a fixed value.' }),
      startDate: dayField(messages.recurrenceStartDateInvalid).meta({
        description: 'The first cycle’s day, at least 3 days ahead (AAAA-MM-DD): the payer may authorize until the end of the 3rd day before it.',
      }),
      endDate: dayField(messages.recurrenceEndDateInvalid).optional().meta({ description: 'The last day a cycle may fall on; absent: no end.' }),
      retryPolicy: z
        .string({ error: (issue) => messages.recurrenceRetryPolicyInvalid(receivedText(issue.input)) })
        .refine((value): value is RetryPolicy => RETRY_POLICIES.has(value), {
          error: (issue) => messages.recurrenceRetryPolicyInvalid(receivedText(issue.input)),
        })
        .optional()
        .meta({ description: "BCB's politicaRetentativa: 'none' (NAO_PERMITE, the default) or 'three_in_seven_days' (PERMITE_3R_7D)." }),
      businessDayAdjustment: z.boolean({ error: messages.recurrenceBusinessDayAdjustmentInvalid }).optional().meta({
        description:
          "BCB's ajusteDiaUtil: true moves a cycle that falls on a weekend or a national or bank holiday to the next business day (its dueDate). Default false: calendar days.",
      }),
      externalRef: externalRefSchema,
    },
    { error: messages.bodyNotObject },
  )
  .superRefine((body, context) => {
    if (body.maxAmountCents !== undefined && body.maxAmountCents < body.amountCents) {
      context.addIssue({ code: 'custom', path: ['maxAmountCents'], message: messages.recurrenceCeilingBelowAmount });
    }
    if (body.endDate !== undefined && body.endDate < body.startDate) {
      context.addIssue({ code: 'custom', path: ['endDate'], message: messages.recurrenceEndBeforeStart });
    }
  });
export type CreateRecurrenceBody = z.output<typeof createRecurrenceBody>;

/** PATCH /v1/recurrences/{id}: a variable recurrence's amount for the cycles not charged yet. */
export const changeRecurrenceAmountBody = z.object(
  {
    amountCents: amountField(messages.chargeAmountInvalid).meta({
      description: "The amount of each cycle whose charge is not created yet, up to the recurrence's maxAmountCents. Cycles already charged keep theirs.",
    }),
  },
  { error: messages.bodyNotObject },
);

const cycleSchema = z
  .object({
    cycle: z.int().meta({ description: '1 = the start date.' }),
    transactionId: z.string().nullable().meta({ description: "The cycle's pix_in transaction; null for a skipped cycle." }),
    dueDate: z.string().meta({ description: 'AAAA-MM-DD.' }),
    attemptDate: z.string().meta({ description: 'The day of the next (or last) debit attempt: the due date, then each retry’s.' }),
    failedAttempts: z.int(),
    status: z.string().meta({
      description: "The transaction's status; `skipped` for a cycle reached less than 2 days before its date (no charge, recurrence.cycle_skipped).",
    }),
    amountCents: z.int().nullable().meta({ description: "The transaction's amount; null for a skipped cycle." }),
  })
  .meta({ id: 'RecurrenceCycle' });

const recurrenceFields = {
  id: z.string(),
  providerRecurrenceId: z.string().nullable().meta({ description: "BCB's idRec, once the provider registered it." }),
  status: z.enum(RECURRENCE_STATUSES),
  contract: z.string(),
  debtor: z.object({
    name: z.string(),
    document: z.string(),
    documentType: z.enum(['cpf', 'cnpj']),
    account: z.object({ ispb: z.string(), branch: z.string().nullable(), number: z.string() }).optional(),
  }),
  object: z.string().nullable(),
  frequency: z.enum(RECURRENCE_FREQUENCIES),
  amountCents: z.int().nullable(),
  maxAmountCents: z.int().nullable(),
  startDate: z.string(),
  endDate: z.string().nullable(),
  retryPolicy: z.enum(['none', 'three_in_seven_days']),
  businessDayAdjustment: z.boolean().meta({ description: "BCB's ajusteDiaUtil: cycles falling on a day that is not a business day are due on the next one." }),
  externalRef: z.string().nullable(),
  authorizationExpiresAt: z.int().meta({ description: "Unix milliseconds: the payer's authorization request lapses then." }),
  cancelledBy: z.enum(['merchant', 'payer']).nullable(),
  nextCycleDate: z.string().nullable().meta({ description: 'The day of the next cycle not charged yet; null once there is none.' }),
  createdAt: z.int(),
  updatedAt: z.int(),
};

export const recurrenceSchema = z.object(recurrenceFields).meta({ id: 'Recurrence' });
/** A replay (an externalRef already used): the recurrence as it is now, marked as charges' and withdrawals' replays are. */
export const idempotentRecurrenceSchema = recurrenceSchema.extend({ idempotent: z.literal(true) }).meta({ id: 'IdempotentRecurrence' });
export const recurrenceWithCyclesSchema = z.object({ ...recurrenceFields, cycles: z.array(cycleSchema) }).meta({ id: 'RecurrenceWithCycles' });

export const recurrenceListResponse = z.object({
  recurrences: z.array(recurrenceSchema),
  hasMore: z.boolean().meta({ description: 'More follow: ask again with startingAfter = the last id.' }),
});

export const listRecurrencesQuery = z.object({
  limit: listLimitQuery,
  startingAfter: z
    .string({ error: messages.recurrenceStartingAfterInvalid })
    .optional()
    .refine((value) => value === undefined || isId(value), messages.recurrenceStartingAfterInvalid)
    .meta({ description: 'A recurrence id of this account: the page after it, newest first.' }),
});

export const recurrenceIdParams = z.object({ id: z.string().meta({ description: 'The recurrence id (UUID v7).' }) });
export const cycleParams = recurrenceIdParams.extend({ cycle: z.string().meta({ description: 'The cycle’s number (1 = the start date).' }) });

/** The body of a Pix Automático event (docs/webhooks.md): the recurrence, and the cycle for a retry or a skip. */
export function recurrenceEventBodySchema(name: RecurrenceEventName) {
  return z.object({
    eventId: z.string().meta({ description: 'Same as the X-Svc-Event-Id and webhook-id headers.' }),
    event: z.literal(name),
    ...recurrenceFields,
    ...(name === 'recurrence.retry_scheduled' || name === 'recurrence.cycle_skipped' ? { cycle: cycleSchema } : {}),
    occurredAt: z.int().meta({ description: 'When it happened (Unix milliseconds).' }),
  });
}

/** A recurrence id as the service takes it: a malformed one is a 400, as every other malformed id. */
export const recurrenceIdOf = (id: string): string => {
  if (!isId(id)) throw new InvalidRequestError(messages.recurrenceIdInvalid);
  return id;
};

/** A cycle number as the service takes it: anything but a whole number from 1 is not found. */
export const cycleOf = (cycle: string): number => {
  if (!/^[1-9]\d{0,5}$/.test(cycle)) throw new NotFoundError(messages.recurrenceCycleNotFound);
  return Number(cycle);
};
