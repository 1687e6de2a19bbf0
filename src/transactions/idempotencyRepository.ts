import { sql, type RawBuilder } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';

/** Spec: an externalRef is retained 7 days from creation (withdrawals keep it as long as charges). */
const IDEMPOTENCY_RETENTION_MS = 7 * 86_400_000;
const RETENTION = `${IDEMPOTENCY_RETENTION_MS} milliseconds`;

/** externalRef namespaces: a charge, a withdrawal and a refund may share a reference. */
export const IDEMPOTENCY_SCOPE = { charge: 'pix', withdrawal: 'withdraw', refund: 'refund' } as const;
export type IdempotencyScope = (typeof IDEMPOTENCY_SCOPE)[keyof typeof IDEMPOTENCY_SCOPE];

type KeyReference = { accountId: string; scope: IdempotencyScope; externalRef: string };

/** The transaction a still-valid externalRef of the account points to, if any (one query). */
export function findTransactionByExternalRef(db: Executor, key: KeyReference, at: Date) {
  return db
    .selectFrom('idempotencyKeys as k')
    .innerJoin('transactions as t', 't.id', 'k.transactionId')
    .selectAll('t')
    .where('k.accountId', '=', key.accountId)
    .where('k.scope', '=', key.scope)
    .where('k.externalRef', '=', key.externalRef)
    .where('k.expiresAt', '>', at)
    .where('t.accountId', '=', key.accountId)
    .executeTakeFirst();
}

/**
 * The claim of claimIdempotencyKey as a statement, RETURNING the claim (no row when a still-valid
 * key holds the externalRef); as a CTE of a caller's write, `after` names the CTE (a lock the
 * write takes first) it runs after, once per row.
 */
export function idempotencyClaim(key: Readonly<Record<keyof KeyReference | 'transactionId', unknown>>, at: unknown, after?: string): RawBuilder<unknown> {
  // Its values are only parameters (a statement template may pass its stand-ins): the expiry is computed here.
  return sql`
    INSERT INTO idempotency_keys (account_id, scope, external_ref, transaction_id, expires_at)
    SELECT ${key.accountId}::uuid, ${key.scope}::text, ${key.externalRef}::text, ${key.transactionId}::uuid, ${at}::timestamptz + ${sql.lit(RETENTION)}::interval ${after === undefined ? sql`` : sql`FROM ${sql.table(after)}`}
    ON CONFLICT (account_id, scope, external_ref) DO UPDATE SET transaction_id = excluded.transaction_id, expires_at = excluded.expires_at
      WHERE idempotency_keys.expires_at <= ${at}::timestamptz
    RETURNING transaction_id`;
}

/**
 * Claims externalRef for a new transaction, for the retention period from `at`. Returns true when
 * claimed; false when a still-valid key holds it. On the server a concurrent claim waits for the
 * first to commit or roll back; an expired key is taken over.
 */
export async function claimIdempotencyKey(tx: Tx, key: KeyReference & { transactionId: string }, at: Date): Promise<boolean> {
  const { rows } = await idempotencyClaim(key, at).execute(tx);
  return rows.length > 0;
}

/** Frees an externalRef (its transaction did not go through), so a retry creates a new one; only while it still names `heldBy`, when given. */
export async function releaseIdempotencyKey(tx: Tx, key: KeyReference, heldBy?: string): Promise<void> {
  let query = tx.deleteFrom('idempotencyKeys').where('accountId', '=', key.accountId).where('scope', '=', key.scope).where('externalRef', '=', key.externalRef);
  if (heldBy) query = query.where('transactionId', '=', heldBy);
  await query.execute();
}

export async function purgeExpiredIdempotencyKeys(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('idempotencyKeys').where('expiresAt', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
