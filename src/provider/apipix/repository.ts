import type { Executor } from '../../platform/database.js';

/** Where the named poller stopped, if it ever ran. */
export async function findCursor(db: Executor, name: string): Promise<Date | undefined> {
  return (await db.selectFrom('pspCursors').select('position').where('name', '=', name).executeTakeFirst())?.position;
}

/** Moves the cursor forward only: two pollers never take it back. */
export async function advanceCursor(db: Executor, name: string, position: Date): Promise<void> {
  await db
    .insertInto('pspCursors')
    .values({ name, position })
    .onConflict((conflict) => conflict.column('name').doUpdateSet({ position }).where('pspCursors.position', '<', position))
    .execute();
}
