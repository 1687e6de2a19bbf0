import { z } from 'zod';
import { messages } from '../messages.js';
import { transactionFilterQuery } from '../transactions/schemas.js';

/** The longest period one export covers: a month, whatever its length. */
export const EXPORT_MAX_DAYS = 31;

export const exportQuery = z
  .object({
    format: z.enum(['csv', 'ofx'], { error: messages.exportFormatInvalid }).meta({
      description: 'csv: one row per transaction (RFC 4180, UTF-8 with BOM); ofx: OFX 2.2, one entry per movement of the balance.',
    }),
    delimiter: z.enum(['comma', 'semicolon'], { error: messages.exportDelimiterInvalid }).optional().meta({
      description:
        "CSV only: 'comma' (default, RFC 4180: these names, decimal point) or 'semicolon' (for Excel in Portuguese, which opens it with a double click: Portuguese column names, decimal comma).",
    }),
  })
  .extend(transactionFilterQuery.shape)
  .meta({ description: `createdFrom and createdTo are required; at most ${EXPORT_MAX_DAYS} days.` });

export const statementParams = z.object({
  date: z.string().meta({ description: 'A closed America/Sao_Paulo day, AAAA-MM-DD.' }),
});

const cents = (description: string) => z.number().int().meta({ description });
const unixMs = (description: string) =>
  z
    .number()
    .int()
    .meta({ description: `${description} (Unix ms)` });

/** A closed day's statement as served (docs/history.md "Daily statements"); `buildStatement` writes exactly this shape. */
export const statementSchema = z
  .object({
    accountId: z.string(),
    date: z.string().meta({ description: 'The America/Sao_Paulo day, AAAA-MM-DD.' }),
    timezone: z.literal('America/Sao_Paulo'),
    currency: z.literal('BRL'),
    periodStart: unixMs("The day's start"),
    periodEnd: unixMs("The next day's start, excluded"),
    openingBalanceCents: cents("The previous day's closing balance (0 on the account's first day)."),
    creditsCents: cents("The day's credits, positive."),
    debitsCents: cents("The day's debits, positive."),
    closingBalanceCents: cents("Opening + credits − debits: the ledger's balance at the day's end."),
    openingBlockedCents: cents('Blocked at the day’s start.'),
    closingBlockedCents: cents('Blocked at the day’s end.'),
    movementCount: z.number().int(),
    movements: z.array(
      z.object({
        movementId: z.string(),
        at: unixMs('When it was posted'),
        kind: z.string().meta({ description: 'What moved the balance: a charge paid, a withdrawal, a refund, an adjustment…' }),
        transactionId: z.string().nullable(),
        amountCents: cents('Signed: credits positive, debits negative.'),
        feeCents: cents('The fee taken by this movement.'),
        balanceAfterCents: cents('The balance after it.'),
        memo: z.string().nullable().meta({ description: "A refund's id, an adjustment's reason." }),
      }),
    ),
    blocks: z.array(
      z.object({
        blockId: z.string(),
        at: unixMs('When it was placed or released'),
        event: z.enum(['placed', 'released']),
        amountCents: cents('The amount held.'),
        reason: z.string(),
      }),
    ),
    previousDigest: z.string().nullable().meta({ description: "SHA-256 (hex) of the previous day's text; null on the account's first day." }),
    generatedAt: unixMs('When the day was closed'),
  })
  .meta({ id: 'Statement' });

export type StatementBody = z.infer<typeof statementSchema>;
