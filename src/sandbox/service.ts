import { messages } from '../messages.js';
import type { Db } from '../platform/database.js';
import { ApiError } from '../platform/errors.js';
import type { TransactionRow } from '../platform/schema.js';
import type { SimulatedPixProvider } from '../provider/simulated.js';
import { findTransaction } from '../transactions/repository.js';
import type { WithdrawalService } from '../withdrawals/service.js';

export type SettleOutcome = 'paid' | 'failed' | 'returned';

/** The simulated PIX network's answers about withdrawals (DESIGN.md §6). */
export class SandboxService {
  constructor(
    private readonly db: Db,
    private readonly simulator: SimulatedPixProvider,
    private readonly withdrawals: WithdrawalService,
  ) {}

  /**
   * The provider's answer for a withdrawal of the account. A processing withdrawal changes at
   * once (the provider notifies us); for a `failed_unknown` one the provider only learns the
   * outcome, which the reconciliation worker then finds.
   */
  async settle(accountId: string, transactionId: string, outcome: SettleOutcome, amountCents: number | undefined): Promise<TransactionRow> {
    const withdrawal = await findTransaction(this.db, accountId, transactionId);
    if (!withdrawal || withdrawal.type !== 'withdrawal') throw new ApiError(404, messages.transactionNotFound);
    if (outcome === 'returned') return this.withdrawals.markReturned(transactionId, accountId, amountCents);
    if (withdrawal.status !== 'processing' && withdrawal.status !== 'failed_unknown') {
      throw new ApiError(422, messages.withdrawalWrongStatus(withdrawal.status));
    }
    await this.simulator.recordOutcome(transactionId, outcome);
    if (withdrawal.status === 'failed_unknown') return withdrawal;
    if (outcome === 'failed') return this.withdrawals.fail(transactionId, { releaseExternalRef: false }, accountId);
    return this.withdrawals.markPaid(transactionId, await this.simulator.beneficiaryOf(transactionId), accountId);
  }

  /** Worker step: processing withdrawals whose SANDBOX_SETTLE_MS elapsed are paid. */
  async settleDue(batch = 200): Promise<number> {
    let settled = 0;
    for (const due of await this.simulator.dueSettlements(batch)) {
      const withdrawal = await findTransaction(this.db, due.accountId, due.transactionId);
      await this.simulator.recordOutcome(due.transactionId, 'paid');
      if (withdrawal?.status !== 'processing') continue; // settled by hand meanwhile
      try {
        await this.withdrawals.markPaid(due.transactionId, await this.simulator.beneficiaryOf(due.transactionId));
        settled++;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error; // a concurrent settle won the race
      }
    }
    return settled;
  }
}
