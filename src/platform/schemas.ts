import { z } from 'zod';
import { messages } from '../messages.js';
import { recordOf } from './records.js';

/** The one error shape of every route. */
const errorResponse = z.object({ error: z.string() }).meta({ id: 'Error' });

export const errorResponses = <S extends number>(...statuses: S[]) => recordOf(statuses, () => errorResponse);

export const partySchema = z
  .object({
    name: z.string(),
    document: z.string().meta({ description: "Normalised: a CPF's 11 digits, or a CNPJ's 14 characters (12 digits or upper-case letters, then 2 digits)." }),
    documentType: z.enum(['cpf', 'cnpj']),
    bankAccount: z.object({ ispb: z.string(), branch: z.string(), account: z.string() }),
  })
  .meta({ id: 'Party' });

// Request pieces that several domains' schemas share.

export const externalRefSchema = z
  .string({ error: messages.externalRefInvalid })
  .min(1, messages.externalRefInvalid)
  .max(100, messages.externalRefInvalid)
  .nullish()
  .meta({ description: 'Idempotency key, scoped to the account (max 100 characters).' });

/** Amount of a charge or withdrawal: an integer number of cents, at least 100. */
export const amountCentsSchema = (message: string) =>
  z
    .number({ error: message })
    .refine((value) => Number.isInteger(value) && value >= 100, message)
    .meta({ type: 'integer', minimum: 100, description: 'Amount in cents (integer, minimum 100).' });

/** A positive integer number of cents (refunds, MED cases). */
export const positiveAmountSchema = z
  .number({ error: messages.positiveAmountInvalid })
  .int(messages.positiveAmountInvalid)
  .min(1, messages.positiveAmountInvalid)
  .max(Number.MAX_SAFE_INTEGER, messages.positiveAmountInvalid);

/** `?limit=`: an integer from 1 to 100, default 50 (every list of the API). */
/** Every list answer's `hasMore` (DESIGN.md §15): true when rows beyond this answer match. */
export const hasMoreField = z.boolean().meta({ description: 'More rows match than this answer holds.' });

/** A query parameter holding an instant in Unix milliseconds; a Date once parsed. */
export const unixMillisQuery = (message: string) =>
  z
    .string({ error: message })
    .optional()
    .refine((value) => value === undefined || /^\d{1,15}$/.test(value), message)
    .transform((value) => (value === undefined ? undefined : new Date(Number(value))));

export const listLimitQuery = z
  .string({ error: messages.listLimitInvalid })
  .optional()
  .refine((value) => value === undefined || (/^\d{1,3}$/.test(value) && Number(value) >= 1 && Number(value) <= 100), messages.listLimitInvalid)
  .transform((value) => (value === undefined ? 50 : Number(value)))
  .meta({ description: 'Integer 1 to 100, default 50.' });
