import { z } from 'zod';
import { messages } from '../messages.js';
import { MAX_STATIC_DESCRIPTION_LENGTH, STATIC_TXID_PATTERN } from '../pix/brcode.js';
import { externalRefSchema } from '../platform/schemas.js';

/** POST /v1/pix/static, in the order errors are reported in. */
export const createStaticQrBody = z.object(
  {
    amountCents: z
      .number({ error: messages.staticQrAmountInvalid })
      .refine((value) => Number.isInteger(value) && value >= 100, messages.staticQrAmountInvalid)
      .optional()
      .meta({ type: 'integer', minimum: 100, description: 'A fixed amount in cents; absent, the payer types the amount.' }),
    description: z
      .string({ error: messages.staticQrDescriptionInvalid })
      .trim()
      .min(1, messages.staticQrDescriptionInvalid)
      .max(MAX_STATIC_DESCRIPTION_LENGTH, messages.staticQrDescriptionInvalid)
      .optional()
      .meta({ description: "Shown by the payer's app beside the key (ASCII; accents folded)." }),
    txid: z
      .string({ error: messages.staticQrTxidInvalid })
      .regex(STATIC_TXID_PATTERN, messages.staticQrTxidInvalid)
      .optional()
      .meta({ description: '1 to 25 letters and digits, unique across the gateway; one of ours (25 characters) when absent.' }),
    externalRef: externalRefSchema,
  },
  { error: messages.bodyNotObject },
);
export type CreateStaticQrBody = z.output<typeof createStaticQrBody>;

export const staticQrSchema = z
  .object({
    id: z.string(),
    txid: z.string(),
    pixPayload: z.string().meta({ description: 'PIX copy-and-paste (static BR Code), the same for every payment.' }),
    amountCents: z.int().nullable(),
    description: z.string().nullable(),
    externalRef: z.string().nullable(),
    active: z.boolean(),
    createdAt: z.int().meta({ description: 'Unix milliseconds.' }),
    deactivatedAt: z.int().nullable().meta({ description: 'Unix milliseconds; null while active.' }),
  })
  .meta({ id: 'StaticQrCode' });

/** A create replayed with a known externalRef: the code as it is now, marked as the spec marks charges' and withdrawals' replays. */
export const idempotentStaticQrSchema = staticQrSchema.extend({ idempotent: z.literal(true) }).meta({ id: 'IdempotentStaticQrCode' });

export const staticQrIdParams = z.object({ id: z.string().meta({ description: 'The static QR code id (UUID v7).' }) });
