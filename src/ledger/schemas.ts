import { z } from 'zod';
import { messages } from '../messages.js';
import { positiveAmountSchema } from '../platform/schemas.js';

const reasonSchema = z.string({ error: messages.reasonInvalid }).trim().min(1, messages.reasonInvalid).max(500, messages.reasonInvalid);

/** A signed adjustment (the operator API and the back-office). */
export const adjustmentBody = z.object(
  {
    amountCents: z
      .int({ error: messages.adjustmentAmountInvalid })
      .refine((value) => value !== 0 && Number.isSafeInteger(value), messages.adjustmentAmountInvalid),
    reason: reasonSchema,
  },
  { error: messages.bodyNotObject },
);

/** A precautionary block (the operator API and the back-office). */
export const blockBody = z.object({ amountCents: positiveAmountSchema, reason: reasonSchema }, { error: messages.bodyNotObject });
