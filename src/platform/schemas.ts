import { z } from 'zod';
import { recordOf } from './records.js';

/** The one error shape of every route. */
const errorResponse = z.object({ error: z.string() }).meta({ id: 'Error' });

export const errorResponses = <S extends number>(...statuses: S[]) => recordOf(statuses, () => errorResponse);

export const partySchema = z
  .object({
    name: z.string(),
    document: z.string().meta({ description: 'Digits only.' }),
    documentType: z.enum(['cpf', 'cnpj']),
    bankAccount: z.object({ ispb: z.string(), branch: z.string(), account: z.string() }),
  })
  .meta({ id: 'Party' });
