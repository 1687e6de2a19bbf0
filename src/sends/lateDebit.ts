import { findBalance, insertBlock, postMovement, releaseBlock, type Movement } from '../ledger/repository.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { ProviderSendRow } from '../platform/schema.js';
import { decisionNote } from './changes.js';
import { OWED_RETRY_MS } from './policy.js';
import { changeSend } from './repository.js';

/** A debit taken back after the PSP completed a send the gateway had reversed: the reversal undone. */
export type LateDebit = Omit<Movement, 'at' | 'forbidNegativeBalance'> & { blockReason: string };

const debitedCents = (debit: LateDebit) => -debit.entries.filter((entry) => entry.book === 'merchant').reduce((sum, entry) => sum + entry.amountCents, 0);

/**
 * Posts a late debit when the balance covers it; otherwise it never takes the balance below zero:
 * a block holds the amount (nothing more can leave the account) and the debit is owed.
 */
export async function postOrBlock(tx: Tx, debit: LateDebit, at: Date): Promise<{ debited: boolean; blockId: string | null }> {
  const { blockReason, ...movement } = debit;
  if (await postMovement(tx, { ...movement, at, forbidNegativeBalance: true })) return { debited: true, blockId: null };
  const blockId = newId();
  await insertBlock(tx, { id: blockId, accountId: debit.accountId, amountCents: debitedCents(debit), reason: blockReason, at });
  return { debited: false, blockId };
}

/** An owed debit tried again: once the balance covers it, it is posted and its block released (the send closes). */
export function collectOwed(db: Db, send: ProviderSendRow, debit: LateDebit, at: Date): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    await findBalance(tx, debit.accountId, { lock: true });
    const { blockReason: _unused, ...movement } = debit;
    if (!(await postMovement(tx, { ...movement, at, forbidNegativeBalance: true }))) {
      await changeSend(
        tx,
        send.id,
        { state: 'owed', note: decisionNote(at, 'debit_still_uncovered'), nextCheckAt: new Date(at.getTime() + OWED_RETRY_MS) },
        at,
      );
      return false;
    }
    if (send.blockId) await releaseBlock(tx, send.blockId, at);
    await changeSend(tx, send.id, { state: 'closed', note: decisionNote(at, 'debit_collected') }, at);
    return true;
  });
}
