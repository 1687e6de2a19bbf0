import type { Account } from '../accounts/model.js';
import type { Config } from '../config.js';
import {
  InsufficientBalanceError,
  InvalidRequestError,
  InvalidStateError,
  LimitExceededError,
  NotFoundError,
  ProviderFailedError,
  RateLimitedError,
} from '../errors.js';
import { computeFee } from '../ledger/fees.js';
import { findBalance, postMovement } from '../ledger/repository.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import { consumeRateLimits } from '../platform/rateLimitRepository.js';
import type { Holder, TransactionRow } from '../platform/schema.js';
import {
  ProviderError,
  ProviderOutcomeUnknownError,
  type PixProvider,
  type WithdrawalOutcome,
  type WithdrawalPaid,
  type WithdrawalReturn,
} from '../provider/provider.js';
import { findRecipient } from '../recipients/repository.js';
import { claimIdempotencyKey, findTransactionByExternalRef, IDEMPOTENCY_SCOPE, releaseIdempotencyKey } from '../transactions/idempotencyRepository.js';
import { findTransaction, lockTransaction, type StatusChanges } from '../transactions/repository.js';
import { WITHDRAWAL, type Transition } from '../transactions/states.js';
import { applyTransition, assertAllowed, createTransaction } from '../transactions/transition.js';
import { resolveDestination } from './destination.js';
import * as repository from './repository.js';
import type { CreateWithdrawalBody } from './schemas.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * A new withdrawal (`created`, whatever status the provider's answer left it in), the one a
 * known externalRef already names (`replayed`), or one sent whose outcome the provider could not
 * tell (`indeterminate`: debited, status failed_unknown until reconciled).
 */
export type WithdrawalResult = { outcome: 'created' | 'replayed' | 'indeterminate'; withdrawal: TransactionRow };

/** Who a withdrawal may pay; every withdrawal has one since migration 005. */
function expectedHolderOf(row: TransactionRow): Holder {
  if (!row.expectedHolder) throw new Error(`withdrawal ${row.id} has no expected holder`);
  return row.expectedHolder;
}

/** A withdrawal processing this long without news is asked about. */
const RECONCILE_PROCESSING_AFTER_MS = 10_000;

/** Automatic mode debits and sends at creation; manual mode waits for the operator's approval. */
const debitNowFor = (creation: Transition): boolean => creation === WITHDRAWAL.submit;

export class WithdrawalService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly provider: PixProvider,
    private readonly config: Pick<Config, 'serviceName'>,
  ) {}

  async createWithdrawal(account: Account, input: CreateWithdrawalBody): Promise<WithdrawalResult> {
    const recipient = input.recipientId ? await findRecipient(this.db, account.id, input.recipientId) : undefined;
    const destination = resolveDestination(account, input, recipient, this.config.serviceName);
    const externalRef = input.externalRef ?? null;
    if (externalRef) {
      // Idempotent retries answer at once and consume no rate limit.
      const existing = await findTransactionByExternalRef(
        this.db,
        { accountId: account.id, scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef },
        this.clock.now(),
      );
      if (existing) return { outcome: 'replayed', withdrawal: existing };
    }
    const feeCents = computeFee(account.fees.withdrawal, input.amountCents, { capAtAmount: false });
    const creation = account.withdrawalMode === 'manual' ? WITHDRAWAL.hold : WITHDRAWAL.submit;

    const outcome = await this.db.transaction().execute(async (tx): Promise<WithdrawalResult> => {
      const now = this.clock.now();
      const transactionId = newId();
      if (externalRef) {
        const key = { accountId: account.id, scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef };
        if (!(await claimIdempotencyKey(tx, { ...key, transactionId }, now))) {
          const winner = await findTransactionByExternalRef(tx, key, now);
          if (!winner) throw new Error('idempotency key held without its transaction');
          return { outcome: 'replayed', withdrawal: winner };
        }
      }
      // One withdrawal of an account at a time from here: the checks below and the debit are one step.
      const balance = await findBalance(tx, account.id, { lock: true });
      await this.consumeWithdrawalLimits(tx, account, now);
      await this.checkCaps(tx, account, input.amountCents, now);
      const debitNow = debitNowFor(creation);
      if (debitNow && balance.availableCents - balance.blockedCents < input.amountCents + feeCents)
        throw new InsufficientBalanceError(messages.insufficientBalance);

      const row = await createTransaction(
        tx,
        creation,
        {
          id: transactionId,
          accountId: account.id,
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
          beneficiary: null,
          expectedHolder: JSON.stringify(destination.holder),
          refundEndToEndId: null,
          pixKey: input.pixKey,
          pixKeyType: input.pixKeyType,
          recipientId: destination.recipientId,
          createdAt: now,
          updatedAt: now,
        },
        now,
      );
      if (debitNow) await this.moveWithdrawalMoney(tx, row, now, 1);
      if (destination.thirdParty) {
        await repository.insertAlert(tx, {
          accountId: account.id,
          kind: 'third_party_withdrawal',
          transactionId,
          details: { recipientId: destination.recipientId, amountCents: input.amountCents, pixKeyType: input.pixKeyType },
          at: now,
        });
      }
      return { outcome: 'created', withdrawal: row };
    });

    if (outcome.outcome === 'replayed' || !debitNowFor(creation)) return outcome;
    return this.submit(outcome.withdrawal, destination.holder);
  }

  /** Sends a processing withdrawal to the provider and applies its immediate answer. */
  private async submit(row: TransactionRow, expectedHolder: Holder): Promise<WithdrawalResult> {
    let submission;
    try {
      submission = await this.provider.createWithdrawal({
        accountId: row.accountId,
        transactionId: row.id,
        amountCents: row.amountCents,
        pixKey: row.pixKey ?? '',
        pixKeyType: row.pixKeyType ?? 'cpf',
        expectedHolder,
      });
    } catch (error) {
      if (error instanceof ProviderError) {
        // Nothing was sent: undo the debit and free the externalRef so a retry can succeed.
        await this.fail(row.id, { releaseExternalRef: true });
        throw new ProviderFailedError(messages.withdrawalProviderFailed);
      }
      if (error instanceof ProviderOutcomeUnknownError) {
        return { outcome: 'indeterminate', withdrawal: await this.move(row.id, WITHDRAWAL.loseTrack) };
      }
      throw error;
    }
    if (submission.status === 'rejected') return { outcome: 'created', withdrawal: await this.fail(row.id, { releaseExternalRef: false }) };
    if (submission.confirmationInterrupted) throw new ProviderFailedError(messages.withdrawalConfirmationInterrupted(row.id));
    return { outcome: 'created', withdrawal: row };
  }

  /** 1/s, 2/min, 10/UTC hour by default, per account: the spec's three messages, in that order. */
  private async consumeWithdrawalLimits(tx: Tx, account: Account, now: Date): Promise<void> {
    const windows = [
      { bucket: 'withdraw:second', windowMs: SECOND_MS, limit: account.limits.withdrawPerSecond, message: messages.withdrawalPerSecond },
      { bucket: 'withdraw:minute', windowMs: MINUTE_MS, limit: account.limits.withdrawPerMinute, message: messages.withdrawalPerMinute },
      { bucket: 'withdraw:hour', windowMs: HOUR_MS, limit: account.limits.withdrawPerHour, message: messages.withdrawalPerHour },
    ];
    const exceeded = await consumeRateLimits(tx, account.id, windows, now);
    if (exceeded) throw new RateLimitedError(exceeded.message);
  }

  /** Daily and monthly caps (UTC day and month) over withdrawals that hold or moved money. */
  private async checkCaps(tx: Tx, account: Account, amountCents: number, now: Date): Promise<void> {
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const { today, thisMonth } = await repository.sumWithdrawalsForCaps(tx, account.id, { dayStart, monthStart });
    if (today + amountCents > account.limits.withdrawDailyCents) throw new LimitExceededError(messages.withdrawalDailyCap(account.limits.withdrawDailyCents));
    if (thisMonth + amountCents > account.limits.withdrawMonthlyCents)
      throw new LimitExceededError(messages.withdrawalMonthlyCap(account.limits.withdrawMonthlyCents));
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
   * Moves a withdrawal (of the account, when given) along `transition` in one database
   * transaction: `money` runs once the status is known to allow it, then the status changes with
   * the transition's events.
   */
  private move(
    transactionId: string,
    transition: Transition,
    options: { accountId?: string | undefined; money?: (tx: Tx, row: TransactionRow, at: Date) => Promise<void>; changes?: (at: Date) => StatusChanges } = {},
  ): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const row = await lockTransaction(tx, 'withdrawal', transactionId, options.accountId);
      if (!row) throw new NotFoundError(messages.transactionNotFound);
      assertAllowed(row, transition);
      const at = this.clock.now();
      await options.money?.(tx, row, at);
      return applyTransition(tx, row, transition, at, options.changes?.(at));
    });
  }

  /** processing / failed_unknown → failed: the debit comes back. */
  fail(transactionId: string, options: { releaseExternalRef: boolean }, accountId?: string): Promise<TransactionRow> {
    return this.move(transactionId, WITHDRAWAL.fail, {
      accountId,
      money: async (tx, row, at) => {
        await this.moveWithdrawalMoney(tx, row, at, -1);
        if (options.releaseExternalRef && row.externalRef) {
          await releaseIdempotencyKey(tx, { accountId: row.accountId, scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef: row.externalRef });
        }
      },
    });
  }

  /** processing / failed_unknown → paid: the money left through PIX; the provider's endToEndId and beneficiary appear. */
  markPaid(transactionId: string, paid: WithdrawalPaid, accountId?: string): Promise<TransactionRow> {
    return this.move(transactionId, WITHDRAWAL.settle, {
      accountId,
      changes: (at) => ({ paidAt: at, endToEndId: paid.endToEndId, beneficiary: JSON.stringify(paid.beneficiary) }),
    });
  }

  /** paid → refunded / partially_refunded: the receiving bank returns an amount (the fee is kept). */
  markReturned(transactionId: string, accountId: string, returned: WithdrawalReturn): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const row = await lockTransaction(tx, 'withdrawal', transactionId, accountId);
      if (!row) throw new NotFoundError(messages.transactionNotFound);
      assertAllowed(row, WITHDRAWAL.returnInFull);
      const amountCents = returned.amountCents ?? row.amountCents;
      if (!Number.isInteger(amountCents) || amountCents < 1 || amountCents > row.amountCents) throw new InvalidRequestError(messages.returnAmountInvalid);
      const at = this.clock.now();
      await postMovement(tx, {
        accountId,
        kind: 'withdrawal_returned',
        transactionId,
        at,
        entries: [
          { book: 'merchant', amountCents },
          { book: 'settlement', amountCents: -amountCents },
        ],
      });
      const transition = amountCents === row.amountCents ? WITHDRAWAL.returnInFull : WITHDRAWAL.returnInPart;
      return applyTransition(tx, row, transition, at, { refundEndToEndId: returned.refundEndToEndId });
    });
  }

  /** Operator approves a manual-mode withdrawal: debit now (balance checked), then send it. */
  async approve(transactionId: string): Promise<TransactionRow> {
    const approved = await this.move(transactionId, WITHDRAWAL.approve, {
      money: async (tx, row, at) => {
        expectedHolderOf(row); // checked before anything moves
        const balance = await findBalance(tx, row.accountId, { lock: true });
        if (balance.availableCents - balance.blockedCents < row.amountCents + row.feeCents) throw new InsufficientBalanceError(messages.insufficientBalance);
        await this.moveWithdrawalMoney(tx, row, at, 1);
      },
    });
    await this.submit(approved, expectedHolderOf(approved));
    return (await findTransaction(this.db, approved.accountId, approved.id)) ?? approved;
  }

  /** Operator rejects a manual-mode withdrawal: nothing was debited; it ends cancelled. */
  reject(transactionId: string): Promise<TransactionRow> {
    return this.move(transactionId, WITHDRAWAL.reject);
  }

  /** A withdrawal of the account (the sandbox acts on these only). */
  /** The back-office's queue: withdrawals awaiting approval, oldest first. */
  listAwaitingApproval(limit: number): Promise<TransactionRow[]> {
    return repository.listAwaitingApproval(this.db, limit);
  }

  countAwaitingApproval(): Promise<number> {
    return repository.countAwaitingApproval(this.db);
  }

  async findWithdrawal(accountId: string, transactionId: string): Promise<TransactionRow> {
    const row = await findTransaction(this.db, accountId, transactionId);
    if (!row || row.type !== 'withdrawal') throw new NotFoundError(messages.transactionNotFound);
    return row;
  }

  /**
   * Asks the provider for a withdrawal's outcome and applies it when known: paid or failed.
   * Returns the withdrawal as it is afterwards, or null while the outcome is unknown.
   */
  async applyProviderOutcome(withdrawal: { id: string; expectedHolder: Holder | null }, accountId?: string): Promise<TransactionRow | null> {
    if (!withdrawal.expectedHolder) throw new Error(`withdrawal ${withdrawal.id} has no expected holder`);
    const outcome = await this.provider.withdrawalOutcome({ transactionId: withdrawal.id, expectedHolder: withdrawal.expectedHolder });
    return this.applyOutcome(withdrawal.id, outcome, accountId);
  }

  /** Applies an outcome the provider reported: paid or failed; null (nothing done) while unknown. */
  async applyOutcome(transactionId: string, outcome: WithdrawalOutcome, accountId?: string): Promise<TransactionRow | null> {
    if (outcome.status === 'unknown') return null;
    if (outcome.status === 'paid') return this.markPaid(transactionId, outcome, accountId);
    return this.fail(transactionId, { releaseExternalRef: false }, accountId);
  }

  /**
   * Worker step: asks the provider about unknown outcomes, and about withdrawals processing for
   * over 10 seconds (a PSP's notification may be lost, or never sent), and applies the known ones.
   */
  async reconcileUnknown(batch = 100): Promise<number> {
    let resolved = 0;
    const quietSince = new Date(this.clock.now().getTime() - RECONCILE_PROCESSING_AFTER_MS);
    for (const withdrawal of await repository.findWithdrawalsToReconcile(this.db, quietSince, batch)) {
      try {
        if (await this.applyProviderOutcome(withdrawal)) resolved++;
      } catch (error) {
        if (!(error instanceof InvalidStateError)) throw error; // another worker resolved it first
      }
    }
    return resolved;
  }

  /** The service team's internal alerts (third-party withdrawals), newest first, as the operator API and the back-office show them. */
  async listAlerts(accountId: string | undefined, limit = 200) {
    const rows = await repository.listAlerts(this.db, accountId, limit);
    return rows.map((row) => ({
      alertId: row.id,
      accountId: row.accountId,
      kind: row.kind,
      transactionId: row.transactionId,
      details: row.details,
      createdAt: row.createdAt.getTime(),
    }));
  }
}
