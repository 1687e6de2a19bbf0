import type { AccountService } from '../accounts/service.js';
import { InsufficientBalanceError, InvalidStateError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import { dayAfter, dayOf } from '../platform/saoPauloDay.js';
import * as repository from './repository.js';

/** One day of Início's chart: AAAA-MM-DD (America/Sao_Paulo) and what came in and went out. */
export type DailyMoney = { day: string; receivedCents: number; sentCents: number };

/** Balances and operator movements: ledger adjustments and precautionary blocks. */
export class LedgerService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly accounts: AccountService,
  ) {}

  /** A signed adjustment against the adjustments book; it may not take the balance below zero. */
  async adjust(accountId: string, amountCents: number, reason: string) {
    await this.accounts.getAccount(accountId);
    const at = this.clock.now();
    const result = await this.db.transaction().execute((tx) =>
      repository.postMovement(tx, {
        accountId,
        kind: 'adjustment',
        memo: reason,
        at,
        forbidNegativeBalance: true,
        entries: [
          { book: 'merchant', amountCents },
          { book: 'adjustments', amountCents: -amountCents },
        ],
      }),
    );
    if (!result) throw new InsufficientBalanceError(messages.adjustmentWouldGoNegative);
    return { adjustmentId: result.movementId, accountId, amountCents, reason, available: result.availableCents, createdAt: at.getTime() };
  }

  async createBlock(accountId: string, amountCents: number, reason: string) {
    await this.accounts.getAccount(accountId);
    const block = { id: newId(), accountId, amountCents, reason, at: this.clock.now() };
    await repository.insertBlock(this.db, block);
    return { blockId: block.id, accountId, amountCents, reason, status: 'active' as const, createdAt: block.at.getTime() };
  }

  /** Releases an active block (of the account, when given: the back-office's page of that account). */
  async releaseBlock(blockId: string, accountId?: string): Promise<void> {
    const block = await repository.findBlock(this.db, blockId);
    if (accountId !== undefined && block?.accountId !== accountId) throw new NotFoundError(messages.blockNotFound);
    // A held PIX's block ends with its hold, so that the charge and its block always agree.
    if (block?.kind === 'cautionary') throw new InvalidStateError(messages.cautionaryBlockThroughHold(block.transactionId ?? ''));
    const released = await repository.releaseBlock(this.db, blockId, this.clock.now());
    if (!released && !(await repository.findBlock(this.db, blockId))) throw new NotFoundError(messages.blockNotFound);
  }

  /** The account's blocks (the back-office): active first, then the latest released. */
  async listBlocks(accountId: string) {
    const rows = await repository.listBlocks(this.db, accountId, 50);
    return rows.map((row) => ({
      blockId: row.id,
      amountCents: row.amountCents,
      reason: row.reason,
      status: row.status,
      kind: row.kind,
      infractionId: row.infractionId,
      createdAt: row.createdAt.getTime(),
      releasedAt: row.releasedAt?.getTime() ?? null,
    }));
  }

  /**
   * The balance of an account known to exist (the authenticated merchant's): one read. `owed` is
   * what MED chargebacks took beyond the balance (later credits pay it first); `shortfall` what
   * running MED cases' blocks still lack (later credits are blocked for them next).
   */
  async balanceOf(accountId: string) {
    const { availableCents, blockedCents, shortfallCents } = await repository.findBalance(this.db, accountId);
    return {
      available: availableCents,
      blocked: blockedCents,
      withdrawable: availableCents - blockedCents,
      owed: Math.max(0, -availableCents),
      shortfall: shortfallCents,
    };
  }

  /** Of the account's blocked money, what the PSP holds on received PIX (cautionary blocks). */
  heldOf(accountId: string): Promise<number> {
    return repository.findHeldCents(this.db, accountId);
  }

  /**
   * The money received (net credited) and sent (debited, fees included) on each of the `days`
   * days ending today (America/Sao_Paulo), oldest first, days without money at zero: Início's chart.
   */
  async dailyMoney(accountId: string, days: number): Promise<DailyMoney[]> {
    const last = dayOf(this.clock.now());
    const first = dayAfter(last, 1 - days);
    const sums = new Map((await repository.dailySums(this.db, accountId, first, last)).map((row) => [row.day, row]));
    return Array.from({ length: days }, (_, index) => {
      const day = dayAfter(first, index);
      const row = sums.get(day);
      return { day, receivedCents: row?.creditedCents ?? 0, sentCents: row?.debitedCents ?? 0 };
    });
  }

  /** Any account's balance (operator); NotFoundError for an unknown account. */
  async balance(accountId: string) {
    await this.accounts.getAccount(accountId);
    return this.balanceOf(accountId);
  }
}
