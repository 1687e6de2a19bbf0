import { z } from 'zod';
import { messages, receivedText } from '../messages.js';
import { hasDocumentCharacters, isValidCnpj, isValidCpf, normalizeDocument, type DocumentType } from '../pix/documents.js';
import { normalizePixKey, normalizePixKeyType, pixKeyFormatError, PIX_KEY_TYPES, type PixKeyType } from '../pix/pixKeys.js';
import type { RecipientStatus } from '../platform/schema.js';
import { hasMoreField } from '../platform/schemas.js';

const RECIPIENT_STATUSES = ['pending_review', 'active', 'rejected', 'removed', 'deactivated'] as const satisfies readonly RecipientStatus[];

const DOCUMENT_LENGTH = { cpf: 11, cnpj: 14 } as const;

const isNonBlankString = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function normalizeDocumentType(value: unknown): DocumentType | null {
  const type = typeof value === 'string' ? value.trim().toLowerCase() : null;
  return type === 'cpf' || type === 'cnpj' ? type : null;
}

/**
 * The first rule a document breaks for its type, or null: characters, length (the spec's message
 * says digits; for an alphanumeric CNPJ it counts characters), check digits.
 */
function documentError(type: DocumentType, document: string): string | null {
  if (!hasDocumentCharacters(type, document)) return messages.recipientDocumentCharacters(type);
  const normalized = normalizeDocument(document);
  if (normalized.length !== DOCUMENT_LENGTH[type]) return messages.recipientDocumentLength(type, normalized.length);
  const valid = type === 'cpf' ? isValidCpf(normalized) : isValidCnpj(normalized);
  return valid ? null : messages.recipientDocumentCheckDigits(type);
}

/** Optional alias: trimmed, blank = none, at most 80 characters. */
const recipientLabelSchema = z
  .string({ error: messages.recipientLabelTooLong })
  .trim()
  .max(80, messages.recipientLabelTooLong)
  .nullish()
  .transform((label) => label || null)
  .meta({ description: 'Alias, up to 80 characters.' });

/*
 * POST /v1/recipients reports the first broken rule in this order: legalName; document present;
 * documentType; document characters, digit count (which depends on the type) and check digits;
 * pixKey; pixKeyType; the key's format for its type; a cpf/cnpj key equal to the document; label.
 * Zod reports all field issues of an object before its refinements, so the body is three objects
 * intersected in that order, each holding the cross-field rule that must come before the next
 * fields. Refinements also run after continuable field issues (with raw values), so each one
 * checks only what the fields before it made sure of; an earlier issue is reported first anyway.
 */
const holderFields = z
  .object(
    {
      legalName: z
        .string({ error: messages.legalNameRequired })
        .trim()
        .min(2, messages.legalNameRequired)
        .max(120, messages.legalNameTooLong)
        .meta({ description: '2 to 120 characters.' }),
      document: z.string({ error: messages.recipientDocumentRequired }).refine(isNonBlankString, messages.recipientDocumentRequired).meta({
        description:
          '11 digits (cpf) or 14 characters (cnpj: 12 letters or digits, then 2 digits); dots, dashes, slashes and spaces are ignored, letters upper-cased.',
      }),
      documentType: z
        .unknown()
        .refine((value) => normalizeDocumentType(value) !== null, { error: (issue) => messages.recipientDocumentTypeInvalid(receivedText(issue.input)) })
        // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the refine above admits only values that normalize
        .transform((value) => normalizeDocumentType(value) as DocumentType)
        .meta({ type: 'string', enum: ['cpf', 'cnpj'], description: 'Case and surrounding whitespace are ignored.' }),
    },
    { error: messages.bodyNotObject },
  )
  .superRefine((holder, context) => {
    const type = normalizeDocumentType(holder.documentType);
    if (!type || typeof holder.document !== 'string') return;
    const error = documentError(type, holder.document);
    if (error) context.addIssue({ code: 'custom', path: ['document'], message: error });
  });

const keyFields = z
  .object(
    {
      pixKey: z
        .string({ error: messages.pixKeyRequired })
        .refine(isNonBlankString, messages.pixKeyRequired)
        .refine((value) => value.length <= 150, messages.pixKeyTooLong)
        .meta({
          description: 'Max 150 characters; formatted as DICT stores it (cpf/cnpj punctuation and case, email case and phone formatting are normalized).',
        }),
      pixKeyType: z
        .unknown()
        .refine((value) => normalizePixKeyType(value) !== null, { error: (issue) => messages.pixKeyTypeInvalid(receivedText(issue.input)) })
        // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the refine above admits only values that normalize
        .transform((value) => normalizePixKeyType(value) as PixKeyType)
        .meta({ type: 'string', enum: [...PIX_KEY_TYPES], description: 'Case and surrounding whitespace are ignored.' }),
    },
    { error: messages.bodyNotObject },
  )
  .superRefine((key, context) => {
    const type = normalizePixKeyType(key.pixKeyType);
    if (!type || !isNonBlankString(key.pixKey)) return;
    const error = pixKeyFormatError(type, normalizePixKey(type, key.pixKey));
    if (error) context.addIssue({ code: 'custom', path: ['pixKey'], message: error });
  });

const destinationFields = z.intersection(holderFields, keyFields).superRefine((body, context) => {
  // Spec rule 1: a cpf/cnpj key must be the document itself (same digits, same type).
  const keyType = normalizePixKeyType(body.pixKeyType);
  if ((keyType !== 'cpf' && keyType !== 'cnpj') || typeof body.pixKey !== 'string' || typeof body.document !== 'string') return;
  const sameDocument = normalizePixKey(keyType, body.pixKey) === normalizeDocument(body.document) && keyType === normalizeDocumentType(body.documentType);
  if (!sameDocument) context.addIssue({ code: 'custom', path: ['pixKey'], message: messages.recipientKeyDocumentMismatch });
});

export const createRecipientBody = z
  .intersection(destinationFields, z.object({ label: recipientLabelSchema }, { error: messages.bodyNotObject }))
  .transform((body) => ({
    legalName: body.legalName,
    document: normalizeDocument(body.document),
    documentType: body.documentType,
    pixKey: normalizePixKey(body.pixKeyType, body.pixKey),
    pixKeyType: body.pixKeyType,
    label: body.label,
  }));
export type CreateRecipientBody = z.output<typeof createRecipientBody>;

export const recipientRegisteredResponse = z.object({
  recipientId: z.string().meta({ description: '24 hexadecimal characters, derived from the document.' }),
  status: z.enum(['pending_review', 'active']),
  note: z.string(),
});

const approvedRecipientSchema = z
  .object({
    recipientId: z.string(),
    legalName: z.string(),
    documentType: z.enum(['cpf', 'cnpj']),
    documentMasked: z.string(),
    label: z.string().nullable().meta({ description: 'The alias assigned at approval.' }),
    approvedAt: z.int().meta({ description: 'Unix milliseconds.' }),
  })
  .meta({ id: 'ApprovedRecipient' });

export const approvedRecipientListResponse = z.object({
  recipients: z.array(approvedRecipientSchema),
  count: z.int().meta({ description: 'Number of active recipients.' }),
  hasMore: hasMoreField.meta({ description: 'Always false: every active recipient is listed.' }),
});

// Operator API

export const operatorRecipientSchema = z
  .object({
    accountId: z.string(),
    recipientId: z.string(),
    status: z.enum(RECIPIENT_STATUSES),
    legalName: z.string(),
    document: z.string().meta({ description: "Normalised: a CPF's 11 digits, or a CNPJ's 14 characters (12 digits or upper-case letters, then 2 digits)." }),
    documentType: z.enum(['cpf', 'cnpj']),
    pixKey: z.string(),
    pixKeyType: z.enum(PIX_KEY_TYPES),
    label: z.string().nullable().meta({ description: 'As submitted by the merchant.' }),
    approvedLabel: z.string().nullable().meta({ description: 'The alias given at approval (shown to the merchant).' }),
    approvedAt: z.int().nullable().meta({ description: 'Unix milliseconds.' }),
    reason: z.string().nullable().meta({ description: 'Reason of the last rejection or deactivation.' }),
    createdAt: z.int(),
    updatedAt: z.int(),
  })
  .meta({ id: 'OperatorRecipient' });

export const operatorRecipientListQuery = z.object({
  status: z.enum(RECIPIENT_STATUSES).default('pending_review'),
  accountId: z.string().optional(),
});

export const operatorRecipientListResponse = z.object({ recipients: z.array(operatorRecipientSchema), count: z.int() });

export const recipientParams = z.object({ accountId: z.string(), recipientId: z.string() });

export const approveRecipientBody = z.object({ label: recipientLabelSchema }, { error: messages.bodyNotObject }).nullish();

export const recipientReasonBody = z.object({ reason: z.string().trim().max(500).nullish() }, { error: messages.bodyNotObject }).nullish();
