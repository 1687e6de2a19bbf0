import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { messages, receivedText } from '../messages.js';
import type { InfractionStatus } from '../platform/schema.js';
import { hasMoreField, positiveAmountSchema, listLimitQuery } from '../platform/schemas.js';
import { INFRACTION_SITUATIONS, INFRACTION_STATUSES } from './states.js';

export const infractionSchema = z
  .object({
    infractionId: z.string(),
    transactionId: z.string(),
    status: z.enum(INFRACTION_STATUSES),
    reason: z.enum(['fraud', 'operational_flaw']),
    amountCents: z.int().meta({ description: 'The contested amount, blocked while the case runs.' }),
    openedAt: z.int().meta({ description: 'Unix milliseconds.' }),
    defenseDeadline: z.int().meta({ description: 'Unix milliseconds; the merchant may defend until then.' }),
    defense: z.string().nullable(),
    closedAt: z.int().nullable().meta({ description: 'Unix milliseconds; null while the case runs.' }),
    recoveryId: z.string().nullable().meta({ description: 'The funds recovery (MED 2.0) this case belongs to, when the PSP names it.' }),
    hop: z.int().meta({ description: "This account's place on the money's trail: 1 when the victim paid the merchant directly." }),
    situation: z.enum(INFRACTION_SITUATIONS).meta({ description: 'How the victim was led to pay.' }),
    recoveredCents: z
      .int()
      .nullable()
      .meta({ description: 'What the PSP returned to the victim when the case closed against the merchant (at most amountCents); null otherwise.' }),
  })
  .meta({ id: 'Infraction' });

export const infractionListResponse = z.object({ infractions: z.array(infractionSchema), count: z.int(), hasMore: hasMoreField });

export const infractionIdParams = z.object({ id: z.string().meta({ description: 'infractionId (UUID v7).' }) });

const isInfractionStatus = (value: string): value is InfractionStatus => INFRACTION_STATUSES.some((status) => status === value);

export const listInfractionsQuery = z.object({
  status: z
    .string({ error: (issue) => messages.infractionStatusInvalid(receivedText(issue.input)) })
    .optional()
    .refine((value): value is InfractionStatus | undefined => value === undefined || isInfractionStatus(value), {
      error: (issue) => messages.infractionStatusInvalid(receivedText(issue.input)),
    }),
  limit: listLimitQuery,
});

export const defenseBody = z.object(
  {
    text: z.string({ error: messages.defenseTextInvalid }).trim().min(1, messages.defenseTextInvalid).max(2000, messages.defenseTextInvalid),
  },
  { error: messages.bodyNotObject },
);

/** Opening a case (sandbox and operator). */
export const openInfractionBody = z.object(
  {
    amountCents: positiveAmountSchema.optional().meta({ description: 'Default: the refundable remainder of the charge.' }),
    reason: z.enum(['fraud', 'operational_flaw'], { error: messages.infractionReasonInvalid }),
    recoveryId: z.string({ error: messages.recoveryIdInvalid }).trim().min(1, messages.recoveryIdInvalid).max(100, messages.recoveryIdInvalid).optional(),
    hop: z.int({ error: messages.hopInvalid }).min(1, messages.hopInvalid).max(10, messages.hopInvalid).optional().meta({ description: 'Default 1.' }),
    situation: z.enum(INFRACTION_SITUATIONS, { error: messages.situationInvalid }).optional().meta({ description: 'Default unknown.' }),
  },
  { error: messages.bodyNotObject },
);

/** Closing against the merchant (operator): what the PSP recovered for the victim, the case's amount by default. */
export const acceptInfractionBody = z
  .object(
    {
      amountCents: positiveAmountSchema.optional().meta({ description: "What was recovered (the chargeback's amount). Default: the case's amount." }),
    },
    { error: messages.bodyNotObject },
  )
  .nullish();

/** An infractionId from a path: a UUID v7, or 400 before any lookup. */
export function requireInfractionId(id: string): string {
  if (!isId(id)) throw new InvalidRequestError(messages.infractionIdInvalid);
  return id;
}
