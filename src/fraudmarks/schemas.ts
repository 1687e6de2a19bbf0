import { z } from 'zod';
import { messages } from '../messages.js';
import { listLimitQuery } from '../platform/schemas.js';

/** POST /admin/v1/fraud-marks (and the back-office's form): the value is normalised and checked for its kind by the service. */
export const fraudMarkBody = z.object(
  {
    kind: z
      .enum(['key', 'document'], { error: messages.fraudMarkKindInvalid })
      .meta({ description: "'key' (a PIX key of any type) or 'document' (a CPF or CNPJ)." }),
    value: z
      .string({ error: messages.fraudMarkValueRequired })
      .trim()
      .min(1, messages.fraudMarkValueRequired)
      .max(200, messages.fraudMarkKeyInvalid)
      .meta({ description: 'The key (its type read from its shape) or the document; punctuation of documents ignored.' }),
    reason: z
      .string({ error: messages.fraudMarkReasonInvalid })
      .trim()
      .min(1, messages.fraudMarkReasonInvalid)
      .max(500, messages.fraudMarkReasonInvalid)
      .meta({ description: 'Why it is marked, up to 500 characters.' }),
  },
  { error: messages.bodyNotObject },
);

export const fraudMarkSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['key', 'document']),
    keyType: z.enum(['cpf', 'cnpj', 'email', 'phone', 'evp']).nullable().meta({ description: "A key's type; null for a document." }),
    value: z.string().meta({ description: 'Normalised: a key as DICT writes it, a document without punctuation and upper-cased.' }),
    reason: z.string(),
    createdBy: z.string().meta({ description: "'admin-token', or 'operator:<operator user id>'." }),
    createdAt: z.int().meta({ description: 'Unix milliseconds.' }),
  })
  .meta({ id: 'FraudMark' });

export const fraudMarkListQuery = z.object({
  limit: listLimitQuery,
  before: z.string().optional().meta({ description: "The last mark's id of the previous page." }),
});
