import type { Executor } from '../platform/database.js';
import { precompiled } from '../platform/precompiled.js';

export type DirectiveOperation = 'charge' | 'withdrawal';

/** Arms a one-shot outcome for the account's next call of that operation. */
export async function armDirective(db: Executor, accountId: string, operation: DirectiveOperation, outcome: string): Promise<void> {
  await db.insertInto('sandboxDirectives').values({ accountId, operation, outcome }).execute();
}

const oldestDirective = precompiled((db, accountId: string, operation: DirectiveOperation) =>
  db
    .deleteFrom('sandboxDirectives')
    .where('id', '=', (eb) =>
      eb.selectFrom('sandboxDirectives').select('id').where('accountId', '=', accountId).where('operation', '=', operation).orderBy('id').limit(1).forUpdate().skipLocked(),
    )
    .returning('outcome'),
);

/** Consumes the oldest armed outcome, if any: exactly one call sees it, even across processes. */
export async function takeDirective(db: Executor, accountId: string, operation: DirectiveOperation): Promise<string | undefined> {
  const [row] = await oldestDirective(db, accountId, operation);
  return row?.outcome;
}
