import type { Executor } from '../platform/database.js';
import type { RoutingRules } from '../platform/schema.js';

/** The stored routing rules; undefined while an operator never set any. */
export async function findRoutingRules(db: Executor): Promise<RoutingRules | undefined> {
  return (await db.selectFrom('routingRules').select('rules').where('id', '=', 1).executeTakeFirst())?.rules;
}

/** Replaces the rules whole. */
export async function replaceRoutingRules(db: Executor, rules: RoutingRules, at: Date): Promise<void> {
  const document = JSON.stringify(rules);
  await db
    .insertInto('routingRules')
    .values({ id: 1, rules: document, updatedAt: at })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ rules: document, updatedAt: at }))
    .execute();
}
