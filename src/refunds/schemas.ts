import { z } from 'zod';
import { hasMoreField, positiveAmountSchema, externalRefSchema } from '../platform/schemas.js';
import { messages } from '../messages.js';

/** POST /v1/transactions/{id}/refunds: every field optional, the body too. */
export const createRefundBody = z
  .object(
    {
      amountCents: positiveAmountSchema.optional().meta({ description: 'Default: the refundable remainder of the charge.' }),
      externalRef: externalRefSchema,
      reason: z.string({ error: messages.refundReasonTooLong }).max(140, messages.refundReasonTooLong).nullish(),
    },
    { error: messages.bodyNotObject },
  )
  .nullish();

export const refundSchema = z
  .object({
    refundId: z.string(),
    transactionId: z.string(),
    kind: z.enum(['merchant', 'med', 'returned_payment', 'cautionary_return']).meta({
      description:
        'merchant: asked through the API; med: a MED case closed against the merchant; returned_payment: a payment that arrived after the charge stopped being pending, returned in full and never credited; cautionary_return: a PIX the PSP held (cautionary block, Res. BCB 506) and returned to its payer, its whole movement reversed, fee included.',
    }),
    amountCents: z.int(),
    status: z.enum(['processing', 'refunded', 'failed']),
    reason: z.string().nullable(),
    externalRef: z.string().nullable(),
    refundEndToEndId: z.string().optional().meta({ description: 'The refund PIX (`D…`, 32 characters), once refunded.' }),
    createdAt: z.int().meta({ description: 'Unix milliseconds.' }),
    settledAt: z.int().nullable().meta({ description: 'Unix milliseconds of the final outcome (refunded or failed); null while processing.' }),
  })
  .meta({ id: 'Refund' });

export const idempotentRefundSchema = refundSchema.extend({ idempotent: z.literal(true) });

export const refundListResponse = z.object({
  refunds: z.array(refundSchema),
  count: z.int(),
  hasMore: hasMoreField.meta({ description: 'Always false: every refund of the charge is listed.' }),
});

export const refundIdParams = z.object({ refundId: z.string().meta({ description: 'refundId (UUID v7).' }) });
