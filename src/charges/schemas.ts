import { z } from 'zod';
import { amountCentsSchema, externalRefSchema } from '../platform/schemas.js';
import { messages, receivedText } from '../messages.js';
import { hasDocumentCharacters, isValidCnpj, normalizeDocument } from '../pix/documents.js';
import { dayNumber } from '../pix/bankingDays.js';
import { hundredthsOf, type DueValue } from '../pix/dueAmount.js';

const DOCUMENT_LENGTH = { cpf: 11, cnpj: 14 } as const;

const isNonBlankString = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * customer.document, with the spec's messages in the spec's order: both fields, then the type,
 * then its value, then the digit count for that type. The spec counts digits only; a CNPJ may
 * also hold letters (alphanumeric CNPJ, DESIGN.md §19), and then it must pass its check digits:
 * letters are admitted as that format only, never as a typo (docs/errors.md).
 */
const documentSchema = z
  .object(
    {
      number: z
        .string({ error: messages.documentRequired })
        .refine(isNonBlankString, messages.documentRequired)
        .refine((value) => hasDocumentCharacters('cnpj', value), messages.documentNumberCharacters)
        .transform(normalizeDocument),
      type: z
        .string({ error: messages.documentTypeRequired })
        .refine(isNonBlankString, messages.documentTypeRequired)
        .refine((value) => ['cpf', 'cnpj'].includes(value.trim().toLowerCase()), {
          error: (issue) => messages.documentTypeInvalid(String(issue.input)),
        })
        // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the refine above admits only these two
        .transform((value) => value.trim().toLowerCase() as 'cpf' | 'cnpj'),
    },
    { error: messages.documentRequired },
  )
  .superRefine((document, context) => {
    const letters = /[A-Z]/.test(document.number);
    if (letters && document.type === 'cpf') {
      context.addIssue({ code: 'custom', path: ['number'], message: messages.documentNumberCharacters });
    } else if (document.number.length !== DOCUMENT_LENGTH[document.type]) {
      context.addIssue({ code: 'custom', path: ['number'], message: messages.documentNumberLength(document.type, document.number.length) });
    } else if (letters && !isValidCnpj(document.number)) {
      context.addIssue({ code: 'custom', path: ['number'], message: messages.documentNumberNotCnpj });
    }
  })
  .meta({ description: 'Payer document. Dots, dashes and slashes are stripped and letters upper-cased (an alphanumeric CNPJ); type is case-insensitive.' });

const customerSchema = z.object(
  {
    name: z.string({ error: messages.customerNameRequired }).trim().min(1, messages.customerNameRequired).max(100, messages.customerNameTooLong),
    document: documentSchema,
    email: z.email({ error: messages.customerEmailInvalid }).max(254, messages.customerEmailInvalid),
    phone: z.string({ error: messages.customerPhoneInvalid }).regex(/^\d{10,11}$/, messages.customerPhoneInvalid),
  },
  { error: messages.customerNameRequired },
);

/** A due-date charge's payer: name and CPF/CNPJ required (BCB's `devedor`), email and phone optional. */
const dueCustomerSchema = customerSchema.extend({
  email: z.email({ error: messages.dueCustomerEmailInvalid }).max(254, messages.dueCustomerEmailInvalid).optional(),
  phone: z
    .string({ error: messages.dueCustomerPhoneInvalid })
    .regex(/^\d{10,11}$/, messages.dueCustomerPhoneInvalid)
    .optional(),
});

/** Field order follows the order of the spec's 400 table, which is the order errors are reported in. */
export const createChargeBody = z.object(
  {
    amountCents: amountCentsSchema(messages.chargeAmountInvalid),
    customer: customerSchema,
    externalRef: externalRefSchema,
    expiresInDays: z
      .number({ error: messages.expiresInDaysInvalid })
      .int(messages.expiresInDaysInvalid)
      .min(1, messages.expiresInDaysInvalid)
      .max(30, messages.expiresInDaysInvalid)
      .nullish()
      .meta({ description: 'Validity in days, 1 to 30 (default 2).' }),
  },
  { error: messages.bodyNotObject },
);
export type CreateChargeBody = z.output<typeof createChargeBody>;

export const createdChargeResponse = z.object({
  transactionId: z.string(),
  status: z.literal('pending'),
  pixPayload: z.string().meta({ description: 'PIX copy-and-paste (dynamic BR Code EMV).' }),
  expiresAt: z.int().meta({ description: 'Unix seconds.' }),
  amountCents: z.int(),
});

export const idempotentChargeResponse = createdChargeResponse.extend({
  status: z.string().meta({ description: 'Current status of the original charge.' }),
  idempotent: z.literal(true),
});

const dueDates = {
  dueDate: z.string().meta({ description: 'AAAA-MM-DD.' }),
  lastPayableDate: z
    .string()
    .meta({ description: 'AAAA-MM-DD, inclusive: dueDate (moved past a weekend or holiday) + validityAfterDueDays, on a business day.' }),
};
export const createdDueChargeResponse = createdChargeResponse.extend(dueDates);
export const idempotentDueChargeResponse = idempotentChargeResponse.extend({
  dueDate: dueDates.dueDate.optional(),
  lastPayableDate: dueDates.lastPayableDate.optional(),
});

/** GET /v1/pix/{id}/qrcode: PNG by default, 256 px, 128 to 1024. */
export const qrImageQuery = z.object({
  format: z
    .string({ error: (issue) => messages.qrFormatInvalid(receivedText(issue.input)) })
    .optional()
    .refine((value): value is 'png' | 'svg' | undefined => value === undefined || value === 'png' || value === 'svg', {
      error: (issue) => messages.qrFormatInvalid(receivedText(issue.input)),
    })
    .meta({ description: "'png' (default) or 'svg'." }),
  size: z
    .string({ error: messages.qrSizeInvalid })
    .optional()
    .refine((value) => value === undefined || (/^\d{3,4}$/.test(value) && Number(value) >= 128 && Number(value) <= 1024), messages.qrSizeInvalid)
    .transform((value) => (value === undefined ? 256 : Number(value)))
    .meta({ description: 'Width in pixels, 128 to 1024 (default 256).' }),
});

/** A calendar date, AAAA-MM-DD, that exists, of this millennium (day arithmetic never leaves it). */
export const dateSchema = (message: string) =>
  z
    .string({ error: message })
    .refine((value) => dayNumber(value) !== undefined && value >= '2000-01-01' && value <= '2999-12-31', message)
    .meta({ format: 'date' });

/** A percentage above 0 and up to 100 with at most two decimals, as BCB writes them (2.5 = 2,50%). */
const isPercent = (value: number) => Number.isFinite(value) && value <= 100 && hundredthsOf(value) >= 1 && Math.abs(value * 100 - hundredthsOf(value)) < 1e-6;

/** `amountCents` or `percent`, exactly one, with the component's message for anything wrong. */
const valueFields = (message: string) => ({
  amountCents: z.int({ error: message }).min(1, message).max(Number.MAX_SAFE_INTEGER, message).optional(),
  // Stored and applied as the two-decimal value it stands for (1.0000000001 is 1).
  percent: z
    .number({ error: message })
    .refine(isPercent, message)
    .transform((value) => hundredthsOf(value) / 100)
    .optional(),
});
const exactlyOne = (value: { amountCents?: number | undefined; percent?: number | undefined }) =>
  (value.amountCents === undefined) !== (value.percent === undefined);
const dueValueOf = (value: { amountCents?: number | undefined; percent?: number | undefined }): DueValue =>
  value.percent === undefined ? { amountCents: value.amountCents ?? 0 } : { percent: value.percent };

const valueSchema = (message: string) =>
  z
    .object(valueFields(message), { error: message })
    .refine(exactlyOne, message)
    .transform(dueValueOf)
    .meta({ description: 'amountCents (integer cents) or percent (two decimals at most), exactly one.' });

const interestSchema = z
  .object(
    {
      ...valueFields(messages.interestInvalid),
      per: z.enum(['day', 'month', 'year'], { error: messages.interestPerInvalid }).default('day'),
      days: z.enum(['calendar', 'business'], { error: messages.interestDaysInvalid }).default('calendar'),
    },
    { error: messages.interestInvalid },
  )
  .refine(exactlyOne, messages.interestInvalid)
  .refine((value) => value.amountCents === undefined || value.per === 'day', messages.interestPerInvalid)
  .transform((value) => ({ ...dueValueOf(value), per: value.per, days: value.days }))
  .meta({
    description:
      "Simple interest per day late: amountCents per day, or percent per 'day', 'month' (30 calendar or 21 business days) or 'year' (360 or 252); days 'calendar' (default) or 'business'.",
  });

const discountTierSchema = z
  .object({ date: dateSchema(messages.discountTierInvalid), ...valueFields(messages.discountTierInvalid) }, { error: messages.discountTierInvalid })
  .refine(exactlyOne, messages.discountTierInvalid)
  .transform((value) => ({ date: value.date, ...dueValueOf(value) }));

const discountSchema = z
  .object(
    {
      until: z.array(discountTierSchema, { error: messages.discountInvalid }).min(1, messages.discountInvalid).max(3, messages.discountInvalid).optional(),
      perDayEarly: z
        .object(
          {
            ...valueFields(messages.discountPerDayInvalid),
            days: z.enum(['calendar', 'business'], { error: messages.discountPerDayInvalid }).default('calendar'),
          },
          { error: messages.discountPerDayInvalid },
        )
        .refine(exactlyOne, messages.discountPerDayInvalid)
        .transform((value) => ({ ...dueValueOf(value), days: value.days }))
        .optional(),
    },
    { error: messages.discountInvalid },
  )
  .refine((value) => (value.until === undefined) !== (value.perDayEarly === undefined), messages.discountInvalid)
  .refine((value) => !value.until || new Set(value.until.map((tier) => 'percent' in tier)).size === 1, messages.discountTiersMixed)
  .refine((value) => !value.until || new Set(value.until.map((tier) => tier.date)).size === value.until.length, messages.discountDatesRepeated)
  .transform((value) => (value.until ? { until: value.until } : { perDayEarly: value.perDayEarly ?? { amountCents: 0, days: 'calendar' as const } }))
  .meta({
    description:
      'until: 1 to 3 dates, each with amountCents or percent taken off when paid by it (a date on a weekend or holiday holds until the next business day); or perDayEarly: amountCents or percent per day paid before dueDate.',
  });

/** POST /v1/pix/due: a charge with a due date (BCB's cobv); field order is the order errors are reported in. */
export const createDueChargeBody = z.object(
  {
    amountCents: amountCentsSchema(messages.chargeAmountInvalid),
    customer: dueCustomerSchema,
    externalRef: externalRefSchema,
    dueDate: dateSchema(messages.dueDateInvalid).meta({ description: 'AAAA-MM-DD (America/Sao_Paulo), today or later.' }),
    validityAfterDueDays: z
      .int({ error: messages.dueValidityInvalid })
      .min(0, messages.dueValidityInvalid)
      .max(365, messages.dueValidityInvalid)
      .default(30)
      .meta({ description: 'Calendar days after dueDate during which it can still be paid (default 30, as BCB).' }),
    fine: valueSchema(messages.fineInvalid).optional().meta({ description: 'Charged once, in full, from the first day late.' }),
    interest: interestSchema.optional(),
    abatement: valueSchema(messages.abatementInvalid).optional().meta({ description: 'Taken off the original on every day.' }),
    discount: discountSchema.optional(),
  },
  { error: messages.bodyNotObject },
);
export type CreateDueChargeBody = z.output<typeof createDueChargeBody>;

/** GET /v1/pix/due/{id}/amount */
export const amountDueQuery = z.object({
  date: dateSchema(messages.dueAmountDateInvalid).optional().meta({ description: 'AAAA-MM-DD; today (America/Sao_Paulo) when absent.' }),
});

export const amountDueResponse = z
  .object({
    transactionId: z.string(),
    date: z.string(),
    dueDate: z.string(),
    lastPayableDate: z.string(),
    payable: z.boolean().meta({ description: 'Whether a payment on that date is accepted (pending, within the validity).' }),
    originalCents: z.int(),
    abatementCents: z.int(),
    discountCents: z.int(),
    interestCents: z.int(),
    fineCents: z.int(),
    amountDueCents: z.int().meta({ description: 'originalCents − abatementCents − discountCents + interestCents + fineCents.' }),
  })
  .meta({ id: 'AmountDue' });

/** POST /v1/pix/due/batch: up to 100 charges with a due date, each checked and created on its own (BCB's lotecobv). */
export const createDueChargeBatchBody = z.object(
  {
    charges: z
      .array(z.unknown(), { error: messages.dueBatchInvalid })
      .min(1, messages.dueBatchInvalid)
      .max(100, messages.dueBatchInvalid)
      .meta({ description: 'Each item is a POST /v1/pix/due body.' }),
  },
  { error: messages.bodyNotObject },
);

export const dueChargeBatchResponse = z.object({
  created: z.int().meta({ description: 'Items answered 201 (a new charge).' }),
  failed: z.int().meta({ description: 'Items refused (4xx) or not registered (502); nothing was written for them.' }),
  results: z.array(
    z.object({
      index: z.int().meta({ description: 'The item’s place in charges, from 0.' }),
      status: z
        .int()
        .meta({ description: 'What POST /v1/pix/due would have answered for this item alone: 201, 200 (externalRef already used), 400, 422, 429 or 502.' }),
      charge: idempotentDueChargeResponse
        .omit({ idempotent: true })
        .optional()
        .meta({ description: 'The charge (201: new, pending; 200: the one the externalRef named, in its current status).' }),
      error: z.string().optional().meta({ description: 'The refusal’s message, as POST /v1/pix/due answers it.' }),
    }),
  ),
});
