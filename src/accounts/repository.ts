import type { Insertable, Updateable } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { AccountsTable, FeePlansTable } from '../platform/schema.js';

/** A new account with its balance row at zero (the ledger's postMovement is that row's only writer afterwards). */
export async function insertAccount(tx: Tx, account: Insertable<AccountsTable>): Promise<void> {
  await tx.insertInto('accounts').values(account).execute();
  await tx.insertInto('balances').values({ accountId: account.id, availableCents: 0 }).execute();
}

export function findAccount(db: Executor, accountId: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

/** Accounts newest first (the back-office's list), optionally those whose name or e-mail contains `search`. */
export function listAccounts(db: Executor, options: { search?: string | undefined; limit: number }) {
  let query = db.selectFrom('accounts').selectAll();
  if (options.search) {
    const pattern = `%${options.search.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
    query = query.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('email', 'ilike', pattern)]));
  }
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

export async function anyAccountExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
}

export async function updateAccount(db: Executor, accountId: string, changes: Updateable<AccountsTable>): Promise<void> {
  await db.updateTable('accounts').set(changes).where('id', '=', accountId).execute();
}

export function findFeePlans(db: Executor, accountId: string) {
  return db.selectFrom('feePlans').selectAll().where('accountId', '=', accountId).execute();
}

export async function upsertFeePlan(db: Executor, plan: Insertable<FeePlansTable>): Promise<void> {
  await db
    .insertInto('feePlans')
    .values(plan)
    .onConflict((conflict) =>
      conflict.columns(['accountId', 'transactionType']).doUpdateSet({
        fixedCents: plan.fixedCents,
        bps: plan.bps,
        minCents: plan.minCents,
        maxCents: plan.maxCents,
      }),
    )
    .execute();
}

export async function insertApiKey(db: Executor, key: { id: string; accountId: string; prefix: string; keyHash: Buffer }): Promise<void> {
  await db
    .insertInto('apiKeys')
    .values({ ...key, revokedAt: null, ipAllowlist: null })
    .execute();
}

export function findApiKeyByPrefix(db: Executor, prefix: string) {
  return db.selectFrom('apiKeys').select(['id', 'accountId', 'keyHash', 'ipAllowlist', 'revokedAt']).where('prefix', '=', prefix).executeTakeFirst();
}

export function findApiKey(db: Executor, keyId: string) {
  return db.selectFrom('apiKeys').select(['id', 'accountId', 'prefix', 'ipAllowlist', 'createdAt', 'revokedAt']).where('id', '=', keyId).executeTakeFirst();
}

/** An account's keys, newest first (the dashboard's list: public prefix, creation, revocation). */
export async function recordApiKeyUse(db: Executor, keyId: string, at: Date): Promise<void> {
  await db.updateTable('apiKeys').set({ lastUsedAt: at }).where('id', '=', keyId).execute();
}

export function listApiKeys(db: Executor, accountId: string) {
  return db
    .selectFrom('apiKeys')
    .select(['id', 'prefix', 'createdAt', 'revokedAt', 'lastUsedAt'])
    .where('accountId', '=', accountId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function revokeApiKey(db: Executor, keyId: string, at: Date): Promise<void> {
  await db.updateTable('apiKeys').set({ revokedAt: at }).where('id', '=', keyId).where('revokedAt', 'is', null).execute();
}

export async function setApiKeyAllowlist(db: Executor, keyId: string, ipAllowlist: string[] | null): Promise<void> {
  await db.updateTable('apiKeys').set({ ipAllowlist }).where('id', '=', keyId).execute();
}
