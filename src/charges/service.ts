import { assertChargeAmountAllowed, type Account } from '../accounts/model.js';
import { asCharge } from '../transactions/rows.js';
import { InvalidRequestError, InvalidStateError, NotFoundError, ProviderFailedError, RateLimitedError } from '../errors.js';
import { computeFee } from '../ledger/fees.js';
import { insertBlock, postMovement } from '../ledger/repository.js';
import { insertAlert } from '../alerts/repository.js';
import type { FraudMarkService } from '../fraudmarks/service.js';
import { maskDocument } from '../pix/documents.js';
import { messages } from '../messages.js';
import { retryTime, type Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { grouped } from '../platform/grouped.js';
import { newId } from '../platform/ids.js';
import { FIXED_WINDOW_MS } from '../platform/rateLimitRepository.js';
import { isDatabaseUnavailable } from '../platform/errors.js';
import type { ChargeCustomer, DueRecord, TransactionRow, TransactionStatus } from '../platform/schema.js';
import {
  ProviderError,
  ProviderOutcomeUnknownError,
  type ChargeRequest,
  type CreatedCharge,
  type IncomingPayment,
  type PixProvider,
  type ReceivedPayment,
} from '../provider/provider.js';
import type { ProviderRegistry } from '../provider/registry.js';
import type { RoutingService } from '../routing/service.js';
import { claimIdempotencyKey, findTransactionByExternalRef, IDEMPOTENCY_SCOPE } from '../transactions/idempotencyRepository.js';
import { findChargeByEndToEndId, findTransaction, lockTransaction, setHold, updateStatusOfDue } from '../transactions/repository.js';
import { CHARGE, chargeStatusAt, recurrenceCycleOf, type Transition } from '../transactions/states.js';
import { applyTransition, assertAllowed } from '../transactions/transition.js';
import { recordTransactionEvents } from '../transactions/events.js';
import { renderQrImage, type QrFormat } from './qrImage.js';
import * as repository from './repository.js';
import type { NewCharge } from './repository.js';
import type { CreateChargeBody, CreateDueChargeBody } from './schemas.js';
import { checkDueTerms } from './dueTerms.js';
import { amountDueOn, lastPayableDate, type AmountDue, type DueTerms } from '../pix/dueAmount.js';
import { dayAfter, dayOf, dayStart } from '../platform/saoPauloDay.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** An orphan's removal is tried again after 10 s, doubling up to an hour. */
const ORPHAN_RETRY_MS = 10_000;
const ORPHAN_RETRY_MAX_MS = HOUR_MS;
/** How long a worker holds an orphan it tries to remove. */
const ORPHAN_LEASE_MS = 60_000;
const DEFAULT_EXPIRES_IN_DAYS = 2;
/** How long a PSP may hold a received PIX (Res. BCB 506: up to 72 hours). */
const CAUTIONARY_HOLD_MS = 72 * HOUR_MS;

type ChargeSummary = { transactionId: string; status: TransactionStatus; pixPayload: string; expiresAt: Date; amountCents: number; due?: DueTerms | undefined };

/** A new charge, or the one a known externalRef already names (a retry). */
export type ChargeResult = { outcome: 'created' | 'replayed'; charge: ChargeSummary };

function replayed(row: TransactionRow): ChargeResult {
  const charge = asCharge(row);
  return {
    outcome: 'replayed',
    charge: {
      transactionId: charge.id,
      status: charge.status,
      pixPayload: charge.pixPayload,
      expiresAt: charge.expiresAt,
      // A paid due-date charge's amount is the amount paid: a retry is answered with the one asked for.
      amountCents: charge.due?.paid?.originalCents ?? charge.amountCents,
      due: charge.due?.terms,
    },
  };
}

export class ChargeService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly providers: ProviderRegistry,
    private readonly routing: RoutingService,
    private readonly fraudMarks: Pick<FraudMarkService, 'isMarked'>,
  ) {
    this.insertGrouped = grouped((writes: repository.ChargeWrite[]) => repository.insertChargesWithinRateLimit(db, writes));
  }

  /** New charges without an externalRef, written with those of concurrent requests (platform/grouped.ts). */
  private readonly insertGrouped: (write: repository.ChargeWrite) => Promise<boolean>;

  /** A new immediate charge (POST /v1/pix). */
  createCharge(account: Account, input: CreateChargeBody): Promise<ChargeResult> {
    const days = input.expiresInDays ?? DEFAULT_EXPIRES_IN_DAYS;
    return this.create(account, { ...input, expiresAt: (now) => new Date(now.getTime() + days * DAY_MS), due: null });
  }

  /**
   * A new charge with a due date (POST /v1/pix/due, BCB's cobv): payable until the end of its
   * last payable day (America/Sao_Paulo), for the amount due on the day it is paid.
   */
  createDueCharge(account: Account, input: CreateDueChargeBody): Promise<ChargeResult> {
    const { dueDate, validityAfterDueDays, fine, interest, abatement, discount } = input;
    // Absent parts stay absent in the stored JSON (undefined is not written).
    const terms: DueTerms = { dueDate, validityAfterDueDays, fine, interest, abatement, discount };
    const ends = dayStart(dayAfter(lastPayableDate(terms)));
    if (!ends) throw new Error(`no day after ${dueDate}`);
    return this.create(account, {
      ...input,
      check: (now) => checkDueTerms(terms, input.amountCents, dayOf(now)),
      expiresAt: () => ends,
      due: { terms, fee: account.fees.pixIn },
    });
  }

  /**
   * When the database goes away under a new charge (a failover, DESIGN.md §16) the answer is the
   * spec's for a transient failure, 502 "Erro ao comunicar com gateway. Tente novamente.": a retry
   * with the same externalRef answers the charge if it was written, or creates it.
   */
  private async create(account: Account, draft: ChargeDraft): Promise<ChargeResult> {
    try {
      return await this.write(account, draft);
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw new ProviderFailedError(messages.providerChargeFailed, { cause: error });
      throw error;
    }
  }

  private async write(account: Account, input: ChargeDraft): Promise<ChargeResult> {
    assertChargeAmountAllowed(account.limits, input.amountCents);

    const externalRef = input.externalRef ?? null;
    const now = this.clock.now();
    if (externalRef) {
      // Retries of a known charge answer without calling the provider or counting the rate limit.
      const existing = await findTransactionByExternalRef(this.db, { accountId: account.id, scope: IDEMPOTENCY_SCOPE.charge, externalRef }, now);
      if (existing) return replayed(existing);
    }
    input.check?.(now);

    const transactionId = newId();
    const expiresAt = input.expiresAt(now);
    const { document } = input.customer;
    const due = input.due
      ? { terms: input.due.terms, payer: { name: input.customer.name, document: document.number, documentType: document.type } }
      : undefined;
    const { provider, registered } = await this.register(account, { transactionId, amountCents: input.amountCents, expiresAt, due });
    const charge: NewCharge = {
      id: transactionId,
      accountId: account.id,
      amountCents: input.amountCents,
      feeCents: computeFee(account.fees.pixIn, input.amountCents, { capAtAmount: true }),
      externalRef,
      customer: input.customer,
      pixPayload: registered.pixPayload,
      location: registered.location,
      expiresAt,
      providerId: provider.id,
      due: input.due,
      createdAt: now,
    };
    const hourly = { bucket: 'pix:hour', windowMs: FIXED_WINDOW_MS.hour, limit: account.limits.pixPerHour };
    const created: ChargeResult = {
      outcome: 'created',
      charge: { transactionId, status: CHARGE.create.to, pixPayload: charge.pixPayload, expiresAt, amountCents: input.amountCents, due: input.due?.terms },
    };

    if (!externalRef) {
      // Nothing else to write atomically with it: one statement, no transaction, shared with the charges of concurrent requests.
      if (!(await this.insertGrouped({ charge, window: hourly }))) throw new RateLimitedError(messages.pixRateLimited);
      return created;
    }
    return this.db.transaction().execute(async (tx) => {
      const key = { accountId: account.id, scope: IDEMPOTENCY_SCOPE.charge, externalRef };
      if (!(await claimIdempotencyKey(tx, { ...key, transactionId }, now))) {
        // A concurrent request with the same externalRef won; answer with its charge.
        const winner = await findTransactionByExternalRef(tx, key, now);
        if (!winner) throw new Error('idempotency key held without its transaction');
        return replayed(winner);
      }
      const [written] = await repository.insertChargesWithinRateLimit(tx, [{ charge, window: hourly }]);
      if (!written) throw new RateLimitedError(messages.pixRateLimited);
      return created;
    });
  }

  /**
   * Registers the charge at the first provider of the routing that takes it (DESIGN.md §14): one
   * that refuses, times out or is down is followed by the next, within this request. Where the
   * answer was lost the charge may exist: recorded as an orphan, removed there when it answers again
   * (never shown to a payer, so never paid through us). None takes it: 502. A provider whose cap at
   * this hour is below the amount is never tried; none of them can take it: 422, nothing written.
   */
  private async register(
    account: Account,
    charge: Omit<ChargeRequest, 'accountId' | 'merchantName' | 'merchantCity'>,
  ): Promise<{ provider: PixProvider; registered: CreatedCharge }> {
    let candidates = await this.routing.candidates('charges', account.id, { amountCents: charge.amountCents });
    if (charge.due) {
      // Only a provider that registers due-date charges takes one; none configured is not a transient failure.
      const registering = this.providers.ids.filter((id) => this.providers.get(id).dueCharges);
      if (registering.length === 0) throw new InvalidStateError(messages.dueChargesUnavailable);
      const able = candidates.filter((provider) => provider.dueCharges);
      // Those down (or outside the account's list) are still tried before giving up, within their caps.
      candidates = able.length > 0 ? able : this.routing.withinCaps('charges', registering, charge.amountCents).map((id) => this.providers.get(id));
    }
    for (const provider of candidates) {
      try {
        const registered = await provider.createCharge({ accountId: account.id, ...charge, merchantName: account.name, merchantCity: account.city });
        return { provider, registered };
      } catch (error) {
        if (error instanceof ProviderOutcomeUnknownError) {
          await repository.insertOrphanCharge(this.db, {
            providerId: provider.id,
            transactionId: charge.transactionId,
            accountId: account.id,
            at: this.clock.now(),
          });
        } else if (!(error instanceof ProviderError)) {
          throw error;
        }
      }
    }
    throw new ProviderFailedError(messages.providerChargeFailed);
  }

  /** Orphans not removed yet, by provider (metrics). */
  countOpenOrphans(): Promise<{ providerId: string; count: number }[]> {
    return repository.countOpenOrphans(this.db);
  }

  /**
   * Worker step: removes the orphan charges of the providers that answer again (their breaker
   * closed); a removal that fails is tried again later, backing off. Returns how many were removed.
   */
  async removeOrphans(batch = 50): Promise<number> {
    const now = this.clock.now();
    // A provider still down is left alone; its orphans wait (a probe of new traffic closes its breaker).
    const available = this.providers.ids.filter((id) => this.providers.isClosed(id));
    const due = await repository.claimDueOrphans(this.db, available, now, new Date(now.getTime() + ORPHAN_LEASE_MS), batch);
    let removed = 0;
    for (const orphan of due) {
      try {
        const removal = await this.providers.get(orphan.providerId).cancelCharge(orphan.transactionId);
        // Paid after all: nothing to remove; its PIX is returned to the payer when the PSP reports it (src/inbound/).
        await repository.settleOrphan(this.db, orphan, { removedAt: this.clock.now(), outcome: removal });
        removed++;
      } catch (error) {
        if (!(error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError)) throw error;
        const nextAttemptAt = retryTime(this.clock, orphan.attempts, { firstMs: ORPHAN_RETRY_MS, maxMs: ORPHAN_RETRY_MAX_MS });
        await repository.settleOrphan(this.db, orphan, { nextAttemptAt, error: error.message });
      }
    }
    return removed;
  }

  /**
   * The sandbox's payer pays a pending charge of the account: the amount must be the charge's. A
   * due-date charge may be paid as on another of its payable days (`paidOn`): it owes that day's
   * amount, as a PIX paid then would; the money moves now. `held`: the PSP holds the PIX (cautionary block).
   */
  async applyPayment(accountId: string, transactionId: string, payment: ReceivedPayment, paidOn?: string, held = false): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const charge = await this.lockPayableCharge(tx, accountId, transactionId, now);
      assertAllowed(charge, CHARGE.pay);
      const day = paidOn === undefined ? dayOf(now) : payableDay(charge, paidOn);
      if (payment.amountCents !== undefined && payment.amountCents !== owedOn(charge, day)) throw new InvalidRequestError(messages.sandboxAmountMismatch);
      return this.credit(tx, charge, payment, now, day, held);
    });
  }

  /**
   * Locks a charge of any account for a PIX the provider reports; undefined when the id is not a
   * charge of ours. Answers whether the charge can take the payment (pending, amount equal).
   */
  async lockForIncoming(tx: Tx, payment: IncomingPayment, now: Date): Promise<{ charge: TransactionRow; payable: boolean } | undefined> {
    const charge = await lockTransaction(tx, 'pix_in', payment.transactionId);
    if (!charge) return undefined;
    // Judged as of when it was paid, not when the report arrived: a due-date charge owes that day's
    // amount, and a PIX paid within the validity counts (unless the charge was already expired).
    const paidAt = paidAtOf(payment, charge, now);
    return { charge, payable: chargeStatusAt(charge, paidAt) === 'pending' && payment.amountCents === owedOn(charge, dayOf(paidAt)) };
  }

  /**
   * A pending charge (locked by the caller) is paid: net credited, fee to the platform, `transaction.paid`
   * recorded. A due-date charge's amount is that of the day it was paid (`paidOn`, by default the day of its `paidAt`).
   * `held` (the PSP's cautionary block, DESIGN.md §19): credited and blocked at once, see holdOnReceipt.
   */
  async credit(
    tx: Tx,
    charge: TransactionRow,
    payment: ReceivedPayment & { paidAt?: Date | undefined },
    now: Date,
    paidOn = dayOf(paidAtOf(payment, charge, now)),
    held = false,
  ): Promise<TransactionRow> {
    const changes = {
      paidAt: now,
      endToEndId: payment.endToEndId,
      payer: payment.payer ? JSON.stringify(payment.payer) : null,
      ...(charge.due ? dueChargePaid(charge.due, amountDueOn(charge.due.terms, charge.amountCents, paidOn)) : {}),
    };
    const payable = held ? await holdOnReceipt(tx, charge, changes.netCents ?? charge.netCents, now) : charge;
    const paid = await applyTransition(tx, payable, CHARGE.pay, now, changes);
    await postChargePaid(tx, paid, now);
    if (held) {
      await recordTransactionEvents(tx, [{ name: 'transaction.blocked', transaction: paid }], now);
      // The PSP's hold already keeps the money: a fraud-mark block on top would hold it twice (docs/refunds.md).
      return paid;
    }
    await holdIfPayerMarked(tx, paid, now, this.fraudMarks);
    return paid;
  }

  /** What one of the account's due-date charges owes on a day (today when none is given); 404 for any other transaction. */
  async amountDue(accountId: string, transactionId: string, date?: string): Promise<{ charge: TransactionRow; terms: DueTerms; amount: AmountDue }> {
    const charge = await this.findCharge(accountId, transactionId);
    if (!charge.due) throw new NotFoundError(messages.transactionNotFound);
    const now = this.clock.now();
    const last = lastPayableDate(charge.due.terms);
    // A day no payment can have (before the charge, or long after its last day) is refused, not answered.
    if (date !== undefined && (date < dayOf(charge.createdAt) || date > dayAfter(last, 366))) throw new InvalidRequestError(messages.dueAmountDateOutOfRange);
    const amount = amountDueOn(charge.due.terms, charge.due.paid?.originalCents ?? charge.amountCents, date ?? dayOf(now));
    // Payable only while pending (a paid, cancelled or expired charge takes no payment on any day).
    return { charge, terms: charge.due.terms, amount: { ...amount, payable: amount.payable && chargeStatusAt(charge, now) === 'pending' } };
  }

  /** The charge's validity elapses now. */
  expireCharge(accountId: string, transactionId: string): Promise<TransactionRow> {
    return this.movePending(transactionId, CHARGE.expire, { accountId });
  }

  /**
   * The merchant (its own charge) or the operator (any, no accountId) cancels a pending charge.
   * The provider withdraws it first, so that nobody can pay it once it shows cancelled; a payment
   * that raced the cancellation is returned to its payer (not pending any more).
   */
  async cancelCharge(transactionId: string, accountId?: string): Promise<TransactionRow> {
    const refusal = messages.chargeNotCancellable;
    // Checked before the provider is asked (and again under the lock): only a pending charge is withdrawn.
    const charge = movableCharge(await findTransaction(this.db, accountId, transactionId), this.clock.now(), refusal);
    assertAllowed(charge, CHARGE.cancel, refusal);
    // A Pix Automático cycle is cancelled through its recurrence, where BCB's date rule applies.
    const cycle = recurrenceCycleOf(charge);
    if (cycle) throw new InvalidStateError(messages.recurrenceCycleThroughRecurrence(cycle.recurrenceId, cycle.cycle));
    try {
      // Paid meanwhile at the PSP: its PIX arrives as usual; the charge cannot be cancelled.
      if ((await this.providers.get(charge.providerId).cancelCharge(transactionId, { due: charge.due !== null })) === 'paid')
        throw new ProviderError('paid at the provider');
    } catch (error) {
      if (error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError) throw new ProviderFailedError(messages.providerCancelFailed);
      throw error;
    }
    return this.movePending(transactionId, CHARGE.cancel, { accountId, refusal });
  }

  /** The provider removed a pending charge (a PSP withdrew it; the sandbox's `fail`), of the account when given. */
  failCharge(transactionId: string, accountId?: string, providerId?: string): Promise<TransactionRow> {
    return this.movePending(transactionId, CHARGE.fail, { accountId, providerId });
  }

  /** The charge a received PIX paid (a PSP names PIX by end-to-end id). */
  findByPaymentEndToEndId(endToEndId: string): Promise<TransactionRow | undefined> {
    return findChargeByEndToEndId(this.db, endToEndId);
  }

  /** The QR image of one of the account's charges (any status: the code is the charge's). */
  async qrImage(accountId: string, transactionId: string, format: QrFormat, size: number) {
    const charge = await findTransaction(this.db, accountId, transactionId);
    if (charge?.type !== 'pix_in' || !charge.pixPayload) throw new NotFoundError(messages.transactionNotFound);
    return renderQrImage(charge.pixPayload, format, size);
  }

  /** A charge of the account; NotFoundError otherwise. */
  async findCharge(accountId: string, transactionId: string): Promise<TransactionRow> {
    const charge = await findTransaction(this.db, accountId, transactionId);
    if (charge?.type !== 'pix_in') throw new NotFoundError(messages.transactionNotFound);
    return charge;
  }

  /** A charge that is not payable any more (not pending, or its validity elapsed), of the account; NotFoundError otherwise. */
  async findUnpayableCharge(accountId: string, transactionId: string): Promise<TransactionRow> {
    const charge = await this.findCharge(accountId, transactionId);
    if (chargeStatusAt(charge, this.clock.now()) === 'pending') throw new InvalidStateError(messages.sandboxChargeStillPending);
    return charge;
  }

  /** Moves a pending charge along one of its transitions out of `pending`, with the operation's refusal message. */
  private movePending(
    transactionId: string,
    transition: Transition,
    options: { accountId?: string | undefined; providerId?: string | undefined; refusal?: (status: string) => string },
  ): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const charge = await this.lockPayableCharge(tx, options.accountId, transactionId, now, options.refusal);
      // A provider speaks only of the charges it issued.
      if (options.providerId !== undefined && charge.providerId !== options.providerId) throw new NotFoundError(messages.transactionNotFound);
      assertAllowed(charge, transition, options.refusal);
      return applyTransition(tx, charge, transition, now);
    });
  }

  /** Worker step: expires charges whose validity elapsed, each with its events. Returns how many. */
  async expireDueCharges(batch = 500): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const expired = await updateStatusOfDue(tx, CHARGE.expire, { expiresAtUpTo: now }, now, batch);
      await recordTransactionEvents(
        tx,
        expired.flatMap((charge) => CHARGE.expire.events.map((name) => ({ name, transaction: charge }))),
        now,
      );
      return expired.length;
    });
  }

  /**
   * Locks a charge (of the account, when given) for a move out of `pending`; a pending one whose
   * validity elapsed counts as expired.
   */
  private async lockPayableCharge(
    tx: Tx,
    accountId: string | undefined,
    transactionId: string,
    now: Date,
    refusal: (status: string) => string = messages.chargeNotPending,
  ): Promise<TransactionRow> {
    return movableCharge(await lockTransaction(tx, 'pix_in', transactionId, accountId), now, refusal);
  }
}

/** The charge found for a move out of `pending`: NotFoundError when there is none; one whose validity elapsed counts as expired. */
function movableCharge(charge: TransactionRow | undefined, now: Date, refusal: (status: string) => string): TransactionRow {
  if (charge?.type !== 'pix_in') throw new NotFoundError(messages.transactionNotFound);
  // Validity elapsed but the worker has not run yet: the charge is expired to everyone.
  if (chargeStatusAt(charge, now) !== charge.status) throw new InvalidStateError(refusal('expired'));
  return charge;
}

/** What a new charge is made of, whichever endpoint asked for it. */
type ChargeDraft = {
  amountCents: number;
  customer: ChargeCustomer;
  externalRef?: string | null | undefined;
  /** Checks that need the clock (a due date not in the past), after a retry was answered. */
  check?: (now: Date) => void;
  expiresAt: (now: Date) => Date;
  due: Omit<DueRecord, 'paid'> | null;
};

/** What a charge owes when paid on `day` (America/Sao_Paulo): its amount, or for one with a due date the amount due that day. */
function owedOn(charge: TransactionRow, day: string): number {
  return charge.due ? amountDueOn(charge.due.terms, charge.amountCents, day).amountDueCents : charge.amountCents;
}

/** A day a due-date charge can be paid on: from its creation to its last payable day. */
function payableDay(charge: TransactionRow, day: string): string {
  if (!charge.due) throw new InvalidStateError(messages.sandboxPaidOnNotDue);
  const first = dayOf(charge.createdAt);
  const last = lastPayableDate(charge.due.terms);
  if (day < first || day > last) throw new InvalidStateError(messages.sandboxPaidOnOutOfRange(first, last));
  return day;
}

/** A due-date charge paid: its amount becomes the amount paid, its fee the plan's on that amount, and the parts are kept. */
function dueChargePaid(due: DueRecord, amount: AmountDue) {
  const { payable: _payable, ...parts } = amount;
  const feeCents = computeFee(due.fee, parts.amountDueCents, { capAtAmount: true });
  return {
    amountCents: parts.amountDueCents,
    feeCents,
    netCents: parts.amountDueCents - feeCents,
    due: JSON.stringify({ ...due, paid: parts } satisfies DueRecord),
  };
}

/**
 * When a reported PIX was paid: the provider's time, believed only between the charge's creation
 * and now (a time before it would buy days of early discount; one ahead of our clock is not yet).
 */
function paidAtOf(payment: { paidAt?: Date | undefined }, charge: TransactionRow, now: Date): Date {
  if (!payment.paidAt || payment.paidAt > now) return now;
  return payment.paidAt < charge.createdAt ? charge.createdAt : payment.paidAt;
}

/** A paid charge's movement: its amount out of settlement, the net to the merchant, the fee to the platform. */
export async function postChargePaid(tx: Tx, paid: TransactionRow, at: Date): Promise<void> {
  await postMovement(tx, {
    accountId: paid.accountId,
    kind: 'charge_paid',
    transactionId: paid.id,
    at,
    entries: [
      { book: 'settlement', amountCents: -paid.amountCents },
      { book: 'merchant', amountCents: paid.netCents },
      { book: 'fees', amountCents: paid.feeCents },
    ],
  });
}

/**
 * The PSP holds a received PIX (Res. BCB 506, DESIGN.md §19): before its credit is posted, a
 * `cautionary` block of its net amount, linked to the charge, and the charge marked held for
 * CAUTIONARY_HOLD_MS; so the credit lands already blocked (it tops up no other block and is never
 * withdrawable) and `transaction.paid` says `held: true`. The charge as it now is.
 */
async function holdOnReceipt(tx: Tx, charge: TransactionRow, netCents: number, at: Date): Promise<TransactionRow> {
  // A fee that takes the whole amount credits nothing: nothing to block, the charge is still held.
  if (netCents > 0) {
    const reason = `Bloqueio cautelar do PSP sobre o PIX ${charge.id}`;
    await insertBlock(tx, { id: newId(), accountId: charge.accountId, amountCents: netCents, reason, at, kind: 'cautionary', transactionId: charge.id });
  }
  const held = await setHold(tx, charge.id, { to: 'held', heldUntil: new Date(at.getTime() + CAUTIONARY_HOLD_MS) }, at);
  if (!held) throw new Error(`charge ${charge.id} was held already`);
  return held;
}

/**
 * A PIX from a payer whose document is fraud-marked (DESIGN.md §19): the charge is paid (the
 * payer paid), and what it credited is held for the operator by a `fraud_mark` block, with a high
 * alert; the operator releases the block (or returns the money) once it is looked at. Every
 * received PIX passes here after its credit: a charge's, a static QR code's, a recurrence cycle's.
 */
export async function holdIfPayerMarked(tx: Tx, paid: TransactionRow, at: Date, fraudMarks: Pick<FraudMarkService, 'isMarked'>): Promise<void> {
  const { payer } = paid;
  if (!payer || paid.netCents <= 0 || !(await fraudMarks.isMarked({ documents: [payer.document] }, tx))) return;
  const blockId = newId();
  const reason = `PIX ${paid.id} de pagador com marcação de fraude`;
  await insertBlock(tx, { id: blockId, accountId: paid.accountId, amountCents: paid.netCents, reason, at, kind: 'fraud_mark' });
  await insertAlert(tx, {
    accountId: paid.accountId,
    kind: 'fraud_marked_payer',
    transactionId: paid.id,
    severity: 'high',
    at,
    details: { blockId, amountCents: paid.netCents, payerDocumentMasked: maskDocument(payer.documentType, payer.document) },
  });
}
