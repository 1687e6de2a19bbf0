import type { Account } from '../accounts/model.js';
import type { Config } from '../config.js';
import {
  FraudRestrictedError,
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
import { payoutEngine, type PayoutWrite } from '../payouts/engine.js';
import { recountWithdrawn, type Reservation } from '../payouts/repository.js';
import { countsTowardsCaps, type Refusal } from '../payouts/rules.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import { isDatabaseUnavailable, statementNeverRan } from '../platform/errors.js';
import type { ProviderSendNote, ProviderSendRow, TransactionRow } from '../platform/schema.js';
import { asWithdrawal, type WithdrawalRow } from '../transactions/rows.js';
import {
  FRAUD_MARKED_REFUSAL,
  ProviderError,
  ProviderOutcomeUnknownError,
  type PixProvider,
  type SendTiming,
  type WithdrawalOutcome,
  type WithdrawalPaid,
  type WithdrawalReturn,
} from '../provider/provider.js';
import { findRecipient } from '../recipients/repository.js';
import { findTransactionByExternalRef, IDEMPOTENCY_SCOPE, releaseIdempotencyKey } from '../transactions/idempotencyRepository.js';
import { findTransaction, lockTransaction, rebindProcessingWithdrawal, type StatusChanges } from '../transactions/repository.js';
import type { ProviderRegistry } from '../provider/registry.js';
import type { RoutingService } from '../routing/service.js';
import type { TreasuryService } from '../treasury/service.js';
import { WITHDRAWAL, type Transition } from '../transactions/states.js';
import { applyTransition, assertAllowed, transactionCreation } from '../transactions/transition.js';
import { acknowledged, afterLateCompletion, attemptNote, decisionNote, inDoubt, watchedAfterFailure } from '../sends/changes.js';
import { checkDue, followUp, resendUnsent } from '../sends/checks.js';
import { collectOwed, postOrBlock, type LateDebit } from '../sends/lateDebit.js';
import { leaseUntil, notFoundIsProof, OUTCOME_DEADLINE_MS } from '../sends/policy.js';
import * as sends from '../sends/repository.js';
import type { SendChange } from '../sends/repository.js';
import { restrictedDestinationAlert, type FraudMarkService, type MarkSource } from '../fraudmarks/service.js';
import { resolveDestination, type Destination } from './destination.js';
import * as repository from './repository.js';
import { insertAlert } from '../alerts/repository.js';
import type { CreateWithdrawalBody } from './schemas.js';

/** The spec's answer to each refusal of the payout engine (payouts/rules.ts). */
const REFUSAL_ERRORS: Record<Refusal, (account: Account) => Error> = {
  rate_second: () => new RateLimitedError(messages.withdrawalPerSecond),
  rate_minute: () => new RateLimitedError(messages.withdrawalPerMinute),
  rate_hour: () => new RateLimitedError(messages.withdrawalPerHour),
  daily_cap: (account) => new LimitExceededError(messages.withdrawalDailyCap(account.limits.withdrawDailyCents)),
  monthly_cap: (account) => new LimitExceededError(messages.withdrawalMonthlyCap(account.limits.withdrawMonthlyCents)),
  insufficient_balance: () => new InsufficientBalanceError(messages.insufficientBalance),
};

/**
 * A new withdrawal (`created`, whatever status the provider's answer left it in), the one a
 * known externalRef already names (`replayed`), or one sent whose outcome the provider could not
 * tell (`indeterminate`: debited, status failed_unknown until reconciled).
 */
export type WithdrawalResult = { outcome: 'created' | 'replayed' | 'indeterminate'; withdrawal: TransactionRow };

/** An attempt's result, and the provider's reason when it refused the withdrawal (failed, debit returned). */
type AttemptResult = WithdrawalResult & { refusedAs?: string };

/**
 * Why a withdrawal ended without paying (its page): the DICT's fraud mark, the PSP's refusal at
 * submission, a send that never reached the PSP, the PSP's later failure, the service team's refusal.
 */
export type WithdrawalFailure = 'fraud_marked' | 'refused' | 'not_sent' | 'failed' | 'rejected_by_team';

/** A failed withdrawal's reason, from the last answer its send recorded. */
function failureOf(row: TransactionRow, history: readonly ProviderSendNote[]): WithdrawalFailure | null {
  if (row.status === WITHDRAWAL.reject.to) return 'rejected_by_team';
  if (row.status !== WITHDRAWAL.fail.to) return null;
  const last = history.findLast((entry) => entry.step !== 'decision');
  if (last?.answer === 'rejected') return last.detail === FRAUD_MARKED_REFUSAL ? 'fraud_marked' : 'refused';
  if (last?.answer === 'not_sent') return 'not_sent';
  return 'failed';
}

/** The statuses of a debited withdrawal whose outcome at the PSP is not known yet. */
const SENDING: ReadonlySet<string> = new Set([WITHDRAWAL.submit.to, WITHDRAWAL.loseTrack.to]);

/** Automatic mode debits and sends at creation; manual mode waits for the operator's approval. */
const debitNowFor = (creation: Transition): boolean => creation === WITHDRAWAL.submit;

/** How far a new withdrawal got: the id whose commit may have landed, once one may have. */
type WithdrawalProgress = { committing: string | undefined };

export class WithdrawalService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly providers: ProviderRegistry,
    private readonly routing: RoutingService,
    private readonly treasury: Pick<TreasuryService, 'covers'>,
    private readonly fraudMarks: Pick<FraudMarkService, 'isMarked'>,
    private readonly config: Pick<Config, 'serviceName'>,
  ) {
    this.acknowledge = sends.acknowledgementWriter(db);
    this.writeWithdrawal = payoutEngine(db);
  }

  /** New withdrawals, written by the payout engine. */
  private readonly writeWithdrawal: ReturnType<typeof payoutEngine>;

  /** The PSP's acceptances, recorded with those of concurrent requests. */
  private readonly acknowledge: (acknowledgement: sends.Acknowledgement) => Promise<boolean>;

  /**
   * The routing's order for a withdrawal of `amountCents`: only providers whose cap at this hour
   * takes it (none: 422), those whose treasury covers it first.
   */
  private route(accountId: string, amountCents: number): Promise<PixProvider[]> {
    return this.routing.candidates('withdrawals', accountId, { amountCents, prefers: (providerId) => this.treasury.covers(providerId, amountCents) });
  }

  /** What the worker steps of this kind share (src/sends/checks.ts): a claim lasts as long as the slowest provider's send. */
  private get worker() {
    return { db: this.db, clock: this.clock, timing: this.providers.longestTiming, kind: 'withdrawal' as const };
  }

  private timingOf(row: TransactionRow): SendTiming {
    return this.providers.timingOf(row.providerId);
  }

  /**
   * A new withdrawal (POST /v1/withdraw). When the database goes away under it (a failover,
   * DESIGN.md §16) the answer is the spec's: 502 "O valor não foi debitado." while nothing can
   * have committed (before its statement, or when the statement surely never ran: no connection, a
   * read-only node); once its statement may have run, 502 "Saque iniciado mas confirmação
   * interrompida" with the id it was given (a 404 on that id then proves nothing was debited). Nothing is retried
   * here: the commit's outcome is unknown, and the worker sends a committed debit's intent.
   */
  async createWithdrawal(account: Account, input: CreateWithdrawalBody): Promise<WithdrawalResult> {
    const progress: WithdrawalProgress = { committing: undefined };
    try {
      return await this.create(account, input, progress);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      if (progress.committing === undefined || statementNeverRan(error)) throw new ProviderFailedError(messages.withdrawalProviderFailed, { cause: error });
      throw new ProviderFailedError(messages.withdrawalConfirmationInterrupted(progress.committing), { cause: error });
    }
  }

  private async create(account: Account, input: CreateWithdrawalBody, progress: WithdrawalProgress): Promise<WithdrawalResult> {
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
      if (existing) {
        progress.committing = existing.id;
        return this.replay(existing);
      }
    }
    const feeCents = computeFee(account.fees.withdrawal, input.amountCents, { capAtAmount: false });
    const creation = account.withdrawalMode === 'manual' ? WITHDRAWAL.hold : WITHDRAWAL.submit;
    // The routing's order: the first takes it, the others only if it provably never received it.
    const [first, ...fallbacks] = await this.route(account.id, input.amountCents);
    if (!first) throw new ProviderFailedError(messages.withdrawalProviderFailed);
    await this.refuseMarked(account.id, input, destination, first);

    const transactionId = newId();
    const now = this.clock.now();
    const row: WithdrawalRow = {
      id: transactionId,
      accountId: account.id,
      type: creation.type,
      status: creation.to,
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
      expectedHolder: destination.holder,
      refundEndToEndId: null,
      refundedCents: 0,
      pixKey: input.pixKey,
      pixKeyType: input.pixKeyType,
      recipientId: destination.recipientId,
      providerId: first.id,
      due: null,
      staticQrId: null,
      recurrenceId: null,
      recurrenceCycle: null,
      holdStatus: null,
      heldUntil: null,
      createdAt: now,
      updatedAt: now,
    };
    const debitNow = debitNowFor(creation);
    const send = debitNow ? this.intentOf(row, now) : undefined;
    const key = externalRef ? { accountId: account.id, scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef } : undefined;
    const write: PayoutWrite = {
      row,
      reservation: this.reservationOf(account, row, debitNow),
      creation: transactionCreation(creation, row, now),
      claim: key && { scope: key.scope, externalRef: key.externalRef, transactionId },
      send,
      alert: destination.thirdParty
        ? {
            accountId: account.id,
            kind: 'third_party_withdrawal',
            transactionId,
            details: { recipientId: destination.recipientId, amountCents: input.amountCents, pixKeyType: input.pixKeyType },
            at: now,
          }
        : undefined,
    };
    // From here the commit may land whatever the client hears: the answer names the withdrawal.
    progress.committing = transactionId;
    const written = await this.writeWithdrawal(write);
    if (written.kind === 'refused') throw REFUSAL_ERRORS[written.refusal](account);
    if (written.kind === 'replayed') {
      if (key === undefined) throw new Error('a withdrawal without externalRef refused as a replay');
      // Nothing of this request was written: only the winner's id may be named from here.
      progress.committing = undefined;
      const winner = await findTransactionByExternalRef(this.db, key, now);
      if (!winner) throw new Error('idempotency key held without its transaction');
      progress.committing = winner.id;
      return this.replay(winner);
    }
    // The engine wrote `row` as it is: it goes on as the withdrawal it is.
    if (!send) return { outcome: 'created', withdrawal: row };
    const { refusedAs, ...result } = await this.attempt(row, sends.newSendRow(send), 'created', fallbacks);
    // Known only once sent (a provider without a DICT to ask first): failed with its debit back, refused all the same.
    if (refusedAs === FRAUD_MARKED_REFUSAL) throw new FraudRestrictedError(messages.fraudRestricted);
    return result;
  }

  /**
   * Refuses (422, with a high alert and nothing else written) a withdrawal whose key, or its
   * holder's document, is on the operators' list (a copy in memory, docs/fraud-marks.md) or that
   * the provider's DICT reports as fraud-marked (a provider that has one to ask).
   */
  private async refuseMarked(accountId: string, input: CreateWithdrawalBody, destination: Destination, provider: PixProvider): Promise<void> {
    const { pixKey, pixKeyType } = input;
    let source: MarkSource | undefined;
    if (await this.fraudMarks.isMarked({ key: pixKey, documents: [destination.holder.document] })) source = 'operator_list';
    else if (await provider.keyDirectory?.isFraudMarked({ accountId, pixKey, pixKeyType })) source = 'dict';
    if (!source) return;
    const at = this.clock.now();
    await insertAlert(
      this.db,
      restrictedDestinationAlert({ accountId, at, source, attempted: 'withdrawal', pixKey, pixKeyType, recipientId: destination.recipientId }),
    );
    throw new FraudRestrictedError(messages.fraudRestricted);
  }

  /** The durable intent to send a debited withdrawal, written with its debit (docs/providers.md "Unknown outcomes"). */
  private intentOf(row: TransactionRow, at: Date): sends.NewSend {
    return {
      id: row.id,
      kind: 'withdrawal',
      accountId: row.accountId,
      at,
      leaseUntil: leaseUntil(at, this.timingOf(row)),
      deadlineAt: new Date(at.getTime() + OUTCOME_DEADLINE_MS),
    };
  }

  /**
   * A retry with a known externalRef answers the stored withdrawal; one whose send has no result
   * (the first request lost its database or its process) is sent now, unless another process is
   * sending it: a replay never hides a withdrawal that was never sent.
   */
  private async replay(row: TransactionRow): Promise<WithdrawalResult> {
    if (row.status !== WITHDRAWAL.submit.to) return { outcome: 'replayed', withdrawal: row };
    const now = this.clock.now();
    const [send] = await sends.claimUnsent(this.db, { id: row.id }, now, leaseUntil(now, this.providers.longestTiming));
    if (!send) return { outcome: 'replayed', withdrawal: row };
    // Read again under the claim: a move to another provider may have committed since the row was read.
    const current = await findTransaction(this.db, row.accountId, row.id);
    if (current?.status !== WITHDRAWAL.submit.to) return { outcome: 'replayed', withdrawal: current ?? row };
    return this.attempt(asWithdrawal(current), send, 'replayed');
  }

  /**
   * One attempt to send a processing withdrawal under its lease, and what its answer proves: the
   * PSP took it (outcome later), refused it for its key (failed), surely did not receive it (failed
   * with the debit back when no earlier attempt may have reached it; 502 to the request), or may
   * have received it (failed_unknown, asked about until known). One that surely never reached its
   * provider moves to the next of `fallbacks` (the routing's order) before it is given up.
   */
  private async attempt(row: WithdrawalRow, send: ProviderSendRow, answered: 'created' | 'replayed', fallbacks: PixProvider[] = []): Promise<AttemptResult> {
    const started = send.attemptStartedAt ?? this.clock.now();
    // No attempt starts after its lease: the settling window counts from a start that was recorded.
    if (!send.leaseUntil || this.clock.now() >= send.leaseUntil) return { outcome: answered, withdrawal: row };
    const provider = this.providers.get(row.providerId);
    const timing = provider.sendTiming;
    const note = (answer: string, detail?: string) => attemptNote(started, answer, detail);
    let submission;
    try {
      submission = await provider.createWithdrawal({
        accountId: row.accountId,
        transactionId: row.id,
        amountCents: row.amountCents,
        pixKey: row.pixKey,
        pixKeyType: row.pixKeyType,
        expectedHolder: row.expectedHolder,
      });
    } catch (error) {
      if (error instanceof ProviderError && send.reachedMaybeAt === null) {
        // Nothing reached a PSP, on this attempt or any before: the next provider may take it; else undo the debit and free the externalRef so a retry can succeed.
        const [next, ...rest] = fallbacks;
        if (next) {
          const moved = await this.moveToProvider(row, send, next, note('not_sent', `${error.message}; moved to provider ${next.id}`));
          if (moved) return this.attempt(moved.row, moved.send, answered, rest);
          // Another attempt (a worker's, after the lease) may have reached the PSP meanwhile: its checks decide, nothing is undone here.
          return { outcome: answered, withdrawal: (await findTransaction(this.db, row.accountId, row.id)) ?? row };
        }
        await this.fail(row.id, {
          releaseExternalRef: true,
          send: { state: 'closed', note: note('not_sent', error.message), attemptEnded: { reached: false } },
        });
        throw new ProviderFailedError(messages.withdrawalProviderFailed);
      }
      if (error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError) {
        // This attempt or an earlier one may have reached the PSP: only its answer to a query can tell.
        const reached = error instanceof ProviderOutcomeUnknownError;
        const lost = await this.move(row.id, WITHDRAWAL.loseTrack, {
          send: (at) => inDoubt(send, note(reached ? 'unknown' : 'not_sent', error.message), { reached, started }, at, timing),
        });
        return { outcome: 'indeterminate', withdrawal: lost };
      }
      throw error;
    }
    if (submission.status === 'rejected') {
      const failed = await this.fail(row.id, {
        releaseExternalRef: false,
        send: { state: 'closed', note: note('rejected', submission.reason), attemptEnded: { reached: true } },
      });
      if (submission.reason === FRAUD_MARKED_REFUSAL) {
        const { accountId, pixKey, pixKeyType, recipientId, id } = row;
        const alert = { accountId, at: this.clock.now(), source: 'dict' as const, attempted: 'withdrawal' as const };
        await insertAlert(this.db, restrictedDestinationAlert({ ...alert, pixKey, pixKeyType, recipientId, transactionId: id }));
      }
      return { outcome: answered, withdrawal: failed, refusedAs: submission.reason };
    }
    const at = this.clock.now();
    await this.acknowledge(acknowledged(send, note('accepted'), at, timing));
    if (submission.confirmationInterrupted) throw new ProviderFailedError(messages.withdrawalConfirmationInterrupted(row.id));
    return { outcome: answered, withdrawal: row };
  }

  /**
   * Binds a withdrawal whose attempt provably reached nobody to the next provider and starts its
   * attempt there (DESIGN.md §14), in one database transaction; undefined when it must not move
   * (no longer processing, or some attempt may have reached a provider).
   */
  private async moveToProvider(
    row: WithdrawalRow,
    send: ProviderSendRow,
    next: PixProvider,
    note: ProviderSendNote,
  ): Promise<{ row: WithdrawalRow; send: ProviderSendRow } | undefined> {
    const at = this.clock.now();
    const lease = leaseUntil(at, next.sendTiming);
    const moved = await this.db
      .transaction()
      .execute(async (tx) => {
        if (!(await sends.restartUnreached(tx, send.id, note, at, lease))) return false;
        // Not processing any more: nothing of the move may stay (the send's restart rolls back with it).
        if (!(await rebindProcessingWithdrawal(tx, row.id, next.id, at))) throw new InvalidStateError(messages.withdrawalWrongStatus(row.status));
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof InvalidStateError) return false;
        throw error;
      });
    if (!moved) return undefined;
    return { row: { ...row, providerId: next.id, updatedAt: at }, send: { ...send, attempts: send.attempts + 1, attemptStartedAt: at, leaseUntil: lease } };
  }

  /**
   * A new withdrawal's claim on its account's rate windows (1/s, 2/min, 10/UTC hour by default: the
   * spec's three messages, in that order) and caps (UTC day and month) and, when `debitNow`, its
   * debit; the first limit it does not fit refuses it, with nothing written.
   */
  private reservationOf(account: Account, row: TransactionRow, debitNow: boolean): Reservation {
    const { limits } = account;
    return {
      accountId: account.id,
      at: row.createdAt,
      amountCents: row.amountCents,
      rateLimits: { second: limits.withdrawPerSecond, minute: limits.withdrawPerMinute, hour: limits.withdrawPerHour },
      caps: { dailyCents: limits.withdrawDailyCents, monthlyCents: limits.withdrawMonthlyCents },
      debit: debitNow ? this.withdrawalMovement(row, 1) : null,
    };
  }

  /** A withdrawal's debit (direction 1) or its exact reversal (-1): amount to settlement, fee to the platform. */
  private withdrawalMovement(row: TransactionRow, direction: 1 | -1) {
    return {
      kind: direction === 1 ? 'withdrawal_debit' : 'withdrawal_reversal',
      transactionId: row.id,
      entries: [
        { book: 'merchant' as const, amountCents: -direction * (row.amountCents + row.feeCents) },
        { book: 'settlement' as const, amountCents: direction * row.amountCents },
        { book: 'fees' as const, amountCents: direction * row.feeCents },
      ],
    };
  }

  /** Debit (direction 1) or its exact reversal (-1) of a withdrawal already counted in its caps. */
  private async moveWithdrawalMoney(tx: Tx, row: TransactionRow, at: Date, direction: 1 | -1): Promise<void> {
    await postMovement(tx, { accountId: row.accountId, at, ...this.withdrawalMovement(row, direction) });
  }

  /**
   * Moves a withdrawal (of the account, when given) along `transition` in one database
   * transaction: `money` runs once the status is known to allow it, then the status changes with
   * the transition's events.
   */
  private move(
    transactionId: string,
    transition: Transition,
    options: {
      accountId?: string | undefined;
      money?: (tx: Tx, row: WithdrawalRow, at: Date) => Promise<void>;
      changes?: (at: Date) => StatusChanges;
      /** How the withdrawal's send changes with it (closed when the outcome is final, by default). */
      send?: (at: Date) => SendChange;
    } = {},
  ): Promise<WithdrawalRow> {
    return this.db.transaction().execute(async (tx) => {
      const locked = await lockTransaction(tx, 'withdrawal', transactionId, options.accountId);
      if (!locked) throw new NotFoundError(messages.transactionNotFound);
      const row = asWithdrawal(locked);
      assertAllowed(row, transition);
      const at = this.clock.now();
      await options.money?.(tx, row, at);
      const moved = await applyTransition(tx, row, transition, at, options.changes?.(at));
      const recount = countsTowardsCaps(moved.status) - countsTowardsCaps(row.status);
      if (recount !== 0) await recountWithdrawn(tx, { accountId: row.accountId, createdAt: row.createdAt, deltaCents: recount * row.amountCents });
      // A send exists from the debit on (processing, failed_unknown): it closes when the withdrawal leaves them.
      const send =
        options.send?.(at) ??
        (SENDING.has(row.status) && !SENDING.has(moved.status) ? { state: 'closed' as const, note: decisionNote(at, moved.status) } : null);
      if (send) await sends.changeSend(tx, transactionId, send, at);
      return asWithdrawal(moved);
    });
  }

  /** processing / failed_unknown → failed: the debit comes back. */
  fail(transactionId: string, options: { releaseExternalRef: boolean; send?: SendChange }, accountId?: string): Promise<TransactionRow> {
    const { send } = options;
    return this.move(transactionId, WITHDRAWAL.fail, {
      accountId,
      ...(send ? { send: () => send } : {}),
      money: async (tx, row, at) => {
        await this.moveWithdrawalMoney(tx, row, at, -1);
        if (options.releaseExternalRef && row.externalRef) {
          await releaseIdempotencyKey(tx, { accountId: row.accountId, scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef: row.externalRef });
        }
      },
    });
  }

  /** processing / failed_unknown → paid: the money left through PIX; the provider's endToEndId and beneficiary appear. */
  markPaid(transactionId: string, paid: WithdrawalPaid, accountId?: string, send?: SendChange): Promise<TransactionRow> {
    return this.move(transactionId, WITHDRAWAL.settle, {
      accountId,
      ...(send ? { send: () => send } : {}),
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

  /**
   * Operator approves a manual-mode withdrawal: debit now (balance checked), then send it. Sent
   * now, so routed by the caps in force now: its provider first when it still takes the amount,
   * else the first of the routing that does (the withdrawal moves there with its approval); none
   * does: 422, nothing moves.
   */
  async approve(transactionId: string): Promise<TransactionRow> {
    const held = await findTransaction(this.db, undefined, transactionId);
    if (!held || held.type !== 'withdrawal') throw new NotFoundError(messages.transactionNotFound);
    assertAllowed(held, WITHDRAWAL.approve);
    const stays = this.routing.takes('withdrawals', held.providerId, held.amountCents);
    // Where it stays, the others are only its fallbacks: none of them taking it refuses nothing.
    const routed = await this.route(held.accountId, held.amountCents).catch((error: unknown) => {
      if (stays && error instanceof LimitExceededError) return [];
      throw error;
    });
    const first = stays ? this.providers.get(held.providerId) : routed[0];
    if (!first) throw new ProviderFailedError(messages.withdrawalProviderFailed);
    const others = routed.filter((provider) => provider.id !== first.id);
    let send: ProviderSendRow | undefined;
    let marked: WithdrawalRow | undefined;
    const approved = await this.move(transactionId, WITHDRAWAL.approve, {
      money: async (tx, row, at) => {
        // Marked since it was held: refused before its debit, as at creation.
        if (await this.fraudMarks.isMarked({ key: row.pixKey, documents: [row.expectedHolder.document] }, tx)) {
          marked = row;
          throw new FraudRestrictedError(messages.fraudRestricted);
        }
        const balance = await findBalance(tx, row.accountId, { lock: true });
        if (balance.availableCents - balance.blockedCents < row.amountCents + row.feeCents) throw new InsufficientBalanceError(messages.insufficientBalance);
        await this.moveWithdrawalMoney(tx, row, at, 1);
        send = await sends.insertSend(tx, this.intentOf({ ...row, providerId: first.id }, at));
      },
      changes: () => ({ providerId: first.id }),
    }).catch(async (error: unknown) => {
      if (marked) {
        const { accountId, pixKey, pixKeyType, recipientId, id } = marked;
        const alert = { accountId, at: this.clock.now(), source: 'operator_list' as const, attempted: 'withdrawal' as const };
        await insertAlert(this.db, restrictedDestinationAlert({ ...alert, pixKey, pixKeyType, recipientId, transactionId: id }));
      }
      throw error;
    });
    // If its provider provably refuses it now, the routing's others may take it.
    if (send) await this.attempt(approved, send, 'created', others);
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

  /** One of the account's withdrawals with why it failed, when it did (the dashboard's page); another's is not found. */
  async detail(accountId: string, transactionId: string): Promise<{ withdrawal: TransactionRow; failure: WithdrawalFailure | null }> {
    const withdrawal = await this.findWithdrawal(accountId, transactionId);
    const send = withdrawal.status === WITHDRAWAL.fail.to ? await sends.findSend(this.db, withdrawal.id) : undefined;
    return { withdrawal, failure: failureOf(withdrawal, send?.history ?? []) };
  }

  /**
   * Applies an outcome the provider reported (a notification, the sandbox): paid or failed; null
   * (nothing done) while unknown. `not_received` proves nothing here: only reconciliation, which
   * knows the send's attempts, reads it.
   */
  async applyOutcome(transactionId: string, outcome: WithdrawalOutcome, accountId?: string): Promise<TransactionRow | null> {
    if (outcome.status === 'unknown' || outcome.status === 'not_received') return null;
    if (outcome.status === 'paid') return this.markPaid(transactionId, outcome, accountId);
    return this.fail(transactionId, { releaseExternalRef: false }, accountId);
  }

  /**
   * Worker step: withdrawals whose send has no result and whose lease lapsed (the request lost its
   * database or its process) are sent again under the same id, which the PSP deduplicates.
   */
  sendUnsent(batch = 100): Promise<number> {
    return resendUnsent(this.worker, batch, async (send) => {
      const row = await findTransaction(this.db, send.accountId, send.id);
      if (row?.status !== WITHDRAWAL.submit.to) return row?.status ?? 'missing';
      try {
        await this.attempt(asWithdrawal(row), send, 'created');
      } catch (error) {
        if (!(error instanceof ProviderFailedError)) throw error; // refused and failed, or acknowledged with an interrupted confirmation
      }
      return null;
    });
  }

  /**
   * Worker step: asks the PSP about each withdrawal whose check is due (docs/providers.md "Unknown
   * outcomes") and applies what it proves; returns how many reached an outcome.
   */
  reconcile(batch = 100): Promise<number> {
    return checkDue(this.worker, batch, (send) => this.check(send));
  }

  /** One check of a send; true when the withdrawal reached an outcome (or its owed debit was collected). */
  private async check(send: ProviderSendRow): Promise<boolean> {
    const found = await findTransaction(this.db, send.accountId, send.id);
    if (!found) throw new Error(`send ${send.id} without its withdrawal`);
    const row = asWithdrawal(found);
    if (send.state === 'owed') return collectOwed(this.db, send, this.lateDebitOf(row), this.clock.now());
    const provider = this.providers.get(row.providerId);
    const outcome = await provider.withdrawalOutcome({ transactionId: row.id, expectedHolder: row.expectedHolder });
    const now = this.clock.now();
    const note: ProviderSendNote = { at: now.toISOString(), step: 'check', answer: outcome.status };
    const open = SENDING.has(row.status);
    if (outcome.status === 'paid') {
      if (open) return Boolean(await this.markPaid(row.id, outcome, row.accountId, { state: 'closed', note, checks: 'counted' }));
      if (row.status === WITHDRAWAL.settleAfterReversal.from[0]) return this.settleAfterReversal(row, send, outcome, note);
    } else if (outcome.status === 'failed') {
      if (open) return Boolean(await this.fail(row.id, { releaseExternalRef: false, send: { state: 'closed', note, checks: 'counted' } }, row.accountId));
    } else if (outcome.status === 'not_received' && open && notFoundIsProof(send, now, provider.sendTiming)) {
      // The settling window has passed since the latest attempt that may have reached the PSP: it never received it.
      await this.fail(
        row.id,
        {
          releaseExternalRef: false,
          send: watchedAfterFailure(send, note, now, provider.sendTiming),
        },
        row.accountId,
      );
      return true;
    }
    await followUp(this.db, send, {
      note,
      settled: !open,
      now,
      timing: provider.sendTiming,
      escalation: { transactionId: row.id, details: { status: row.status, lastAnswer: outcome.status } },
    });
    return false;
  }

  /**
   * The PSP completed a withdrawal after the gateway failed it and returned its debit: it is paid
   * after all (transfer.paid) and debited again. When the balance cannot cover the debit, it never
   * goes below zero: a block holds the amount, the debit is owed until the balance covers it, and a
   * high alert asks the operator to look.
   */
  private async settleAfterReversal(row: TransactionRow, send: ProviderSendRow, paid: WithdrawalPaid, note: ProviderSendNote): Promise<boolean> {
    await this.db.transaction().execute(async (tx) => {
      const locked = await lockTransaction(tx, 'withdrawal', row.id, row.accountId);
      if (!locked) throw new NotFoundError(messages.transactionNotFound);
      const at = this.clock.now();
      await applyTransition(tx, locked, WITHDRAWAL.settleAfterReversal, at, {
        paidAt: at,
        endToEndId: paid.endToEndId,
        beneficiary: JSON.stringify(paid.beneficiary),
      });
      await recountWithdrawn(tx, { accountId: row.accountId, createdAt: locked.createdAt, deltaCents: locked.amountCents });
      const { debited, blockId } = await postOrBlock(tx, this.lateDebitOf(locked), at);
      await insertAlert(tx, {
        accountId: row.accountId,
        kind: 'withdrawal_paid_after_reversal',
        transactionId: row.id,
        details: { amountCents: row.amountCents, feeCents: row.feeCents, debited, blockId },
        at,
        severity: debited ? 'normal' : 'high',
      });
      await sends.changeSend(tx, send.id, afterLateCompletion(note, { debited, blockId }, at), at);
    });
    return true;
  }

  /** The debit of a withdrawal paid after its reversal: its first debit again. */
  private lateDebitOf(row: TransactionRow): LateDebit {
    return { ...this.withdrawalMovement(row, 1), accountId: row.accountId, kind: 'withdrawal_late_debit', blockReason: `Saque ${row.id} pago após o estorno` };
  }
}
