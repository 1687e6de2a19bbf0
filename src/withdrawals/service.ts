import type { Account } from '../accounts/model.js';
import { SIMULATED_ISPB } from '../config.js';
import { computeFee } from '../ledger/fees.js';
import { findBalance, postMovement } from '../ledger/repository.js';
import { messages } from '../messages.js';
import { generateEndToEndId } from '../pix/endToEndId.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { ApiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { consumeRateLimits } from '../platform/rateLimit.js';
import type { Party, TransactionRow } from '../platform/schema.js';
import { ProviderError, ProviderOutcomeUnknownError, type PixProvider, type WithdrawalSubmission } from '../provider/provider.js';
import { claimIdempotencyKey, findTransactionByExternalRef, IDEMPOTENCY_SCOPE, releaseIdempotencyKey } from '../transactions/idempotency.js';
import { findTransaction, insertTransaction } from '../transactions/repository.js';
import { recordTransactionEvent, recordTransactionEvents, type EventName } from '../webhooks/events.js';
import * as repository from './repository.js';
import type { CreateWithdrawalBody } from './schemas.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Where a withdrawal may go: the holder (Mode 1) or an approved recipient (Mode 2). */
export type Destination = { holder: Party; recipientId: string | null; thirdParty: boolean };

export type WithdrawalCreated =
  | { statusCode: 201 | 200; body: { transactionId: string; status: string; amountCents: number; feeCents: number; totalDeducted: number; idempotent?: true } }
  | { statusCode: 202; body: { error: string; transactionId: string; status: 'failed_unknown' } };

const summary = (row: TransactionRow) => ({
  transactionId: row.id,
  status: row.status,
  amountCents: row.amountCents,
  feeCents: row.feeCents,
  totalDeducted: row.amountCents + row.feeCents,
});

/** The bank account the simulator attributes to holders and recipients it has no data for. */
export const simulatedBankAccount = () => ({ ispb: SIMULATED_ISPB, branch: '0001', account: '0000001' });

export class WithdrawalService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly provider: PixProvider,
  ) {}

  async createWithdrawal(account: Account, input: CreateWithdrawalBody, destination: Destination): Promise<WithdrawalCreated> {
    const externalRef = input.externalRef ?? null;
    if (externalRef) {
      // Idempotent retries answer at once and consume no rate limit.
      const existing = await findTransactionByExternalRef(this.db, { accountId: account.id, scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef }, this.clock.now());
      if (existing) return { statusCode: 200, body: { ...summary(existing), idempotent: true } };
    }
    const feeCents = computeFee(account.fees.withdrawal, input.amountCents, { capAtAmount: false });
    const manual = account.withdrawalMode === 'manual';

    const outcome = await this.db.transaction().execute(async (tx): Promise<{ replay: TransactionRow } | { created: TransactionRow }> => {
      const now = this.clock.now();
      const transactionId = newId();
      if (externalRef) {
        const key = { accountId: account.id, scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef };
        if (!(await claimIdempotencyKey(tx, { ...key, transactionId }, now))) {
          const winner = await findTransactionByExternalRef(tx, key, now);
          if (!winner) throw new Error('idempotency key held without its transaction');
          return { replay: winner };
        }
      }
      // One withdrawal of an account at a time from here: the checks below and the debit are one step.
      const balance = await findBalance(tx, account.id, { lock: true });
      await this.consumeWithdrawalLimits(tx, account, now);
      await this.checkCaps(tx, account, input.amountCents, now);
      const totalCents = input.amountCents + feeCents;
      if (!manual && balance.availableCents - balance.blockedCents < totalCents) throw new ApiError(422, messages.insufficientBalance);

      const row = await insertTransaction(tx, {
          id: transactionId,
          accountId: account.id,
          type: 'withdrawal',
          status: manual ? 'pending_approval' : 'processing',
          amountCents: input.amountCents,
          feeCents,
          netCents: input.amountCents,
          externalRef,
          description: input.description ?? null,
          customer: null,
          pixPayload: null,
          location: null,
          expiresAt: null,
          paidAt: null,
          endToEndId: null,
          payer: null,
          beneficiary: JSON.stringify(destination.holder),
          refundEndToEndId: null,
          pixKey: input.pixKey,
          pixKeyType: input.pixKeyType,
          recipientId: destination.recipientId,
          createdAt: now,
          updatedAt: now,
        });
      if (!manual) await this.moveWithdrawalMoney(tx, row, now, 1);
      await recordTransactionEvents(
        tx,
        [
          { name: 'transfer.created', transaction: row },
          { name: manual ? 'transfer.pending_approval' : 'transfer.processing', transaction: row },
        ],
        now,
      );
      if (destination.thirdParty) {
        await repository.insertAlert(tx, {
          accountId: account.id,
          kind: 'third_party_withdrawal',
          transactionId,
          details: { recipientId: destination.recipientId, amountCents: input.amountCents, pixKeyType: input.pixKeyType },
          at: now,
        });
      }
      return { created: row };
    });

    if ('replay' in outcome) return { statusCode: 200, body: { ...summary(outcome.replay), idempotent: true } };
    const created = outcome.created;
    if (manual) return { statusCode: 201, body: summary(created) };
    return this.submit(created, destination.holder);
  }

  /** Sends a processing withdrawal to the provider and turns its answer into the HTTP outcome. */
  private async submit(row: TransactionRow, expectedHolder: Party): Promise<WithdrawalCreated> {
    let submission: WithdrawalSubmission;
    try {
      submission = await this.provider.createWithdrawal({
        accountId: row.accountId,
        transactionId: row.id,
        amountCents: row.amountCents,
        pixKey: row.pixKey ?? '',
        pixKeyType: row.pixKeyType as 'cpf',
        expectedHolder,
      });
    } catch (error) {
      if (error instanceof ProviderError) {
        // Nothing was sent: undo the debit and free the externalRef so a retry can succeed.
        await this.fail(row.id, { releaseExternalRef: true });
        throw new ApiError(502, messages.withdrawalProviderFailed);
      }
      if (error instanceof ProviderOutcomeUnknownError) {
        await this.transition(row.id, 'failed_unknown', ['processing'], async () => ({}));
        return { statusCode: 202, body: { error: messages.withdrawalIndeterminate, transactionId: row.id, status: 'failed_unknown' } };
      }
      throw error;
    }
    if (submission.status === 'rejected') {
      const failed = await this.fail(row.id, { releaseExternalRef: false });
      return { statusCode: 201, body: summary(failed) };
    }
    if (submission.confirmationInterrupted) throw new ApiError(502, messages.withdrawalConfirmationInterrupted(row.id));
    return { statusCode: 201, body: summary(row) };
  }

  /** 1/s, 2/min, 10/UTC hour by default, per account: the spec's three messages, in that order. */
  private async consumeWithdrawalLimits(tx: Tx, account: Account, now: Date): Promise<void> {
    const windows = [
      { bucket: 'withdraw:second', windowMs: SECOND_MS, limit: account.limits.withdrawPerSecond, message: messages.withdrawalPerSecond },
      { bucket: 'withdraw:minute', windowMs: MINUTE_MS, limit: account.limits.withdrawPerMinute, message: messages.withdrawalPerMinute },
      { bucket: 'withdraw:hour', windowMs: HOUR_MS, limit: account.limits.withdrawPerHour, message: messages.withdrawalPerHour },
    ];
    const exceeded = await consumeRateLimits(tx, account.id, windows, now);
    if (exceeded) throw new ApiError(429, exceeded.message);
  }

  /** Daily and monthly caps (UTC day and month) over withdrawals that hold or moved money. */
  private async checkCaps(tx: Tx, account: Account, amountCents: number, now: Date): Promise<void> {
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const { today, thisMonth } = await repository.sumWithdrawalsForCaps(tx, account.id, { dayStart, monthStart });
    if (today + amountCents > account.limits.withdrawDailyCents) throw new ApiError(422, messages.withdrawalDailyCap(account.limits.withdrawDailyCents));
    if (thisMonth + amountCents > account.limits.withdrawMonthlyCents) throw new ApiError(422, messages.withdrawalMonthlyCap(account.limits.withdrawMonthlyCents));
  }

  /** Debit (direction 1) or its exact reversal (-1): amount to settlement, fee to the platform. */
  private async moveWithdrawalMoney(tx: Tx, row: TransactionRow, at: Date, direction: 1 | -1): Promise<void> {
    await postMovement(tx, {
      accountId: row.accountId,
      kind: direction === 1 ? 'withdrawal_debit' : 'withdrawal_reversal',
      transactionId: row.id,
      at,
      entries: [
        { book: 'merchant', amountCents: -direction * (row.amountCents + row.feeCents) },
        { book: 'settlement', amountCents: direction * row.amountCents },
        { book: 'fees', amountCents: direction * row.feeCents },
      ],
    });
  }

  /**
   * Moves a withdrawal to `status` if it is in one of `from` (any when empty), with `apply` for
   * the money and extra fields, and the status's event — one database transaction.
   */
  private async transition(
    transactionId: string,
    status: string,
    from: string[],
    apply: (tx: Tx, row: TransactionRow, at: Date) => Promise<Record<string, unknown>>,
    events: EventName[] = [],
    accountId?: string,
  ): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const row = await repository.lockWithdrawal(tx, transactionId, accountId);
      if (!row) throw new ApiError(404, messages.transactionNotFound);
      if (from.length > 0 && !from.includes(row.status)) throw new ApiError(422, messages.withdrawalWrongStatus(row.status));
      const at = this.clock.now();
      const changes = await apply(tx, row, at);
      const updated = await repository.updateWithdrawal(tx, row.id, { status, updatedAt: at, ...changes });
      await recordTransactionEvents(tx, events.map((name) => ({ name, transaction: updated })), at);
      return updated;
    });
  }

  /** processing / failed_unknown → failed: the debit comes back. */
  fail(transactionId: string, options: { releaseExternalRef: boolean }, accountId?: string): Promise<TransactionRow> {
    return this.transition(
      transactionId,
      'failed',
      ['processing', 'failed_unknown'],
      async (tx, row, at) => {
        await this.moveWithdrawalMoney(tx, row, at, -1);
        if (options.releaseExternalRef && row.externalRef) {
          await releaseIdempotencyKey(tx, { accountId: row.accountId, scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef: row.externalRef });
        }
        return {};
      },
      ['transfer.failed'],
      accountId,
    );
  }

  /** processing / failed_unknown → paid: the money left through PIX; endToEndId and beneficiary appear. */
  markPaid(transactionId: string, beneficiary: Party, accountId?: string): Promise<TransactionRow> {
    return this.transition(
      transactionId,
      'paid',
      ['processing', 'failed_unknown'],
      async (_tx, _row, at) => ({ paidAt: at, endToEndId: generateEndToEndId(SIMULATED_ISPB, at), beneficiary: JSON.stringify(beneficiary) }),
      ['transfer.paid'],
      accountId,
    );
  }

  /** paid → refunded / partially_refunded: the receiving bank returns `amountCents` (fee kept). */
  markReturned(transactionId: string, accountId: string, amountCents: number | undefined): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const row = await repository.lockWithdrawal(tx, transactionId, accountId);
      if (!row) throw new ApiError(404, messages.transactionNotFound);
      if (row.status !== 'paid') throw new ApiError(422, messages.withdrawalWrongStatus(row.status));
      const returned = amountCents ?? row.amountCents;
      if (!Number.isInteger(returned) || returned < 1 || returned > row.amountCents) throw new ApiError(400, messages.returnAmountInvalid);
      const at = this.clock.now();
      await postMovement(tx, {
        accountId,
        kind: 'withdrawal_returned',
        transactionId,
        at,
        entries: [
          { book: 'merchant', amountCents: returned },
          { book: 'settlement', amountCents: -returned },
        ],
      });
      const full = returned === row.amountCents;
      const updated = await repository.updateWithdrawal(tx, row.id, {
        status: full ? 'refunded' : 'partially_refunded',
        refundEndToEndId: generateEndToEndId(SIMULATED_ISPB, at, 'D'),
        updatedAt: at,
      });
      await recordTransactionEvent(tx, full ? 'transfer.refunded' : 'transfer.partially_refunded', updated, at);
      return updated;
    });
  }

  /** Operator approves a manual-mode withdrawal: debit now (balance checked), then send it. */
  async approve(transactionId: string): Promise<TransactionRow> {
    const approved = await this.transition(
      transactionId,
      'processing',
      ['pending_approval'],
      async (tx, row, at) => {
        const balance = await findBalance(tx, row.accountId, { lock: true });
        if (balance.availableCents - balance.blockedCents < row.amountCents + row.feeCents) throw new ApiError(422, messages.insufficientBalance);
        await this.moveWithdrawalMoney(tx, row, at, 1);
        return {};
      },
      ['transfer.approved', 'transfer.processing'],
    );
    // Until settled, `beneficiary` holds the party the money may go to (the expected holder).
    await this.submit(approved, approved.beneficiary as Party);
    return (await findTransaction(this.db, approved.accountId, approved.id)) ?? approved;
  }

  /** Operator rejects a manual-mode withdrawal: nothing was debited; it ends cancelled. */
  reject(transactionId: string): Promise<TransactionRow> {
    return this.transition(transactionId, 'cancelled', ['pending_approval'], async () => ({}), ['transfer.rejected', 'transfer.cancelled']);
  }

  /** Worker step: asks the provider about unknown outcomes and applies the known ones. */
  async reconcileUnknown(batch = 100): Promise<number> {
    let resolved = 0;
    for (const { id } of await repository.findUnknownWithdrawals(this.db, batch)) {
      const outcome = await this.provider.withdrawalOutcome(id);
      if (outcome.status === 'unknown') continue;
      try {
        if (outcome.status === 'paid') await this.markPaid(id, outcome.beneficiary);
        else await this.fail(id, { releaseExternalRef: false });
        resolved++;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error; // another worker resolved it first
      }
    }
    return resolved;
  }
}
