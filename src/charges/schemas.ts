import { z } from 'zod';
import { amountCentsSchema, externalRefSchema } from '../platform/schemas.js';
import { messages, receivedText } from '../messages.js';
import { stripDocumentFormatting } from '../pix/documents.js';

const DOCUMENT_LENGTH = { cpf: 11, cnpj: 14 } as const;

const isNonBlankString = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * customer.document, with the spec's messages in the spec's order: both fields, then the type,
 * then its value, then the digit count for that type.
 */
const documentSchema = z
  .object(
    {
      number: z
        .string({ error: messages.documentRequired })
        .refine(isNonBlankString, messages.documentRequired)
        .refine((value) => /^[\d.\-/\s]+$/.test(value), messages.documentNumberCharacters)
        .transform(stripDocumentFormatting),
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
    if (document.number.length !== DOCUMENT_LENGTH[document.type]) {
      context.addIssue({ code: 'custom', path: ['number'], message: messages.documentNumberLength(document.type, document.number.length) });
    }
  })
  .meta({ description: 'Payer document. Dots, dashes and slashes are stripped; type is case-insensitive.' });

const customerSchema = z.object(
  {
    name: z.string({ error: messages.customerNameRequired }).trim().min(1, messages.customerNameRequired).max(100, messages.customerNameTooLong),
    document: documentSchema,
    email: z.email({ error: messages.customerEmailInvalid }).max(254, messages.customerEmailInvalid),
    phone: z.string({ error: messages.customerPhoneInvalid }).regex(/^\d{10,11}$/, messages.customerPhoneInvalid),
  },
  { error: messages.customerNameRequired },
);

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
