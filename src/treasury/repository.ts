import { sql } from 'kysely';
import type { Executor } from '../platform/database.js';
import type { ProviderBalanceRow } from '../platform/schema.js';

/**
 * Money in and out through each provider as the ledger's settlement book has it: a credited PIX
 * is money in, a withdrawal or refund debited money out, a reversal money back in.
 */
export async function settlementByProvider(db: Executor): Promise<Map<string, { inCents: number; outCents: number }>> {
  const { rows } = await sql<{ providerId: string; inCents: string; outCents: string }>`
    SELECT t.provider_id AS "providerId",
           coalesce(sum(-e.amount_cents) FILTER (WHERE e.amount_cents < 0), 0) AS "inCents",
           coalesce(sum(e.amount_cents) FILTER (WHERE e.amount_cents > 0), 0) AS "outCents"
      FROM ledger_entries e JOIN transactions t ON t.id = e.transaction_id
     WHERE e.book = 'settlement'
     GROUP BY t.provider_id`.execute(db);
  return new Map(rows.map((row) => [row.providerId, { inCents: Number(row.inCents), outCents: Number(row.outCents) }]));
}

export function findBalances(db: Executor): Promise<ProviderBalanceRow[]> {
  return db.selectFrom('providerBalances').selectAll().orderBy('providerId').execute();
}

/** Stores a reading; answers whether the provider was low already before it (the alert is raised once, when it becomes low). */
export async function storeBalance(db: Executor, reading: ProviderBalanceRow): Promise<{ wasLow: boolean }> {
  const previous = await db.selectFrom('providerBalances').select('low').where('providerId', '=', reading.providerId).forUpdate().executeTakeFirst();
  await db
    .insertInto('providerBalances')
    .values(reading)
    .onConflict((conflict) => conflict.column('providerId').doUpdateSet(reading))
    .execute();
  return { wasLow: previous?.low ?? false };
}
