import { z } from 'zod';
import { messages } from '../messages.js';
import { transactionFilterQuery } from '../transactions/schemas.js';
import { EXPORT_MAX_DAYS } from './service.js';

export const exportQuery = z
  .object({
    format: z.enum(['csv', 'ofx'], { error: messages.exportFormatInvalid }).meta({
      description: 'csv: one row per transaction (RFC 4180, UTF-8 with BOM); ofx: OFX 2.2, one entry per movement of the balance.',
    }),
    delimiter: z
      .enum(['comma', 'semicolon'], { error: messages.exportDelimiterInvalid })
      .optional()
      .meta({ description: "CSV only: 'comma' (default, RFC 4180) or 'semicolon' (Excel in Portuguese opens it with a double click)." }),
  })
  .extend(transactionFilterQuery.shape)
  .meta({ description: `createdFrom and createdTo are required; at most ${EXPORT_MAX_DAYS} days.` });

export const statementParams = z.object({
  date: z.string().meta({ description: 'A closed America/Sao_Paulo day, AAAA-MM-DD.' }),
});
