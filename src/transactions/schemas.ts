import { z } from 'zod';
import { messages } from '../messages.js';
import {
  CARRIES_DEADLINE_IN,
  CARRIES_INFRACTION,
  CARRIES_REFUND,
  INFRACTION_OPTIONAL,
  SETTLEMENT_FIELDS,
  type TransactionEventName,
} from '../webhooks/events.js';
import { isId } from '../platform/ids.js';
import { listLimitQuery, partySchema, unixMillisQuery } from '../platform/schemas.js';
import { CHARGE_STATUSES, WITHDRAWAL_STATUSES, type TransactionStatus, type TransactionType } from '../platform/schema.js';

const TRANSACTION_STATUSES: ReadonlySet<string> = new Set([...CHARGE_STATUSES, ...WITHDRAWAL_STATUSES]);

const dueValueView = { amountCents: z.int().optional(), percent: z.number().optional() };

/** A charge with a due date: its terms as created, and what its payment was made of once paid. */
const dueSchema = z
  .object({
    dueDate: z.string().meta({ description: 'AAAA-MM-DD.' }),
    validityAfterDueDays: z.int(),
    lastPayableDate: z.string().meta({ description: 'AAAA-MM-DD, inclusive (America/Sao_Paulo).' }),
    originalAmountCents: z.int().meta({ description: 'The amount it was created with; amountCents becomes the amount paid.' }),
    fine: z.object(dueValueView).optional(),
    interest: z.object({ ...dueValueView, per: z.enum(['day', 'month', 'year']), days: z.enum(['calendar', 'business']) }).optional(),
    abatement: z.object(dueValueView).optional(),
    discount: z
      .object({
        until: z.array(z.object({ date: z.string(), ...dueValueView })).optional(),
        perDayEarly: z.object({ ...dueValueView, days: z.enum(['calendar', 'business']) }).optional(),
      })
      .optional(),
    paid: z
      .object({ date: z.string(), abatementCents: z.int(), discountCents: z.int(), interestCents: z.int(), fineCents: z.int() })
      .optional()
      .meta({ description: "Once paid: the day (America/Sao_Paulo) and the parts of the amount paid (BCB's componentesValor)." }),
  })
  .meta({ id: 'DueTerms', description: 'Charges with a due date only (POST /v1/pix/due).' });

export const transactionSchema = z
  .object({
    transactionId: z.string(),
    type: z.enum(['pix_in', 'withdrawal']),
    amountCents: z.int(),
    feeCents: z.int(),
    netCents: z.int(),
    status: z.string(),
    externalRef: z.string().nullable(),
    pixPayload: z.string().nullable().meta({ description: 'BR Code for pix_in; null for withdrawals.' }),
    expiresAt: z.int().nullable().meta({ description: 'Unix SECONDS (charges).' }),
    paidAt: z.int().nullable().meta({ description: 'Unix milliseconds; null until paid.' }),
    createdAt: z.int().meta({ description: 'Unix milliseconds.' }),
    updatedAt: z.int().meta({ description: 'Unix milliseconds.' }),
    endToEndId: z.string().optional().meta({ description: 'Present once settled (paid, refunded, partially_refunded).' }),
    payer: partySchema.optional(),
    beneficiary: partySchema.optional(),
    refundEndToEndId: z.string().optional(),
    refundedCents: z
      .int()
      .optional()
      .meta({ description: 'Charges: the sum of settled refunds (merchant refunds and MED chargebacks), present once above 0.' }),
    due: dueSchema.optional(),
    staticQrId: z.string().optional().meta({ description: 'A PIX paid to one of the merchant’s static QR codes (POST /v1/pix/static): that code.' }),
    recurrenceId: z.string().optional().meta({ description: 'A cycle’s charge of a Pix Automático recurrence (POST /v1/recurrences): that recurrence.' }),
    cycle: z.int().optional().meta({ description: 'With recurrenceId: the cycle’s number (1 = the start date).' }),
    held: z.boolean().optional().meta({
      description:
        'Charges the PSP held on receipt (cautionary block, Res. BCB 506): true while held (its net amount is blocked, not withdrawable), false once released or returned. Absent on a charge never held.',
    }),
    heldUntil: z
      .int()
      .optional()
      .meta({ description: 'With held: until when the PSP may hold it (Unix milliseconds); the hold is released then if the PSP has not decided.' }),
  })
  .meta({ id: 'Transaction' });

/** The Transaction object as operators read it: with its account and the provider it is bound to (DESIGN.md §14). */
export const operatorTransactionSchema = transactionSchema
  .extend({
    accountId: z.string(),
    providerId: z.string().meta({ description: 'The provider that issued the charge or sent the withdrawal; every later call about it goes there.' }),
  })
  .meta({ id: 'OperatorTransaction' });

export const transactionIdParams = z.object({
  id: z.string().meta({ description: 'transactionId (UUID v7).' }),
});

/** The filters the list and the exports share (DESIGN.md §15). */
export const transactionFilterQuery = z.object({
  createdFrom: unixMillisQuery(messages.createdFromInvalid).meta({ description: 'Unix milliseconds, inclusive.' }),
  createdTo: unixMillisQuery(messages.createdToInvalid).meta({ description: 'Unix milliseconds, exclusive.' }),
  type: z
    .string({ error: (issue) => messages.transactionTypeInvalid(String(issue.input)) })
    .optional()
    .refine((value): value is TransactionType | undefined => value === undefined || value === 'pix_in' || value === 'withdrawal', {
      error: (issue) => messages.transactionTypeInvalid(String(issue.input)),
    })
    .meta({ description: "'pix_in' or 'withdrawal'; both when absent." }),
  status: z
    .string({ error: (issue) => messages.transactionStatusInvalid(String(issue.input)) })
    .optional()
    .refine((value): value is TransactionStatus | undefined => value === undefined || TRANSACTION_STATUSES.has(value), {
      error: (issue) => messages.transactionStatusInvalid(String(issue.input)),
    })
    .meta({ description: 'One status of either type (a status of the other type simply matches nothing).' }),
});

export const listTransactionsQuery = transactionFilterQuery.extend({
  limit: listLimitQuery,
  startingAfter: z
    .string({ error: messages.startingAfterInvalid })
    .optional()
    .refine((value) => value === undefined || isId(value), messages.startingAfterInvalid)
    .meta({ description: 'A transactionId of this account: the page after it, in the same order (DESIGN.md §15).' }),
  externalRef: z
    .string({ error: messages.externalRefInvalid })
    .min(1, messages.externalRefInvalid)
    .max(100, messages.externalRefInvalid)
    .optional()
    .meta({ description: 'The externalRef the transaction was created with.' }),
  endToEndId: z
    .string({ error: messages.endToEndIdInvalid })
    .regex(/^[a-zA-Z0-9]{32}$/, messages.endToEndIdInvalid)
    .optional()
    .meta({ description: "The PIX network's end-to-end id (32 letters and digits)." }),
});

export const transactionListResponse = z.object({
  transactions: z.array(transactionSchema),
  count: z.int(),
  hasMore: z.boolean().meta({ description: 'More rows follow: ask again with startingAfter = the last transactionId.' }),
});

const {
  pixPayload: _payload,
  endToEndId: _e2e,
  payer: _payer,
  beneficiary: _beneficiary,
  refundEndToEndId: _refund,
  ...transactionFields
} = transactionSchema.shape;

/**
 * The body of one event, for the OpenAPI document's `webhooks` section: the transaction without
 * its charge payload, the PIX fields the event carries, and the MED case or the refund as their
 * own domains describe them.
 */
export function eventBodySchema(name: TransactionEventName, attachments: { infraction: z.ZodType; refund: z.ZodType }) {
  const settlement = SETTLEMENT_FIELDS[name];
  const fields = Object.fromEntries(settlement.map((field) => [field, transactionSchema.shape[field].unwrap()]));
  return z.object({
    eventId: z.string().meta({ description: 'Same as the X-Svc-Event-Id and webhook-id headers.' }),
    event: z.literal(name),
    ...transactionFields,
    type: z.literal(name.startsWith('transfer.') ? 'withdrawal' : 'pix_in'),
    ...fields,
    ...(CARRIES_INFRACTION.has(name) ? { infraction: INFRACTION_OPTIONAL.has(name) ? attachments.infraction.optional() : attachments.infraction } : {}),
    ...(CARRIES_REFUND.has(name) ? { refund: attachments.refund } : {}),
    ...(CARRIES_DEADLINE_IN.has(name)
      ? {
          deadlineIn: z.int().meta({
            description: "Milliseconds from occurredAt to the case's defenseDeadline (above 0): the time left to defend when the reminder was written.",
          }),
        }
      : {}),
    occurredAt: z.int().meta({ description: 'When the status changed (Unix milliseconds).' }),
  });
}
