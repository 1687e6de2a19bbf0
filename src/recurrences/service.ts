import { assertChargeAmountAllowed, type Account } from '../accounts/model.js';
import type { AccountService } from '../accounts/service.js';
import { holdIfPayerMarked, postChargePaid } from '../charges/service.js';
import type { FraudMarkService } from '../fraudmarks/service.js';
import { InvalidRequestError, InvalidStateError, NotFoundError, ProviderFailedError } from '../errors.js';
import { asError } from '../platform/errors.js';
import { computeFee } from '../ledger/fees.js';
import { messages } from '../messages.js';
import { nextBusinessDay } from '../pix/bankingDays.js';
import { cycleDate } from '../pix/recurrenceCalendar.js';
import { retryTime, type Clock } from '../platform/clock.js';
import type { Db, Executor, Tx } from '../platform/database.js';
import { derivedId, newId } from '../platform/ids.js';
import { dayAfter, dayOf, dayStart } from '../platform/saoPauloDay.js';
import type { RecurrenceCycleRow, RecurrenceRow, TransactionRow } from '../platform/schema.js';
import {
  ProviderError,
  ProviderOutcomeUnknownError,
  RecurrenceLeftLiveError,
  type CycleChargeReceipt,
  type CycleChargeReport,
  type OpenAtProvider,
  type ReceivedPayment,
  type RecurrenceProvider,
  type RecurrenceReceipt,
  type RecurrenceReport,
} from '../provider/provider.js';
import type { ProviderRegistry } from '../provider/registry.js';
import type { RoutingService } from '../routing/service.js';
import { insertTransaction } from '../transactions/repository.js';
import { CHARGE, chargeStatusAt } from '../transactions/states.js';
import { applyTransition } from '../transactions/transition.js';
import type { RecurrenceEventName } from '../webhooks/events.js';
import { insertEventsWithDeliveries } from '../webhooks/repository.js';
import { presentCycle, presentRecurrence, type CycleWithCharge } from './presenter.js';
import * as repository from './repository.js';
import type { CreateRecurrenceBody } from './schemas.js';
import { allowsRecurrence, RECURRENCE, type RecurrenceTransition } from './states.js';

/** BCB: a cycle's charge (cobr) is sent from 10 to 2 days before its date. */
const CREATE_AHEAD_MAX_DAYS = 10;
const CREATE_AHEAD_MIN_DAYS = 2;
/** BCB's PERMITE_3R_7D: up to 3 retries, within 7 days after the date. */
const MAX_RETRIES = 3;
const RETRY_WINDOW_DAYS = 7;
/** A cycle's charge that failed at its provider is tried again after 30 s, doubling up to an hour (days remain: it is sent 10 to 2 days ahead). */
const CYCLE_RETRY_MS = 30_000;
const CYCLE_RETRY_MAX_MS = 3_600_000;
/**
 * A cycle's charge stays pending this many days past its last attempt day: a debit settled that day
 * but reported late (a callback delayed, read back after the midnight) is still credited, not
 * refunded. Nothing is debited later: the PSP expires its cobr (EXPIRADA) after the last attempt.
 */
const CYCLE_GRACE_DAYS = 2;
/** How long a request registering a recurrence holds it: longer than a provider call with its retries; a crashed one's claim lapses. */
const REGISTRATION_LEASE_MS = 5 * 60_000;
/**
 * An orphan rec (one at a provider for a recurrence over here) is tried by its deciding request,
 * then by the worker once this lease lapses, again after 10 s, doubling up to an hour.
 */
const ORPHAN_LEASE_MS = 60_000;
const ORPHAN_RETRY_MS = 10_000;
const ORPHAN_RETRY_MAX_MS = 3_600_000;
/** How far ahead a recurrence may start (as a due date may be due). */
const MAX_START_DAYS = 5 * 366;
/**
 * The payer may authorize until the end of the 3rd day before the start, so cycle 1's cobr is sent
 * by the 2nd (BCB's least) with a day to spare: a recurrence starts at least 3 days ahead.
 */
const MIN_START_DAYS = CREATE_AHEAD_MIN_DAYS + 1;

/** An orphan rec held by one attempt until `claimedUntil`, after `attempts` earlier ones. */
type HeldOrphan = repository.OrphanRecurrence & { attempts: number; claimedUntil: Date };

type Debit = { outcome: 'paid'; payment: ReceivedPayment } | { outcome: 'failed' };

/** What the worker's step did with a recurrence's next cycle (createCycle). */
type CycleCreation = 'charged' | 'skipped' | 'deferred' | 'unchanged';

/**
 * The day a cycle is debited: its due day (BCB's dataDeVencimento, a calendar day), or with BCB's
 * ajusteDiaUtil the next business day (the banking calendar of due-date charges), as the PSP moves it.
 */
const debitDay = (dueDate: string, businessDayAdjustment: boolean): string => (businessDayAdjustment ? nextBusinessDay(dueDate) : dueDate);

/**
 * Pix Automático (DESIGN.md §17, docs/recurrences.md): a recurrence the payer authorizes, then one
 * pix_in charge per cycle, created by the worker ahead of its date and debited on it, retried
 * when the recurrence allows it. The recurrence's own steps write recurrence.* events; its
 * cycles' charges the usual transaction.* ones.
 */
export class RecurrenceService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly providers: ProviderRegistry,
    private readonly routing: RoutingService,
    private readonly accounts: AccountService,
    private readonly fraudMarks: Pick<FraudMarkService, 'isMarked'>,
  ) {}

  async create(account: Account, input: CreateRecurrenceBody): Promise<{ outcome: 'created' | 'replayed'; recurrence: RecurrenceRow }> {
    assertChargeAmountAllowed(account.limits, input.amountCents);
    const { chargeMaxCents } = account.limits;
    if ((input.maxAmountCents ?? 0) > chargeMaxCents) throw new InvalidRequestError(messages.amountAboveMaximum(chargeMaxCents));
    const externalRef = input.externalRef ?? null;
    if (externalRef) {
      const existing = await repository.findRecurrenceByExternalRef(this.db, account.id, externalRef);
      if (existing) return { outcome: 'replayed', recurrence: await this.registerIfUnclaimed(account, existing) };
    }
    const now = this.clock.now();
    const today = dayOf(now);
    if (input.startDate < dayAfter(today, MIN_START_DAYS)) throw new InvalidRequestError(messages.recurrenceStartDateTooSoon);
    if (input.startDate > dayAfter(today, MAX_START_DAYS)) throw new InvalidRequestError(messages.recurrenceStartDateTooFar);
    // The account's routing for charges, without a probe: nothing is sent before the row is written.
    const provider = (await this.routing.candidates('charges', account.id, { probe: false })).find((candidate) => candidate.recurrences);
    if (!provider?.recurrences) throw new InvalidStateError(messages.recurrencesUnavailable);
    if (provider.recurrences.requiresDebtorAccount && !input.debtor.account) throw new InvalidRequestError(messages.recurrenceDebtorAccountRequired);
    // BCB's dataExpiracaoSolicitacao: the end of the 3rd day before the start (MIN_START_DAYS).
    const authorizationExpiresAt = dayStart(dayAfter(input.startDate, -CREATE_AHEAD_MIN_DAYS));
    if (!authorizationExpiresAt) throw new Error(`no day before ${input.startDate}`);
    const inserted = await repository.insertRecurrence(this.db, {
      id: newId(),
      accountId: account.id,
      providerId: provider.id,
      providerRecurrenceId: null,
      externalRef,
      contract: input.contract,
      debtor: JSON.stringify({
        name: input.debtor.name,
        document: input.debtor.document.number,
        documentType: input.debtor.document.type,
        ...(input.debtor.account
          ? { account: { ispb: input.debtor.account.ispb, branch: input.debtor.account.branch ?? null, number: input.debtor.account.number } }
          : {}),
      }),
      object: input.object ?? null,
      frequency: input.frequency,
      amountCents: input.amountCents,
      maxAmountCents: input.maxAmountCents ?? null,
      startDate: input.startDate,
      endDate: input.endDate ?? null,
      retryPolicy: input.retryPolicy ?? 'none',
      businessDayAdjustment: input.businessDayAdjustment ?? false,
      status: RECURRENCE.create.to,
      authorizationExpiresAt,
      cancelledBy: null,
      nextCycleDate: input.startDate,
      // Written claimed: this request registers it; a concurrent one with its externalRef answers it as it is.
      registrationClaimedUntil: new Date(now.getTime() + REGISTRATION_LEASE_MS),
      createdAt: now,
      updatedAt: now,
    });
    if (inserted) return { outcome: 'created', recurrence: await this.register(account, inserted) };
    // A concurrent request with the same externalRef won (and registers it): answer its recurrence.
    const winner = externalRef ? await repository.findRecurrenceByExternalRef(this.db, account.id, externalRef) : undefined;
    if (!winner) throw new Error('recurrence insert refused without a winner');
    return { outcome: 'replayed', recurrence: winner };
  }

  /**
   * A variable recurrence's amount from its next cycle on: the cycles already charged keep theirs
   * (their cobr is at the PSP), and so does a cycle whose charge was sent and not confirmed (the
   * provider may hold it with that amount), or is being sent while this commits.
   */
  async changeAmount(account: Account, id: string, amountCents: number): Promise<RecurrenceRow> {
    assertChargeAmountAllowed(account.limits, amountCents);
    return this.db.transaction().execute(async (tx) => {
      const row = await this.lockOrThrow(tx, id, account.id);
      if (row.maxAmountCents === null) throw new InvalidStateError(messages.recurrenceAmountFixed);
      if (!allowsRecurrence(RECURRENCE.cancel, row.status)) throw new InvalidStateError(messages.recurrenceAmountNotOpen(row.status));
      if (row.nextCycleDate === null) throw new InvalidStateError(messages.recurrenceNoCycleLeft);
      if (amountCents > row.maxAmountCents) throw new InvalidRequestError(messages.recurrenceAmountAboveCeiling(row.maxAmountCents));
      return repository.setRecurrenceAmount(tx, id, amountCents, this.clock.now());
    });
  }

  /**
   * A replay: a recurrence still `created` whose registration nobody holds (a failed or lapsed one)
   * is registered by this request; one being registered by another is answered as it is.
   */
  private async registerIfUnclaimed(account: Account, row: RecurrenceRow): Promise<RecurrenceRow> {
    if (row.status !== RECURRENCE.create.to) return row;
    const now = this.clock.now();
    const claimed = await repository.claimRegistration(this.db, row.id, now, new Date(now.getTime() + REGISTRATION_LEASE_MS));
    return claimed ? this.register(account, claimed) : ((await repository.findRecurrence(this.db, account.id, row.id)) ?? row);
  }

  /**
   * A recurrence written (`created`) and claimed by this request is registered at its provider,
   * which sends the payer the authorization request: `awaiting_authorization`. The provider failing
   * leaves it `created` and unclaimed (502): a retry with the same externalRef asks again. One
   * cancelled (or expired) meanwhile is cancelled at the provider too, as an orphan rec (by the
   * worker when this request cannot): the request answers the recurrence as it is here.
   */
  private async register(account: Account, row: RecurrenceRow): Promise<RecurrenceRow> {
    let registered: { providerRecurrenceId: string };
    try {
      const recurrences = this.recurrencesAt(row.providerId);
      registered = await recurrences.createRecurrence({
        accountId: account.id,
        recurrenceId: row.id,
        contract: row.contract,
        debtor: row.debtor,
        object: row.object,
        frequency: row.frequency,
        amountCents: row.maxAmountCents === null ? row.amountCents : null,
        maxAmountCents: row.maxAmountCents,
        startDate: row.startDate,
        endDate: row.endDate,
        retriesAllowed: row.retryPolicy === 'three_in_seven_days',
        authorizationExpiresAt: row.authorizationExpiresAt,
        merchantName: account.name,
      });
    } catch (error) {
      if (row.registrationClaimedUntil) await repository.releaseRegistration(this.db, row.id, row.registrationClaimedUntil);
      // A half-made registration the provider could not undo: its rec is an orphan, left to the
      // worker (this request has just failed to cancel it); a retry registers the recurrence anew.
      if (error instanceof RecurrenceLeftLiveError) await this.orphan(this.db, row, error.providerRecurrenceId, this.clock.now(), ORPHAN_RETRY_MS);
      if (error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError) {
        throw new ProviderFailedError(messages.recurrenceProviderFailed, { cause: error });
      }
      throw error;
    }
    const { providerRecurrenceId } = registered;
    const outcome = await this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const changes = { providerRecurrenceId, registrationClaimedUntil: null };
      const updated = await repository.updateRecurrenceStatus(tx, row.id, RECURRENCE.request, now, changes);
      if (updated) return { row: updated, orphan: undefined };
      // It left `created` while the provider registered it: cancelled or expired (kept with this idRec),
      // or registered by a request whose claim outlived this one's. This rec is cancelled there.
      const locked = await this.lockOrThrow(tx, row.id, account.id);
      if (locked.providerRecurrenceId === providerRecurrenceId) return { row: locked, orphan: undefined };
      const kept = locked.providerRecurrenceId === null ? await repository.setProviderRecurrenceId(tx, row.id, providerRecurrenceId, now) : locked;
      return { row: kept, orphan: await this.orphan(tx, locked, providerRecurrenceId, now) };
    });
    if (outcome.orphan) await this.cancelOrphan(outcome.orphan);
    return outcome.row;
  }

  async get(accountId: string, id: string): Promise<RecurrenceRow> {
    const row = await repository.findRecurrence(this.db, accountId, id);
    if (!row) throw new NotFoundError(messages.recurrenceNotFound);
    return row;
  }

  /** A page of the account's recurrences, newest first, and whether more follow. */
  async list(accountId: string, limit: number, startingAfter?: string): Promise<{ recurrences: RecurrenceRow[]; hasMore: boolean }> {
    const after = startingAfter ? await repository.findRecurrence(this.db, accountId, startingAfter) : undefined;
    if (startingAfter && !after) throw new InvalidRequestError(messages.recurrenceStartingAfterInvalid);
    const rows = await repository.listRecurrences(this.db, accountId, limit, after);
    return { recurrences: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  cycles(accountId: string, id: string): Promise<CycleWithCharge[]> {
    return repository.listCycles(this.db, accountId, id);
  }

  /** The payer authorizes the recurrence in its bank's app (the sandbox's call). */
  authorize(accountId: string, id: string): Promise<RecurrenceRow> {
    return this.answer(accountId, id, RECURRENCE.authorize);
  }

  /** The payer refuses it. */
  refuse(accountId: string, id: string): Promise<RecurrenceRow> {
    return this.answer(accountId, id, RECURRENCE.refuse);
  }

  private answer(accountId: string, id: string, transition: RecurrenceTransition): Promise<RecurrenceRow> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const row = await this.lockOrThrow(tx, id, accountId);
      // A request that lapsed takes no answer, whether or not the worker has expired it yet.
      const lapsed = row.status === 'awaiting_authorization' && row.authorizationExpiresAt <= now;
      if (lapsed || !allowsRecurrence(transition, row.status)) {
        throw new InvalidStateError(messages.recurrenceNotAwaitingAuthorization(lapsed ? RECURRENCE.expire.to : row.status));
      }
      // A refused recurrence has no next cycle.
      return this.move(tx, row, transition, now, transition === RECURRENCE.refuse ? { nextCycleDate: null } : {});
    });
  }

  /**
   * The merchant or the payer cancels the recurrence: its provider first (nothing more is debited),
   * then the recurrence and its cycles' pending charges, with their events (a charge already past
   * its expiry expires instead).
   */
  async cancel(accountId: string, id: string, by: 'merchant' | 'payer'): Promise<RecurrenceRow> {
    const transition = by === 'merchant' ? RECURRENCE.cancel : RECURRENCE.payerCancel;
    for (;;) {
      const row = await this.get(accountId, id);
      this.assertCancellable(row, transition);
      if (row.providerRecurrenceId) {
        const providerRecurrenceId = row.providerRecurrenceId;
        await this.callProvider(row.providerId, (recurrences) => recurrences.cancelRecurrence(providerRecurrenceId));
      }
      const cancelled = await this.cancelLocked(accountId, id, by, transition, row.providerRecurrenceId);
      if (cancelled) return cancelled;
      // Registered at the provider since it was read: cancelled there first, then here.
    }
  }

  /** The recurrence cancelled with its pending cycles; undefined when its provider's id is no longer the one cancelled there. */
  private cancelLocked(
    accountId: string,
    id: string,
    by: 'merchant' | 'payer',
    transition: RecurrenceTransition,
    cancelledAtProvider: string | null,
  ): Promise<RecurrenceRow | undefined> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const locked = await this.lockOrThrow(tx, id, accountId);
      // The provider's report of this same cancellation committed first: it is done.
      if (locked.status === transition.to && locked.cancelledBy === by) return locked;
      this.assertCancellable(locked, transition);
      if (locked.providerRecurrenceId !== cancelledAtProvider) return undefined;
      return this.cancelWithCycles(tx, locked, by, transition, now);
    });
  }

  /** A locked recurrence cancelled with its pending cycles' charges (one already past its expiry expires instead). */
  private async cancelWithCycles(tx: Tx, locked: RecurrenceRow, by: 'merchant' | 'payer', transition: RecurrenceTransition, now: Date): Promise<RecurrenceRow> {
    const cancelled = await this.move(tx, locked, transition, now, { cancelledBy: by, nextCycleDate: null });
    for (const charge of await repository.lockPendingCycleCharges(tx, locked.id)) {
      await applyTransition(tx, charge, chargeStatusAt(charge, now) === CHARGE.expire.to ? CHARGE.expire : CHARGE.cancel, now);
    }
    return cancelled;
  }

  /** A request that lapsed is expired, whether or not the worker has moved it yet. */
  private assertCancellable(row: RecurrenceRow, transition: RecurrenceTransition): void {
    const lapsed = allowsRecurrence(RECURRENCE.expire, row.status) && row.authorizationExpiresAt <= this.clock.now();
    if (lapsed || !allowsRecurrence(transition, row.status)) {
      throw new InvalidStateError(messages.recurrenceNotCancellable(lapsed ? RECURRENCE.expire.to : row.status));
    }
  }

  /**
   * The merchant or the payer cancels one cycle's charge before its date (BCB: a cobr cannot be
   * cancelled on or after the day of its first debit attempt; the payer cancels a scheduled debit
   * until the day before).
   */
  async cancelCycle(accountId: string, id: string, cycleNumber: number): Promise<TransactionRow> {
    const { charge } = await this.db.transaction().execute((tx) => this.cancellableCycle(tx, accountId, id, cycleNumber));
    await this.callProvider(charge.providerId, (recurrences) => recurrences.cancelCycleCharge(charge.id));
    return this.db.transaction().execute(async (tx) => {
      // The provider's report of this same cancellation (its cobr CANCELADA) committed first: it is done.
      const { charge: current } = await this.lockChargedCycle(tx, accountId, id, cycleNumber);
      if (current.status === CHARGE.cancel.to) return current;
      const locked = await this.cancellableCycle(tx, accountId, id, cycleNumber);
      return applyTransition(tx, locked.charge, CHARGE.cancel, this.clock.now());
    });
  }

  private async cancellableCycle(tx: Tx, accountId: string, id: string, cycleNumber: number) {
    const found = await this.lockPendingCycle(tx, accountId, id, cycleNumber);
    // BCB: not on or after the day of its first attempt (the due day, moved to a business day when the recurrence asks; a setting that never changes: read, not locked).
    const adjusted = (await repository.findRecurrence(tx, accountId, id))?.businessDayAdjustment ?? false;
    if (dayOf(this.clock.now()) >= debitDay(found.cycle.dueDate, adjusted)) {
      throw new InvalidStateError(messages.recurrenceCycleCancelTooLate);
    }
    return found;
  }

  /** The cycle's charge, for the sandbox to find its provider. */
  async findCycle(accountId: string, id: string, cycleNumber: number): Promise<{ cycle: RecurrenceCycleRow; charge: TransactionRow }> {
    return this.db.transaction().execute((tx) => this.lockChargedCycle(tx, accountId, id, cycleNumber));
  }

  /** A cycle with its charge, locked; a skipped one has none to act on. */
  private async lockChargedCycle(tx: Tx, accountId: string, id: string, cycleNumber: number) {
    const found = await repository.lockCycle(tx, accountId, id, cycleNumber);
    if (!found) throw new NotFoundError(messages.recurrenceCycleNotFound);
    const { cycle, charge } = found;
    if (!charge) throw new InvalidStateError(messages.recurrenceCycleNotPending(cycle.status));
    return { cycle, charge };
  }

  /**
   * The payer's bank debits the cycle on its attempt day (the sandbox's call), or at once when
   * `now` (the sandbox's next cycle). Paid: the charge is paid and credited. Failed: with retries
   * allowed, another attempt the next day while fewer than 3 retries were made and that day is
   * within 7 days after the due date (recurrence.retry_scheduled); otherwise the charge fails
   * (transaction.failed).
   */
  debit(accountId: string, id: string, cycleNumber: number, debit: Debit, when: 'on_its_day' | 'now' = 'on_its_day'): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      // The recurrence before its cycle's charge, as cancel() locks them: never the other way round (a deadlock).
      const recurrence = await this.lockOrThrow(tx, id, accountId);
      const { cycle, charge } = await this.lockPendingCycle(tx, accountId, id, cycleNumber);
      if (when === 'on_its_day' && dayOf(now) < cycle.attemptDate) throw new InvalidStateError(messages.recurrenceDebitNotDue(cycle.attemptDate));
      return (await this.applyDebit(tx, recurrence, cycle, charge, debit, now)).charge;
    });
  }

  /**
   * The cycle the sandbox debits next: an active recurrence's earliest cycle whose charge is
   * pending, or else its next cycle, charged now through the worker's step (its cobr at the
   * provider, its transaction and cycle row), however far ahead its date.
   */
  async chargeNextCycle(accountId: string, id: string): Promise<{ cycle: RecurrenceCycleRow; charge: TransactionRow }> {
    const row = await this.get(accountId, id);
    if (row.status !== RECURRENCE.authorize.to) throw new InvalidStateError(messages.recurrenceNotActive(row.status));
    const pending = await this.firstPendingCycle(accountId, id);
    if (pending !== undefined) return this.findCycle(accountId, id, pending);
    if (row.nextCycleDate === null) throw new InvalidStateError(messages.recurrenceNoCycleLeft);
    const created = await this.createCycle(id, accountId, dayOf(this.clock.now()));
    if (created === 'deferred') throw new ProviderFailedError(messages.recurrenceProviderFailed);
    if (created === 'skipped') throw new InvalidStateError(messages.recurrenceCycleSkippedNow(row.nextCycle));
    // Charged here, or changed by another call meanwhile (charged, cancelled): read again.
    return this.chargeNextCycle(accountId, id);
  }

  private async firstPendingCycle(accountId: string, id: string): Promise<number | undefined> {
    return (await repository.listCycles(this.db, accountId, id)).find((cycle) => cycle.chargeStatus === CHARGE.create.to)?.cycle;
  }

  /** A debit of a locked pending cycle: paid and credited, or failed (retried the next day when the policy allows: `retryOn`). */
  private async applyDebit(
    tx: Tx,
    recurrence: RecurrenceRow,
    cycle: RecurrenceCycleRow,
    charge: TransactionRow,
    debit: Debit,
    now: Date,
  ): Promise<{ charge: TransactionRow; retryOn: string | null }> {
    if (debit.outcome === 'paid') {
      const { payment } = debit;
      const paid = await applyTransition(tx, charge, CHARGE.pay, now, {
        paidAt: now,
        endToEndId: payment.endToEndId,
        payer: payment.payer ? JSON.stringify(payment.payer) : null,
      });
      await postChargePaid(tx, paid, now);
      await holdIfPayerMarked(tx, paid, now, this.fraudMarks);
      return { charge: paid, retryOn: null };
    }
    const retryOn = dayAfter(dayOf(now));
    const retries = recurrence.retryPolicy === 'three_in_seven_days' && cycle.failedAttempts < MAX_RETRIES;
    if (retries && retryOn <= dayAfter(debitDay(cycle.dueDate, recurrence.businessDayAdjustment), RETRY_WINDOW_DAYS)) {
      const rescheduled = await repository.recordFailedAttempt(tx, charge.id, retryOn);
      await this.recordEvents(
        tx,
        recurrence,
        ['recurrence.retry_scheduled'],
        now,
        presentCycle({ ...rescheduled, chargeStatus: charge.status, amountCents: charge.amountCents }),
      );
      return { charge, retryOn };
    }
    await repository.recordFailedAttempt(tx, charge.id, cycle.attemptDate);
    return { charge: await applyTransition(tx, charge, CHARGE.fail, now), retryOn: null };
  }

  /** Where a provider's sweep of its recurrences and cycle charges starts (repository.oldestOpenAtProvider). */
  openAtProvider(providerId: string): Promise<OpenAtProvider> {
    return repository.oldestOpenAtProvider(this.db, providerId);
  }

  /**
   * A recurrence's status as its provider reports it (the payer's answer, a lapse, a cancellation on
   * either side): applied when the recurrence is in a status that takes it, ignored otherwise (a
   * repeat, a report of our own cancellation). A cancellation reported by the provider is not sent
   * back to it. An approval that finds it expired or cancelled here (the payer answered just after
   * the worker expired the request) is recorded as an orphan rec and cancelled at the provider after
   * the commit, by the worker when that fails: nothing is to be debited under a recurrence over here.
   */
  async recurrenceReported(providerId: string, providerRecurrenceId: string, report: RecurrenceReport): Promise<RecurrenceReceipt> {
    let orphan: HeldOrphan | undefined;
    const receipt = await this.db.transaction().execute(async (tx): Promise<RecurrenceReceipt> => {
      const now = this.clock.now();
      const row = await repository.lockRecurrenceAtProvider(tx, providerId, providerRecurrenceId);
      if (!row) return 'ignored';
      const transition =
        report.status === 'authorized'
          ? RECURRENCE.authorize
          : report.status === 'refused'
            ? RECURRENCE.refuse
            : report.status === 'expired'
              ? RECURRENCE.expire
              : report.by === 'payer'
                ? RECURRENCE.payerCancel
                : RECURRENCE.cancel;
      if (!allowsRecurrence(transition, row.status)) {
        const over = row.status === RECURRENCE.expire.to || row.status === RECURRENCE.cancel.to;
        if (report.status !== 'authorized' || !over) return 'ignored';
        orphan = await this.orphan(tx, row, providerRecurrenceId, now);
        return 'cancelled_there';
      }
      if (report.status === 'cancelled') {
        await this.cancelWithCycles(tx, row, report.by, transition, now);
        return 'applied';
      }
      await this.move(tx, row, transition, now, transition === RECURRENCE.authorize ? {} : { nextCycleDate: null });
      return 'applied';
    });
    if (orphan) await this.cancelOrphan(orphan);
    return receipt;
  }

  /**
   * A cycle's charge as its provider reports it: paid (credited), an attempt failed (retried per the
   * recurrence's policy: `retry_on` the day the provider is to try again), failed for good, or
   * cancelled. A report about a charge no longer pending, or an attempt already counted, is ignored.
   */
  async cycleChargeReported(providerId: string, transactionId: string, report: CycleChargeReport): Promise<CycleChargeReceipt> {
    const found = await repository.findCycleOfCharge(this.db, transactionId);
    if (!found) return { outcome: 'unknown_charge' };
    return this.db.transaction().execute(async (tx): Promise<CycleChargeReceipt> => {
      const now = this.clock.now();
      const recurrence = await this.lockOrThrow(tx, found.recurrenceId, found.accountId);
      const locked = await repository.lockCycle(tx, found.accountId, found.recurrenceId, found.cycle);
      const charge = locked?.charge;
      if (!locked || !charge || charge.providerId !== providerId) return { outcome: 'unknown_charge' };
      if (charge.status !== 'pending') return { outcome: 'ignored' };
      const { cycle } = locked;
      switch (report.status) {
        case 'paid':
          if (report.payment.amountCents !== charge.amountCents) return { outcome: 'ignored' };
          await this.applyDebit(tx, recurrence, cycle, charge, { outcome: 'paid', payment: report.payment }, now);
          return { outcome: 'applied' };
        case 'attempt_failed': {
          if (report.failedAttempts <= cycle.failedAttempts) {
            // Counted before: a pending cycle with failures has its retry scheduled on attemptDate, owed to the provider while that day is ahead.
            return cycle.failedAttempts > 0 && cycle.attemptDate > dayOf(now) ? { outcome: 'retry_owed', day: cycle.attemptDate } : { outcome: 'ignored' };
          }
          const { retryOn } = await this.applyDebit(tx, recurrence, cycle, charge, { outcome: 'failed' }, now);
          return retryOn ? { outcome: 'retry_on', day: retryOn } : { outcome: 'applied' };
        }
        case 'failed':
          await applyTransition(tx, charge, CHARGE.fail, now);
          return { outcome: 'applied' };
        case 'cancelled':
          await applyTransition(tx, charge, chargeStatusAt(charge, now) === CHARGE.expire.to ? CHARGE.expire : CHARGE.cancel, now);
          return { outcome: 'applied' };
      }
    });
  }

  /**
   * Worker step: each authorized recurrence whose next cycle is at most 10 days ahead gets that
   * cycle's charge (or, when fewer than 2 days are left, skips it, recorded with
   * recurrence.cycle_skipped: too late for BCB). Returns how many recurrences moved on.
   */
  async createDueCycles(batch = 50): Promise<number> {
    const now = this.clock.now();
    const today = dayOf(now);
    let moved = 0;
    for (const due of await repository.recurrencesWithCycleDue(this.db, dayAfter(today, CREATE_AHEAD_MAX_DAYS), now, batch)) {
      const outcome = await this.createCycle(due.id, due.accountId, today);
      if (outcome === 'charged' || outcome === 'skipped') moved++;
    }
    return moved;
  }

  /**
   * The recurrence's next cycle gets its charge (`charged`), or is recorded as skipped, too late for
   * BCB; `deferred` when its provider failed (tried again after a backoff); `unchanged` when it
   * has none to charge, or another worker charged it meanwhile.
   */
  private async createCycle(id: string, accountId: string, today: string): Promise<CycleCreation> {
    const row = await repository.findRecurrence(this.db, accountId, id);
    if (row?.status !== RECURRENCE.authorize.to || row.nextCycleDate === null || row.providerRecurrenceId === null) return 'unchanged';
    const { nextCycle: cycle, nextCycleDate: dueDate, providerRecurrenceId } = row;
    // Derived from the recurrence and the cycle: an attempt after an unknown outcome re-sends the same
    // cobr (its txid); the PSP refuses it as in use, and the provider adopts the one it holds.
    const transactionId = derivedId(id, `cycle-${cycle}`);
    if (dueDate < dayAfter(today, CREATE_AHEAD_MIN_DAYS)) {
      // Attempts that failed at the provider may have registered its charge: cancelled there before the
      // skip, or the payer would still be debited. One that cannot be cancelled (its debit day has
      // come) is adopted below if the provider holds it; otherwise the recurrence backs off.
      if (row.cycleFailures === 0 || (await this.cancelledAtProvider(row.providerId, transactionId))) {
        return this.skipCycle(id, accountId, cycle, dueDate);
      }
    }
    const account = await this.accounts.getAccount(accountId);
    // A charge already tried may be at the provider with its amount (an answer lost): the same again, not a changed one.
    const amountCents = row.cycleAmountCents ?? row.amountCents ?? 0;
    try {
      await this.recurrencesAt(row.providerId).createCycleCharge({
        accountId,
        transactionId,
        providerRecurrenceId,
        dueDate,
        businessDayAdjustment: row.businessDayAdjustment,
        amountCents,
        debtor: row.debtor,
      });
    } catch (error) {
      if (!(error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError || error instanceof InvalidStateError)) throw error;
      // Tried again after a backoff, while the cycle is still at least 2 days ahead: meanwhile the sweep serves the others.
      const retryAt = retryTime(this.clock, row.cycleFailures, { firstMs: CYCLE_RETRY_MS, maxMs: CYCLE_RETRY_MAX_MS });
      await repository.deferCycle(this.db, id, cycle, retryAt, amountCents);
      return 'deferred';
    }
    // Unpaid, it expires after its last possible attempt (the debit day, or 7 days later with retries) and the grace days.
    const firstAttempt = debitDay(dueDate, row.businessDayAdjustment);
    const lastDay = row.retryPolicy === 'three_in_seven_days' ? dayAfter(firstAttempt, RETRY_WINDOW_DAYS) : firstAttempt;
    const expiresAt = dayStart(dayAfter(lastDay, 1 + CYCLE_GRACE_DAYS));
    if (!expiresAt) throw new Error(`no day after ${lastDay}`);
    return this.db.transaction().execute(async (tx): Promise<CycleCreation> => {
      const now = this.clock.now();
      const locked = await this.lockOrThrow(tx, id, accountId);
      // Another worker charged it meanwhile, or the recurrence was cancelled.
      if (locked.status !== RECURRENCE.authorize.to || locked.nextCycle !== cycle) return 'unchanged';
      const feeCents = computeFee(account.fees.pixIn, amountCents, { capAtAmount: true });
      await insertTransaction(tx, CHARGE.create, {
        id: transactionId,
        accountId,
        amountCents,
        feeCents,
        netCents: amountCents - feeCents,
        description: locked.object ?? locked.contract,
        customer: JSON.stringify({ name: locked.debtor.name, document: { number: locked.debtor.document, type: locked.debtor.documentType } }),
        expiresAt,
        providerId: locked.providerId,
        recurrenceId: id,
        recurrenceCycle: cycle,
        createdAt: now,
        updatedAt: now,
      });
      await repository.insertCycle(tx, {
        transactionId,
        status: 'charged',
        recurrenceId: id,
        accountId,
        cycle,
        dueDate,
        attemptDate: firstAttempt,
        createdAt: now,
      });
      await repository.advanceCycle(tx, id, cycle + 1, this.dateOfCycle(locked, cycle + 1), now);
      return 'charged';
    });
  }

  /** Whether a cycle's charge is cancelled at its provider (or was never there). */
  private async cancelledAtProvider(providerId: string, transactionId: string): Promise<boolean> {
    try {
      await this.recurrencesAt(providerId).cancelCycleCharge(transactionId);
      return true;
    } catch (error) {
      if (error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError || error instanceof InvalidStateError) return false;
      throw error;
    }
  }

  /** A cycle reached too late (a worker or provider down for days): recorded as skipped, without a charge, and the next one is due. */
  private skipCycle(id: string, accountId: string, cycle: number, dueDate: string): Promise<CycleCreation> {
    return this.db.transaction().execute(async (tx): Promise<CycleCreation> => {
      const now = this.clock.now();
      const locked = await this.lockOrThrow(tx, id, accountId);
      if (locked.status !== RECURRENCE.authorize.to || locked.nextCycle !== cycle) return 'unchanged';
      const skipped = await repository.insertCycle(tx, {
        transactionId: null,
        status: 'skipped',
        recurrenceId: id,
        accountId,
        cycle,
        dueDate,
        attemptDate: dueDate,
        createdAt: now,
      });
      const advanced = await repository.advanceCycle(tx, id, cycle + 1, this.dateOfCycle(locked, cycle + 1), now);
      await this.recordEvents(tx, advanced, ['recurrence.cycle_skipped'], now, presentCycle({ ...skipped, chargeStatus: null, amountCents: null }));
      return 'skipped';
    });
  }

  /** Worker step: requests the payer did not answer in time, or never sent (`created`), expire (recurrence.expired). */
  async expireAuthorizations(batch = 50): Promise<number> {
    let expired = 0;
    for (const { id } of await repository.lapsedAuthorizations(this.db, RECURRENCE.expire.from, this.clock.now(), batch)) {
      await this.db.transaction().execute(async (tx) => {
        const now = this.clock.now();
        const row = await this.lockOrThrow(tx, id);
        if (allowsRecurrence(RECURRENCE.expire, row.status) && row.authorizationExpiresAt <= now) {
          await this.move(tx, row, RECURRENCE.expire, now, { nextCycleDate: null });
          expired++;
        }
      });
    }
    return expired;
  }

  /** The day a cycle is due (a calendar day), or null when it falls after the recurrence's end. */
  private dateOfCycle(row: RecurrenceRow, cycle: number): string | null {
    const day = cycleDate(row.startDate, row.frequency, cycle);
    return row.endDate !== null && day > row.endDate ? null : day;
  }

  private async lockPendingCycle(tx: Tx, accountId: string, id: string, cycleNumber: number) {
    const found = await this.lockChargedCycle(tx, accountId, id, cycleNumber);
    const status = chargeStatusAt(found.charge, this.clock.now());
    if (status !== 'pending') throw new InvalidStateError(messages.recurrenceCycleNotPending(status));
    return found;
  }

  private async lockOrThrow(tx: Tx, id: string, accountId?: string): Promise<RecurrenceRow> {
    const row = await repository.lockRecurrence(tx, id, accountId);
    if (!row) throw new NotFoundError(messages.recurrenceNotFound);
    return row;
  }

  /** Moves a locked recurrence along a transition and records its events. */
  private async move(
    tx: Tx,
    row: RecurrenceRow,
    transition: RecurrenceTransition,
    at: Date,
    changes: Parameters<typeof repository.updateRecurrenceStatus>[4] = {},
  ): Promise<RecurrenceRow> {
    const updated = await repository.updateRecurrenceStatus(tx, row.id, transition, at, changes);
    if (!updated) throw new Error(`recurrence ${row.id} left ${row.status} while locked`);
    await this.recordEvents(tx, updated, transition.events, at);
    return updated;
  }

  /** The recurrence's events, with their deliveries, in the caller's transaction (outbox). */
  private async recordEvents(
    tx: Tx,
    row: RecurrenceRow,
    names: readonly RecurrenceEventName[],
    at: Date,
    cycle?: ReturnType<typeof presentCycle>,
  ): Promise<void> {
    const view = presentRecurrence(row);
    const events = names.map((name) => {
      const eventId = newId();
      const payload = JSON.stringify({ eventId, event: name, ...view, ...(cycle ? { cycle } : {}), occurredAt: at.getTime() });
      return { id: eventId, accountId: row.accountId, transactionId: cycle?.transactionId ?? null, name, payload };
    });
    await insertEventsWithDeliveries(tx, events, at);
  }

  /**
   * Recs at providers for recurrences that are over here, cancelled there (the worker's step): those
   * the deciding request could not cancel, or whose request died first. A provider whose breaker
   * is open is left alone meanwhile. How many were cancelled.
   */
  async cancelOrphans(batch = 50): Promise<number> {
    const now = this.clock.now();
    const available = this.providers.ids.filter((id) => this.providers.isClosed(id));
    const leaseUntil = new Date(now.getTime() + Math.max(0, ...available.map((id) => this.orphanLeaseMs(id))));
    const due = await repository.claimDueOrphanRecurrences(this.db, available, now, leaseUntil, batch);
    let cancelled = 0;
    for (const orphan of due) if (await this.cancelOrphan({ ...orphan, claimedUntil: leaseUntil })) cancelled++;
    return cancelled;
  }

  /** Orphan recs not cancelled yet, by provider (metrics). */
  countOpenOrphans(): Promise<{ providerId: string; count: number }[]> {
    return repository.countOpenOrphanRecurrences(this.db);
  }

  /** How long an attempt holds an orphan rec: longer than the cancellation's calls with their retries, so no two overlap. */
  private orphanLeaseMs(providerId: string): number {
    return Math.max(ORPHAN_LEASE_MS, 2 * this.providers.get(providerId).sendTiming.sendBudgetMs);
  }

  /**
   * Records, with the decision that the recurrence is over here, that `providerRecurrenceId` must be
   * cancelled at its provider: the deciding request tries it after its commit; the worker takes it
   * once that attempt's lease lapses (the request failed to, or died), or after `firstAttemptInMs`.
   * Undefined when it was recorded already (a repeated report): whoever has it goes on.
   */
  private async orphan(
    db: Executor,
    row: RecurrenceRow,
    providerRecurrenceId: string,
    now: Date,
    firstAttemptInMs = this.orphanLeaseMs(row.providerId),
  ): Promise<HeldOrphan | undefined> {
    const orphan = { providerId: row.providerId, providerRecurrenceId, recurrenceId: row.id, accountId: row.accountId };
    const claimedUntil = new Date(now.getTime() + firstAttemptInMs);
    return (await repository.insertOrphanRecurrence(db, orphan, now, claimedUntil)) ? { ...orphan, attempts: 0, claimedUntil } : undefined;
  }

  /**
   * One attempt at cancelling an orphan rec at its provider, held until `claimedUntil`. Any failure
   * (a refusal, no answer, a provider without recurrences since) is tried again later with backoff
   * and kept as its last_error, never thrown: the request that decided it has committed, and the
   * worker's other orphans go on. A failure answered after another attempt took the rec over
   * (its lease lapsed) leaves that attempt's schedule alone.
   */
  private async cancelOrphan(orphan: HeldOrphan): Promise<boolean> {
    try {
      await this.recurrencesAt(orphan.providerId).cancelRecurrence(orphan.providerRecurrenceId);
    } catch (error) {
      const nextAttemptAt = retryTime(this.clock, orphan.attempts, { firstMs: ORPHAN_RETRY_MS, maxMs: ORPHAN_RETRY_MAX_MS });
      await repository.settleOrphanRecurrence(this.db, orphan, { nextAttemptAt, claimedUntil: orphan.claimedUntil, error: asError(error).message });
      return false;
    }
    await repository.settleOrphanRecurrence(this.db, orphan, { cancelledAt: this.clock.now() });
    return true;
  }

  /** The recurrence calls of a provider; one without them (docs/recurrences.md) is a 422. */
  private recurrencesAt(providerId: string): RecurrenceProvider {
    const recurrences = this.providers.get(providerId).recurrences;
    if (!recurrences) throw new InvalidStateError(messages.recurrencesUnavailable);
    return recurrences;
  }

  private async callProvider(providerId: string, call: (recurrences: RecurrenceProvider) => Promise<void>): Promise<void> {
    try {
      await call(this.recurrencesAt(providerId));
    } catch (error) {
      if (error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError) {
        throw new ProviderFailedError(messages.recurrenceProviderFailed, { cause: error });
      }
      throw error;
    }
  }
}
