import { END_TO_END_ID_PATTERN } from './endToEndId.js';

/** The txid of one of our transactions: its id's 32 hex digits without hyphens (DESIGN.md §12). */
export const txidOf = (transactionId: string): string => transactionId.replaceAll('-', '');

/** A UUID v7's 32 hex digits without hyphens: the version digit 7 and the variant 8, 9, a or b where a UUID v7 has them. */
const TXID_OF_OURS = /^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/;

/**
 * The transactionId a txid names: the txid of our charges at a PSP (and the id of our withdrawals
 * and refunds at the PSP) is the transactionId's 32 hex digits without hyphens. Upper case is read
 * too (bank statements show it so). An end-to-end id (E + ISPB + minute + 11 characters) can be 32
 * hex digits as well: it is one, not a txid (a UUID v7 starting with `e` would be dated past the
 * year 9000). Anything else is undefined.
 */
export function transactionIdOfTxid(text: string): string | undefined {
  const trimmed = text.trim();
  const hex = trimmed.toLowerCase();
  if (END_TO_END_ID_PATTERN.test(trimmed) || !TXID_OF_OURS.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
