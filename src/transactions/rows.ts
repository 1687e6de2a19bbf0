import type { PixKeyType } from '../pix/pixKeys.js';
import type { Holder, TransactionRow } from '../platform/schema.js';

/**
 * A transaction row read as the type it is. The table has one column set for every type, so each
 * type-specific column is nullable there; a row of one type always has its own (a withdrawal its
 * key, its key type and who it may pay; a charge its BR Code and expiry), and one that does not is
 * a fault to stop on, never a value to default on the money path.
 */
export type WithdrawalRow = TransactionRow & { type: 'withdrawal'; pixKey: string; pixKeyType: PixKeyType; expectedHolder: Holder };

/** A charge created by POST /v1/pix: its BR Code and its expiry. */
export type ChargeRow = TransactionRow & { type: 'pix_in'; pixPayload: string; expiresAt: Date };

const isWithdrawalRow = (row: TransactionRow): row is WithdrawalRow =>
  row.type === 'withdrawal' && row.pixKey !== null && row.pixKeyType !== null && row.expectedHolder !== null;

const isChargeRow = (row: TransactionRow): row is ChargeRow => row.type === 'pix_in' && row.pixPayload !== null && row.expiresAt !== null;

/** The row as a withdrawal; throws when it is not one with its key and holder. */
export function asWithdrawal(row: TransactionRow): WithdrawalRow {
  if (!isWithdrawalRow(row)) throw new Error(`transaction ${row.id} is not a withdrawal with its key, key type and expected holder`);
  return row;
}

/** The row as a charge with its BR Code and expiry; throws when it is not one. */
export function asCharge(row: TransactionRow): ChargeRow {
  if (!isChargeRow(row)) throw new Error(`transaction ${row.id} is not a charge with its BR Code and expiry`);
  return row;
}
