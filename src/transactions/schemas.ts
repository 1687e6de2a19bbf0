import { z } from 'zod';
import { messages } from '../messages.js';
import { partySchema } from '../platform/schemas.js';
import type { TransactionType } from './states.js';

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
  })
  .meta({ id: 'Transaction' });

export const transactionIdParams = z.object({
  id: z.string().meta({ description: 'transactionId (UUID v7).' }),
});

/** `?limit=`: an integer from 1 to 100, default 50 (every list of the API). */
export const listLimitQuery = z
  .string({ error: messages.listLimitInvalid })
  .optional()
  .refine((value) => value === undefined || (/^\d{1,3}$/.test(value) && Number(value) >= 1 && Number(value) <= 100), messages.listLimitInvalid)
  .transform((value) => (value === undefined ? 50 : Number(value)))
  .meta({ description: 'Integer 1 to 100, default 50.' });

export const listTransactionsQuery = z.object({
  type: z
    .string({ error: (issue) => messages.transactionTypeInvalid(String(issue.input)) })
    .optional()
    .refine((value): value is TransactionType | undefined => value === undefined || value === 'pix_in' || value === 'withdrawal', {
      error: (issue) => messages.transactionTypeInvalid(String(issue.input)),
    })
    .meta({ description: "'pix_in' or 'withdrawal'; both when absent." }),
  limit: listLimitQuery,
});

export const transactionListResponse = z.object({ transactions: z.array(transactionSchema), count: z.int() });
