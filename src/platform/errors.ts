/** `thrown` as an Error: itself when it is one (a throw may be of any value). */
export const asError = (thrown: unknown): Error => (thrown instanceof Error ? thrown : new Error(String(thrown)));

/** The `code` of a Node or driver error (`EEXIST`, a SQLSTATE…), if it has one. */
export const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

/**
 * SQLSTATEs and socket errors of a database that went away or is not (yet) the primary: a
 * restart, a failover (a node mid-promotion or a standby answers 25006, "read-only transaction"),
 * a killed connection, a server out of connection slots.
 */
const DATABASE_UNAVAILABLE = new Set([
  '25006',
  '53300',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

/**
 * Of those, the ones whose statement cannot have run: no connection was made (refused, out of
 * slots, not accepting yet, a connect timeout) or the node refused to write (25006). A commit's
 * outcome is known then: nothing was written. Not EHOSTUNREACH: Linux also reports it on an open
 * connection whose retransmissions went unanswered, after a statement may have run.
 */
const NEVER_RAN = new Set(['25006', '53300', '57P03', '08001', '08004', 'ECONNREFUSED']);

/**
 * A transaction whose COMMIT may have run: its connection was lost after it was sent, or COMMIT
 * failed. Never "nothing was written", whatever its cause says; a database unavailable for the
 * answer (never 500).
 */
export class CommitOutcomeUnknownError extends Error {
  constructor(cause: Error) {
    super(`the commit's outcome is unknown: ${cause.message}`, { cause });
  }
}

export function statementNeverRan(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof CommitOutcomeUnknownError) return false;
  const code = errorCode(error);
  if (code !== undefined) return NEVER_RAN.has(code);
  return /^timeout exceeded when trying to connect/.test(error.message);
}

/** The database could not be reached or could not write: the request may be retried, never answered 500. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof CommitOutcomeUnknownError) return true;
  const code = errorCode(error);
  if (code !== undefined) return DATABASE_UNAVAILABLE.has(code);
  // pg's own words for a connection that ended under a query or a checkout.
  return /^Connection terminated|^Client has encountered a connection error|^timeout exceeded when trying to connect/.test(error.message);
}

/** The SQLSTATE of gateway_refusal (migration 025): a write refused from inside its own statement, nothing written. */
const REFUSED_IN_STATEMENT = 'GW001';

/** The reason a statement refused itself (gateway_refusal), if that is what `error` is. */
export function refusalInStatement(error: unknown): string | undefined {
  return errorCode(error) === REFUSED_IN_STATEMENT && error instanceof Error ? error.message : undefined;
}
