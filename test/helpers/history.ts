import type { Gateway } from './gateway.js';
import type { TransactionStatus, TransactionType } from '../../src/platform/schema.js';
import { v7 as uuidv7 } from 'uuid';

/** One stored transaction, as a history test writes it straight into the table (thousands in a second). */
export type SeededTransaction = {
  id: string;
  accountId: string;
  type: TransactionType;
  status: TransactionStatus;
  amountCents: number;
  feeCents: number;
  externalRef: string | null;
  endToEndId: string | null;
  payerDocument: string | null;
  createdAt: Date;
};

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A well-formed end-to-end id (E + ISPB + UTC minute + 11 characters) unique to `n`. */
export function endToEndIdOf(at: Date, n: number): string {
  const minute = at.toISOString().slice(0, 16).replace(/[-T:]/g, '');
  let suffix = '';
  for (let rest = n, i = 0; i < 11; i++, rest = Math.floor(rest / ALPHANUMERIC.length)) suffix += ALPHANUMERIC[rest % ALPHANUMERIC.length];
  return `E12345678${minute}${suffix}`;
}

/** A transaction row of `accountId` with everything a list shows; a payer only when settled. */
export function seeded(accountId: string, fields: Partial<SeededTransaction> & { createdAt: Date }): SeededTransaction {
  return {
    id: uuidv7({ msecs: fields.createdAt.getTime() }),
    accountId,
    type: 'pix_in',
    status: 'paid',
    amountCents: 1_000,
    feeCents: 0,
    externalRef: null,
    endToEndId: null,
    payerDocument: null,
    ...fields,
  };
}

/** Writes the rows in batches of 500 (one statement each). */
export async function insertTransactions(gateway: Gateway, rows: SeededTransaction[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    await gateway.database.db
      .insertInto('transactions')
      .values(
        rows.slice(start, start + 500).map((row) => ({
          id: row.id,
          accountId: row.accountId,
          type: row.type,
          status: row.status,
          amountCents: row.amountCents,
          feeCents: row.feeCents,
          netCents: row.type === 'pix_in' ? row.amountCents - row.feeCents : row.amountCents + row.feeCents,
          externalRef: row.externalRef,
          endToEndId: row.endToEndId,
          payer: row.payerDocument
            ? JSON.stringify({
                name: 'Pagador',
                document: row.payerDocument,
                documentType: 'cpf',
                bankAccount: { ispb: '12345678', branch: '0001', account: '1' },
              })
            : null,
          providerId: 'default',
          createdAt: row.createdAt,
          updatedAt: row.createdAt,
        })),
      )
      .execute();
  }
}
