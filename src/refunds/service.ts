import { InsufficientBalanceError, InvalidStateError, NotFoundError, ProviderFailedError } from '../errors.js';
import { findBalance, postMovement } from '../ledger/repository.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { InfractionRow, ProviderSendNote, ProviderSendRow, RefundRow, TransactionRow } from '../platform/schema.js';
import { ProviderError, ProviderOutcomeUnknownError, type ReceivedPayment, type RefundOutcome, type RefundRequest } from '../provider/provider.js';
import { claimIdempotencyKey, IDEMPOTENCY_SCOPE, releaseIdempotencyKey } from '../transactions/idempotencyRepository.js';
import { findTransaction, lockTransaction } from '../transactions/repository.js';
import { CHARGE, chargeStatusAt } from '../transactions/states.js';
import { applyTransition, assertAllowed } from '../transactions/transition.js';
import { acknowledged, afterLateCompletion, attemptNote, decisionNote, inDoubt, watchedAfterFailure } from '../sends/changes.js';
import { checkDue, followUp, resendUnsent } from '../sends/checks.js';
import { collectOwed, postOrBlock, type LateDebit } from '../sends/lateDebit.js';
import { leaseUntil, notFoundIsProof, OUTCOME_DEADLINE_MS } from '../sends/policy.js';
import * as sends from '../sends/repository.js';
import type { SendChange } from '../sends/repository.js';
import { insertAlert } from '../alerts/repository.js';
import { presentRefund } from './presenter.js';
import type { ProviderRegistry } from '../provider/registry.js';
import * as repository from './repository.js';

const DAY_MS = 86_400_000;
/** A charge may be refunded within 90 days of its payment (DESIGN.md §9). */
const REFUND_WINDOW_MS = 90 * DAY_MS;

export type CreateRefundInput = { amountCents?: number | undefined; externalRef?: string | undefined; reason?: string | undefined };

/** A new refund, or the one a known externalRef already names (a retry). */
export type RefundResult = { outcome: 'created' | 'replayed'; refund: RefundRow };

/** The ledger movement of a refund's money: its debit at creation (1) or its return when it fails (-1). */
async function moveRefundMoney(tx: Tx, refund: RefundRow, at: Date, direction: 1 | -1, kind: string): Promise<void> {
  await postMovement(tx, {
    accountId: refund.accountId,
    kind,
    transactionId: refund.transactionId,
    memo: refund.id,
    at,
    entries: [
      { book: 'merchant', amountCents: -direction * refund.amountCents },
      { book: 'settlement', amountCents: direction * refund.amountCents },
    ],
  });
}

/**
 * Refunds of charges (DESIGN.md §9): the merchant's, MED chargebacks (created by the MED case)
 * and payments returned because their charge was no longer pending. The money of a merchant
 * refund or a chargeback leaves the merchant at creation and comes back if the refund fails; the
 * charge moves to partially_refunded / refunded when a refund settles.
 */
export class RefundService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly providers: ProviderRegistry,
  ) {
    this.acknowledge = sends.acknowledgementWriter(db);
  }

  /** The PSP's acceptances, recorded with those of concurrent requests. */
  private readonly acknowledge: (acknowledgement: sends.Acknowledgement) => Promise<boolean>;

  /** What the worker steps of this kind share (src/sends/checks.ts): a claim lasts as long as the slowest provider's send. */
  private get worker() {
    return { db: this.db, clock: this.clock, timing: this.providers.longestTiming, kind: 'refund' as const };
  }

  /** A merchant's refund of one of its charges. */
  async create(accountId: string, transactionId: string, input: CreateRefundInput): Promise<RefundResult> {
    const externalRef = input.externalRef ?? null;
    const key = externalRef ? { accountId, scope: IDEMPOTENCY_SCOPE.refund, externalRef } : null;
    if (key) {
      // Retries answer at once, without touching the charge or the provider.
      const existing = await repository.findRefundByExternalRef(this.db, key, this.clock.now());
      if (existing) return { outcome: 'replayed', refund: existing };
    }

    const result = await this.db.transaction().execute(async (tx): Promise<RefundResult> => {
      const now = this.clock.now();
      // The charge's lock makes its refunds and MED cases one at a time: the remainder below is exact.
      const charge = await lockTransaction(tx, 'pix_in', transactionId, accountId);
      if (!charge) throw new NotFoundError(messages.transactionNotFound);
      const refundId = newId();
      if (key && !(await claimIdempotencyKey(tx, { ...key, transactionId: refundId }, now))) {
        const winner = await repository.findRefundByExternalRef(tx, key, now);
        if (!winner) throw new Error('idempotency key held without its refund');
        return { outcome: 'replayed', refund: winner };
      }
      assertAllowed(charge, CHARGE.refundInPart, () => messages.refundChargeNotPaid(chargeStatusAt(charge, now)));
      // Held by the PSP (cautionary block): the money is not the merchant's yet, and the PSP may still return it.
      if (charge.holdStatus === 'held') throw new InvalidStateError(messages.refundChargeHeld);
      if (!charge.paidAt || now.getTime() - charge.paidAt.getTime() > REFUND_WINDOW_MS) throw new InvalidStateError(messages.refundWindowExpired);
      const committed = await repository.committedAmount(tx, charge.id);
      // The money a running MED case blocks belongs to the victim until the case closes (DESIGN.md §19).
      if (committed.openCaseCents > 0) throw new InvalidStateError(messages.refundDuringDispute);
      const remainder = charge.amountCents - committed.refundsCents;
      const amountCents = input.amountCents ?? remainder;
      if (amountCents > remainder || amountCents < 1) throw new InvalidStateError(messages.refundAboveRemainder(remainder));
      const balance = await findBalance(tx, accountId, { lock: true });
      if (balance.availableCents - balance.blockedCents < amountCents) throw new InsufficientBalanceError(messages.refundInsufficientBalance);

      const refund = await this.insertRefund(tx, {
        id: refundId,
        accountId,
        transactionId,
        kind: 'merchant',
        status: 'processing',
        amountCents,
        reason: input.reason ?? null,
        externalRef,
        paymentEndToEndId: paymentEndToEndIdOf(charge),
        refundEndToEndId: null,
        infractionId: null,
        providerId: charge.providerId,
        createdAt: now,
        settledAt: null,
        updatedAt: now,
      });
      await moveRefundMoney(tx, refund, now, 1, 'refund_reserve');
      return { outcome: 'created', refund };
    });
    if (result.outcome === 'replayed') return result;
    const sent = await this.send(result.refund);
    if (sent.refused) throw new ProviderFailedError(messages.refundProviderFailed);
    return { outcome: 'created', refund: sent.refund };
  }

  /** A charge's refunds (all kinds), newest first; the charge must be the account's. */
  async list(accountId: string, transactionId: string): Promise<RefundRow[]> {
    const charge = await findTransaction(this.db, accountId, transactionId);
    if (charge?.type !== 'pix_in') throw new NotFoundError(messages.transactionNotFound);
    return repository.listRefunds(this.db, accountId, transactionId);
  }

  /** A refund of the account. */
  async get(accountId: string, refundId: string): Promise<RefundRow> {
    const refund = await repository.findRefund(this.db, refundId, accountId);
    if (!refund) throw new NotFoundError(messages.refundNotFound);
    return refund;
  }

  /**
   * A MED case closed against the merchant: the chargeback refund of `amountCents`, debited at
   * once even below zero (the one movement allowed to), written in the caller's transaction
   * that closes the case. Sent by `sendChargeback` once committed.
   */
  async createChargeback(tx: Tx, charge: TransactionRow, infraction: InfractionRow, amountCents: number, at: Date): Promise<RefundRow> {
    const refund = await this.insertRefund(tx, {
      id: newId(),
      accountId: charge.accountId,
      transactionId: charge.id,
      kind: 'med',
      status: 'processing',
      amountCents,
      reason: infraction.reason,
      externalRef: null,
      paymentEndToEndId: paymentEndToEndIdOf(charge),
      refundEndToEndId: null,
      infractionId: infraction.id,
      providerId: charge.providerId,
      createdAt: at,
      settledAt: null,
      updatedAt: at,
    });
    await moveRefundMoney(tx, refund, at, 1, 'chargeback');
    return refund;
  }

  /** A refund and its durable intent to send it (docs/providers.md "Unknown outcomes"), in the caller's transaction. */
  private async insertRefund(tx: Tx, refund: repository.NewRefund): Promise<RefundRow> {
    const inserted = await repository.insertRefund(tx, refund);
    await sends.insertSend(tx, {
      id: inserted.id,
      kind: 'refund',
      accountId: inserted.accountId,
      at: inserted.createdAt,
      leaseUntil: null,
      deadlineAt: new Date(inserted.createdAt.getTime() + OUTCOME_DEADLINE_MS),
    });
    return inserted;
  }

  /**
   * Sends a committed refund to the provider, unless another process is sending it, and applies
   * its immediate answer. `refused`: the provider surely never received it (on any attempt) and
   * refused it; the refund is then failed, its money back and its externalRef free.
   */
  async send(refund: RefundRow): Promise<{ refund: RefundRow; refused: boolean }> {
    const now = this.clock.now();
    const [send] = await sends.claimUnsent(this.db, { id: refund.id }, now, leaseUntil(now, this.providers.timingOf(refund.providerId)));
    if (!send) return { refund, refused: false };
    return this.attempt(refund, send);
  }

  /** One attempt under the send's lease; see `send`. A refund that may have reached the PSP stays processing and is asked about. */
  private async attempt(refund: RefundRow, send: ProviderSendRow): Promise<{ refund: RefundRow; refused: boolean }> {
    const started = send.attemptStartedAt ?? this.clock.now();
    const note = (answer: string, detail?: string) => attemptNote(started, answer, detail);
    const provider = this.providers.get(refund.providerId);
    const timing = provider.sendTiming;
    let outcome: RefundOutcome;
    try {
      outcome = await provider.requestRefund(refundRequestOf(refund));
    } catch (error) {
      if (error instanceof ProviderError && send.reachedMaybeAt === null) {
        const failed = await this.applyOutcome(
          refund.id,
          { status: 'failed', reason: 'provider_refused' },
          { releaseExternalRef: true, send: { state: 'closed', note: note('not_sent', error.message), attemptEnded: { reached: false } } },
        );
        return { refund: failed ?? refund, refused: true };
      }
      if (error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError) {
        // This attempt or an earlier one may have reached the PSP: only its answer to a query can tell.
        const reached = error instanceof ProviderOutcomeUnknownError;
        const at = this.clock.now();
        await sends.changeSend(this.db, refund.id, inDoubt(send, note(reached ? 'unknown' : 'not_sent', error.message), { reached, started }, at, timing), at);
        return { refund, refused: false };
      }
      throw error;
    }
    if (outcome.status === 'refunded' || outcome.status === 'failed') {
      const settled = await this.applyOutcome(refund.id, outcome, { send: { state: 'closed', note: note(outcome.status), attemptEnded: { reached: true } } });
      return { refund: settled ?? refund, refused: false };
    }
    // Taken by the PSP: the outcome comes later (a notification, or the checks).
    const at = this.clock.now();
    await this.acknowledge(acknowledged(send, note('accepted'), at, timing));
    return { refund, refused: false };
  }

  /**
   * A payment arrived for a charge that is no longer pending: it is returned to the payer in full
   * (nature ORIGINAL) and never credited. The charge does not change.
   */
  async returnPayment(charge: TransactionRow, payment: ReceivedPayment): Promise<RefundRow> {
    const refund = await this.db.transaction().execute((tx) => this.recordReturnedPayment(tx, charge, payment, this.clock.now()));
    return (await this.send(refund)).refund;
  }

  /**
   * The refund that returns `payment`, written in the caller's transaction; `send` it once
   * committed. It goes back through the provider that received it (`receivedBy`: the charge's own,
   * unless the PIX paid an orphan registration of the charge at another provider).
   */
  recordReturnedPayment(tx: Tx, charge: TransactionRow, payment: ReceivedPayment, at: Date, receivedBy = charge.providerId): Promise<RefundRow> {
    return this.insertRefund(tx, {
      id: newId(),
      accountId: charge.accountId,
      transactionId: charge.id,
      kind: 'returned_payment',
      status: 'processing',
      amountCents: payment.amountCents ?? charge.amountCents,
      reason: null,
      externalRef: null,
      paymentEndToEndId: payment.endToEndId,
      refundEndToEndId: null,
      infractionId: null,
      providerId: receivedBy,
      createdAt: at,
      settledAt: null,
      updatedAt: at,
    });
  }

  /** A refund by the end-to-end id the network gave it. */
  findByEndToEndId(refundEndToEndId: string): Promise<RefundRow | undefined> {
    return repository.findRefundByEndToEndId(this.db, refundEndToEndId);
  }

  /** Whether a payment was returned already (a PSP repeats its reports). */
  async isReturnedPayment(tx: Tx, paymentEndToEndId: string): Promise<boolean> {
    return (await repository.findReturnedPayment(tx, paymentEndToEndId)) !== undefined;
  }

  /**
   * Applies a refund's outcome reported by the provider, in one database transaction: refunded
   * (the charge's refunded amount grows and its status follows, with the events) or failed (the
   * money comes back to the merchant). Null while the outcome is unknown; InvalidStateError when
   * the refund is not processing any more.
   */
  async applyOutcome(
    refundId: string,
    outcome: RefundOutcome,
    /** `providerId`: the provider that reports it; a refund bound to another one is not its to settle (not found). */
    options: { accountId?: string; providerId?: string; releaseExternalRef?: boolean; send?: SendChange } = {},
  ): Promise<RefundRow | null> {
    if (outcome.status === 'unknown' || outcome.status === 'not_received') return null;
    return this.db.transaction().execute(async (tx) => {
      const refund = await repository.lockRefund(tx, refundId, options.accountId);
      if (!refund || (options.providerId !== undefined && refund.providerId !== options.providerId)) throw new NotFoundError(messages.refundNotFound);
      if (refund.status !== 'processing') throw new InvalidStateError(messages.refundNotProcessing(refund.status));
      // Charge after refund, always: the order every writer of both takes.
      const charge = await lockTransaction(tx, 'pix_in', refund.transactionId);
      if (!charge) throw new Error(`refund ${refund.id} without its charge`);
      const at = this.clock.now();
      const settled = await repository.settleRefund(
        tx,
        refund.id,
        outcome.status === 'refunded' ? { status: 'refunded', refundEndToEndId: outcome.refundEndToEndId } : { status: 'failed' },
        at,
      );
      if (!settled) throw new Error(`refund ${refund.id} left processing while locked`);
      await sends.changeSend(tx, refund.id, options.send ?? { state: 'closed', note: decisionNote(at, outcome.status) }, at);
      if (outcome.status === 'failed') {
        if (refund.kind !== 'returned_payment') await moveRefundMoney(tx, refund, at, -1, refund.kind === 'med' ? 'chargeback_reversal' : 'refund_reversal');
        if (options.releaseExternalRef && refund.externalRef) {
          await releaseIdempotencyKey(tx, { accountId: refund.accountId, scope: IDEMPOTENCY_SCOPE.refund, externalRef: refund.externalRef }, refund.id);
        }
        return settled;
      }
      if (refund.kind === 'returned_payment') return settled;
      const refundedCents = charge.refundedCents + refund.amountCents;
      const inFull = refundedCents === charge.amountCents;
      await applyTransition(tx, charge, inFull ? CHARGE.refundInFull : CHARGE.refundInPart, at, { refundedCents }, { refund: presentRefund(settled) });
      return settled;
    });
  }

  /** Asks the provider about a refund and applies its outcome when known. */
  async applyProviderOutcome(refundId: string): Promise<RefundRow | null> {
    const refund = await repository.findRefund(this.db, refundId);
    if (!refund) throw new NotFoundError(messages.refundNotFound);
    return this.applyOutcome(refundId, await this.providers.get(refund.providerId).refundOutcome(refundRequestOf(refund)));
  }

  /** Worker step: refunds whose send has no result and whose lease lapsed are sent again under the same id. */
  sendUnsent(batch = 100): Promise<number> {
    return resendUnsent(this.worker, batch, async (send) => {
      const refund = await repository.findRefund(this.db, send.id);
      if (refund?.status !== 'processing') return refund?.status ?? 'missing';
      await this.attempt(refund, send);
      return null;
    });
  }

  /**
   * Worker step: asks the provider about each refund whose check is due and applies what it proves
   * (docs/providers.md "Unknown outcomes"); returns how many reached an outcome.
   */
  reconcile(batch = 100): Promise<number> {
    return checkDue(this.worker, batch, (send) => this.check(send));
  }

  private async check(send: ProviderSendRow): Promise<boolean> {
    const refund = await repository.findRefund(this.db, send.id);
    if (!refund) throw new Error(`send ${send.id} without its refund`);
    if (send.state === 'owed') return collectOwed(this.db, send, lateDebitOf(refund), this.clock.now());
    const provider = this.providers.get(refund.providerId);
    const outcome = await provider.refundOutcome(refundRequestOf(refund));
    const now = this.clock.now();
    const timing = provider.sendTiming;
    const note: ProviderSendNote = { at: now.toISOString(), step: 'check', answer: outcome.status };
    const open = refund.status === 'processing';
    if (open && (outcome.status === 'refunded' || outcome.status === 'failed')) {
      return Boolean(await this.applyOutcome(refund.id, outcome, { send: { state: 'closed', note, checks: 'counted' } }));
    }
    if (!open && refund.status === 'failed' && outcome.status === 'refunded') return this.settleAfterReversal(refund, send, outcome.refundEndToEndId, note);
    if (open && outcome.status === 'not_received' && notFoundIsProof(send, now, timing)) {
      const watch = watchedAfterFailure(send, note, now, timing);
      return Boolean(await this.applyOutcome(refund.id, { status: 'failed', reason: 'not_received' }, { send: watch }));
    }
    await followUp(this.db, send, {
      note,
      settled: !open,
      now,
      timing,
      escalation: { transactionId: refund.transactionId, details: { refundId: refund.id, lastAnswer: outcome.status } },
    });
    return false;
  }

  /**
   * The PSP completed a refund after the gateway failed it and gave its money back: it is refunded
   * after all, the charge's refunded amount grows (when it still can: otherwise the payer was paid
   * back twice, a high alert) and the money is debited again — never below zero: a block and an
   * owed debit, with a high alert, when the balance cannot cover it.
   */
  private async settleAfterReversal(refund: RefundRow, send: ProviderSendRow, refundEndToEndId: string, note: ProviderSendNote): Promise<boolean> {
    await this.db.transaction().execute(async (tx) => {
      const locked = await repository.lockRefund(tx, refund.id);
      if (locked?.status !== 'failed') throw new InvalidStateError(messages.refundNotProcessing(locked?.status ?? 'missing'));
      const charge = await lockTransaction(tx, 'pix_in', refund.transactionId);
      if (!charge) throw new Error(`refund ${refund.id} without its charge`);
      const at = this.clock.now();
      const settled = await repository.resettleRefund(tx, refund.id, refundEndToEndId, at);
      let overRefunded = false;
      if (refund.kind !== 'returned_payment') {
        const refundedCents = charge.refundedCents + refund.amountCents;
        overRefunded = refundedCents > charge.amountCents;
        if (!overRefunded) {
          const transition = refundedCents === charge.amountCents ? CHARGE.refundInFull : CHARGE.refundInPart;
          await applyTransition(tx, charge, transition, at, { refundedCents }, { refund: presentRefund(settled) });
        }
      }
      // A returned payment was never credited to the merchant: its failure moved nothing, nor does this.
      const { debited, blockId } = refund.kind === 'returned_payment' ? { debited: true, blockId: null } : await postOrBlock(tx, lateDebitOf(refund), at);
      await insertAlert(tx, {
        accountId: refund.accountId,
        kind: 'refund_completed_after_reversal',
        transactionId: refund.transactionId,
        details: { refundId: refund.id, amountCents: refund.amountCents, debited, blockId, overRefunded },
        at,
        severity: debited && !overRefunded ? 'normal' : 'high',
      });
      await sends.changeSend(tx, send.id, afterLateCompletion(note, { debited, blockId }, at), at);
    });
    return true;
  }

  /** A charge's amount not yet given back nor held by an open MED case (call under the charge's lock). */
  async refundableRemainder(tx: Tx, charge: TransactionRow): Promise<number> {
    const { refundsCents, openCaseCents } = await repository.committedAmount(tx, charge.id);
    return charge.amountCents - refundsCents - openCaseCents;
  }
}

/** The debit of a refund completed after its reversal: its first debit again. */
function lateDebitOf(refund: RefundRow): LateDebit {
  return {
    accountId: refund.accountId,
    kind: refund.kind === 'med' ? 'chargeback_late_debit' : 'refund_late_debit',
    transactionId: refund.transactionId,
    memo: refund.id,
    blockReason: `Devolução ${refund.id} concluída após o estorno`,
    entries: [
      { book: 'merchant', amountCents: -refund.amountCents },
      { book: 'settlement', amountCents: refund.amountCents },
    ],
  };
}

/** What the provider is told of a refund (to send it, or to ask about it). */
function refundRequestOf(refund: RefundRow): RefundRequest {
  return {
    accountId: refund.accountId,
    refundId: refund.id,
    transactionId: refund.transactionId,
    paymentEndToEndId: refund.paymentEndToEndId,
    amountCents: refund.amountCents,
    nature: refund.kind === 'med' ? 'med' : 'original',
  };
}

/** The end-to-end id of a paid charge's payment: what a refund returns. */
function paymentEndToEndIdOf(charge: TransactionRow): string {
  if (!charge.endToEndId) throw new Error(`paid charge ${charge.id} has no end-to-end id`);
  return charge.endToEndId;
}
