import { z } from 'zod';
import { amountCentsSchema, externalRefSchema } from '../platform/schemas.js';
import { messages, receivedText } from '../messages.js';
import { normalizePixKey, normalizePixKeyType, pixKeyFormatError, PIX_KEY_TYPES, type PixKeyType } from '../pix/pixKeys.js';

const RECIPIENT_ID_PATTERN = /^[0-9a-f]{24}$/;

type AmountLimits = { withdrawMinCents: number; withdrawMaxCents: number };

/**
 * POST /v1/withdraw, fields in the order their errors are reported — the spec's 400 table puts
 * the account's minimum and maximum right after the amount rule, so the schema is per account
 * (memoized by limits).
 */
function buildWithdrawalBody(limits: AmountLimits) {
  return z
    .object(
      {
        amountCents: amountCentsSchema(messages.withdrawalAmountInvalid)
          .refine((value) => value >= limits.withdrawMinCents, messages.amountBelowMinimum(limits.withdrawMinCents))
          .refine((value) => value <= limits.withdrawMaxCents, messages.withdrawalAboveMaximum(limits.withdrawMaxCents)),
        pixKey: z
          .string({ error: messages.pixKeyRequired })
          .refine((value) => value.trim() !== '', messages.pixKeyRequired)
          .refine((value) => value.length <= 150, messages.pixKeyTooLong),
        pixKeyType: z
          .unknown()
          .refine((value) => normalizePixKeyType(value) !== null, { error: (issue) => messages.pixKeyTypeInvalid(receivedText(issue.input)) })
          // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the refine above admits only values that normalize
          .transform((value) => normalizePixKeyType(value) as PixKeyType)
          .meta({ type: 'string', enum: [...PIX_KEY_TYPES], description: 'Case and surrounding whitespace are ignored.' }),
        description: z.string({ error: messages.descriptionTooLong }).max(200, messages.descriptionTooLong).nullish(),
        externalRef: externalRefSchema,
        recipientId: z
          .string({ error: messages.recipientIdInvalid })
          .refine((value) => RECIPIENT_ID_PATTERN.test(value), messages.recipientIdInvalid)
          .nullish()
          .meta({ description: '24 hex characters; selects Mode 2 (authorized third party).' }),
      },
      { error: messages.bodyNotObject },
    )
    .transform((body, context) => {
      const pixKey = normalizePixKey(body.pixKeyType, body.pixKey);
      // Key formats follow DICT (CPF/CNPJ check digits, e-mail, +55 phone, EVP UUID).
      const formatError = pixKeyFormatError(body.pixKeyType, pixKey);
      if (formatError) context.addIssue({ code: 'custom', path: ['pixKey'], message: formatError });
      return { ...body, pixKey };
    });
}

/** The schema the OpenAPI document shows (default limits); requests are checked per account. */
export const createWithdrawalBody = buildWithdrawalBody({ withdrawMinCents: 100, withdrawMaxCents: Number.MAX_SAFE_INTEGER });
export type CreateWithdrawalBody = z.output<typeof createWithdrawalBody>;

const bodiesByLimits = new Map<string, ReturnType<typeof buildWithdrawalBody>>();
export function withdrawalBodyFor(limits: AmountLimits) {
  const key = `${limits.withdrawMinCents}:${limits.withdrawMaxCents}`;
  let schema = bodiesByLimits.get(key);
  if (!schema) {
    if (bodiesByLimits.size > 1000) bodiesByLimits.clear();
    schema = buildWithdrawalBody(limits);
    bodiesByLimits.set(key, schema);
  }
  return schema;
}

export const withdrawalResponse = z.object({
  transactionId: z.string(),
  status: z.string().meta({ description: '`processing` (automatic mode) or `pending_approval` (manual approval mode).' }),
  amountCents: z.int(),
  feeCents: z.int(),
  totalDeducted: z.int().meta({ description: 'amountCents + feeCents.' }),
});

export const idempotentWithdrawalResponse = withdrawalResponse.extend({ idempotent: z.literal(true) });

export const indeterminateWithdrawalResponse = z.object({
  error: z.string(),
  transactionId: z.string(),
  status: z.literal('failed_unknown'),
});
