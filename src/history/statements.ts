import { createHash } from 'node:crypto';
import { blockedAt, blockEvents, merchantBalanceAt, merchantMovements, type MovementPosition } from '../ledger/repository.js';
import type { Executor } from '../platform/database.js';
import { dayAfter, dayStart } from '../platform/saoPauloDay.js';
import type { StatementsTable } from '../platform/schema.js';
import type { StatementBody } from './schemas.js';

/** Movements read per query while a day is closed. */
const MOVEMENTS_PER_READ = 5_000;

type Previous = Pick<StatementsTable, 'day' | 'closingBalanceCents' | 'closingBlockedCents' | 'digest'>;

/**
 * A closed day's statement (DESIGN.md §15): the opening balance (the previous day's closing, or
 * the ledger's at the day's start for an account's first statement), every movement of the
 * merchant book in posting order with the balance after it, the blocks placed and released,
 * the closing balance, and the previous day's digest. The body is the exact text served; the
 * digest is its SHA-256.
 */
export async function buildStatement(db: Executor, accountId: string, day: string, previous: Previous | undefined, now: Date): Promise<StatementsTable> {
  const from = dayStart(day);
  const to = dayStart(dayAfter(day));
  if (!from || !to) throw new Error(`not a day: ${day}`);
  const period = { from, to };
  const openingBalanceCents = previous ? previous.closingBalanceCents : await merchantBalanceAt(db, accountId, from);
  const openingBlockedCents = previous ? previous.closingBlockedCents : await blockedAt(db, accountId, from);

  const movements = [];
  let balance = openingBalanceCents;
  let creditsCents = 0;
  let debitsCents = 0;
  for (let after: MovementPosition | undefined; ;) {
    const page = await merchantMovements(db, accountId, period, { after, limit: MOVEMENTS_PER_READ });
    for (const movement of page) {
      balance += movement.amountCents;
      if (movement.amountCents >= 0) creditsCents += movement.amountCents;
      else debitsCents -= movement.amountCents;
      movements.push({
        movementId: movement.movementId,
        at: movement.at.getTime(),
        kind: movement.kind,
        transactionId: movement.transactionId,
        amountCents: movement.amountCents,
        feeCents: movement.feeCents,
        balanceAfterCents: balance,
        memo: movement.memo,
      });
    }
    const last = page.at(-1);
    if (page.length < MOVEMENTS_PER_READ || !last) break;
    after = { at: last.at, entryId: last.entryId };
  }

  let blocked = openingBlockedCents;
  const blocks = (await blockEvents(db, accountId, period)).map((event) => {
    blocked += event.event === 'placed' ? event.amountCents : -event.amountCents;
    return { blockId: event.blockId, at: event.at.getTime(), event: event.event, amountCents: event.amountCents, reason: event.reason };
  });

  const statement: StatementBody = {
    accountId,
    date: day,
    timezone: 'America/Sao_Paulo',
    currency: 'BRL',
    periodStart: from.getTime(),
    periodEnd: to.getTime(),
    openingBalanceCents,
    creditsCents,
    debitsCents,
    closingBalanceCents: balance,
    openingBlockedCents,
    closingBlockedCents: blocked,
    movementCount: movements.length,
    movements,
    blocks,
    previousDigest: previous?.digest ?? null,
    generatedAt: now.getTime(),
  };
  const body = JSON.stringify(statement);
  return {
    accountId,
    day,
    openingBalanceCents,
    closingBalanceCents: balance,
    openingBlockedCents,
    closingBlockedCents: blocked,
    movementCount: movements.length,
    previousDigest: previous?.digest ?? null,
    digest: sha256(body),
    body,
    createdAt: now,
  };
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
