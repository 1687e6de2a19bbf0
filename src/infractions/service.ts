import type { Config } from '../config.js';
import { InvalidStateError, NotFoundError } from '../errors.js';
import { findBalance, insertCaseBlock, releaseBlockOfInfraction } from '../ledger/repository.js';
import { insertAlert } from '../alerts/repository.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { InfractionReason, InfractionRow, InfractionSituation, InfractionStatus, RefundRow, TransactionRow } from '../platform/schema.js';
import type { RefundService } from '../refunds/service.js';
import { lockTransaction } from '../transactions/repository.js';
import { CHARGE } from '../transactions/states.js';
import { assertAllowed } from '../transactions/transition.js';
import { recordTransactionEvents } from '../transactions/events.js';
import { defenseDeadlineOf } from './deadlines.js';
import { presentInfraction } from './presenter.js';
import * as repository from './repository.js';
import { allowsInfraction, INFRACTION, type InfractionTransition } from './states.js';

export type OpenInfractionInput = {
  amountCents?: number | undefined;
  reason: InfractionReason;
  recoveryId?: string | undefined;
  hop?: number | undefined;
  situation?: InfractionSituation | undefined;
  /** The PSP's MED return this case is opened to settle (a case it never told us of): at most one case per return. */
  returnEndToEndId?: string | undefined;
};

/**
 * MED cases (DESIGN.md §9, §19's MED 2.0): a payer's PSP contests a received PIX, in part, as one
 * of the accounts its funds recovery traced the money through; several cases may run on one
 * charge. Opening blocks what the merchant has of the case's amount (later credits top the block
 * up); the merchant may defend until the deadline; the case closes for the merchant (block
 * released) or against it (the recovered amount debited as a chargeback, the rest released).
 */
export class InfractionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'medDefenseDays' | 'providers'>,
    private readonly refunds: RefundService,
  ) {}

  /** The PSP (sandbox) or the operator opens a case on a paid charge (of the account, when given). */
  async open(transactionId: string, input: OpenInfractionInput, accountId?: string): Promise<InfractionRow> {
    return this.db.transaction().execute(async (tx) => {
      // The charge's lock makes its cases and refunds one at a time: the remainder below is exact.
      const charge = await lockTransaction(tx, 'pix_in', transactionId, accountId);
      if (!charge) throw new NotFoundError(messages.transactionNotFound);
      assertAllowed(charge, CHARGE.refundInPart, () => messages.infractionChargeNotPaid);
      if (input.returnEndToEndId && (await repository.findInfractionOfReturn(tx, input.returnEndToEndId)))
        throw new InvalidStateError(messages.infractionWrongStatus('accepted'));
      const remainder = await this.refunds.refundableRemainder(tx, charge);
      const amountCents = input.amountCents ?? remainder;
      if (amountCents > remainder || amountCents < 1) throw new InvalidStateError(messages.infractionAboveRemainder(remainder));

      const now = this.clock.now();
      const infraction = await repository.insertInfraction(tx, {
        id: newId(),
        accountId: charge.accountId,
        transactionId: charge.id,
        status: INFRACTION.open.to,
        reason: input.reason,
        amountCents,
        openedAt: now,
        defenseDeadline: defenseDeadlineOf(this.config, charge.providerId, now),
        defense: null,
        closedAt: null,
        updatedAt: now,
        recoveryId: input.recoveryId ?? null,
        hop: input.hop ?? 1,
        situation: input.situation ?? 'unknown',
        returnEndToEndId: input.returnEndToEndId ?? null,
      });
      // The block takes what is withdrawable now; what it lacks, later credits top up.
      const balance = await findBalance(tx, charge.accountId, { lock: true });
      const heldCents = Math.max(0, Math.min(amountCents, balance.availableCents - balance.blockedCents));
      await insertCaseBlock(tx, {
        id: newId(),
        accountId: charge.accountId,
        infractionId: infraction.id,
        caseCents: amountCents,
        heldCents,
        reason: `MED ${infraction.id}`,
        at: now,
      });
      if (heldCents < amountCents) {
        await insertAlert(tx, {
          accountId: charge.accountId,
          kind: 'med_block_short',
          transactionId: charge.id,
          severity: 'high',
          at: now,
          details: { infractionId: infraction.id, amountCents, heldCents, shortCents: amountCents - heldCents },
        });
      }
      await this.recordEvents(tx, INFRACTION.open, charge, infraction, now);
      return infraction;
    });
  }

  async get(accountId: string, infractionId: string): Promise<InfractionRow> {
    const infraction = await repository.findInfraction(this.db, infractionId, accountId);
    if (!infraction) throw new NotFoundError(messages.infractionNotFound);
    return infraction;
  }

  /** Every case of one of the account's charges, the oldest first. */
  listOfCharge(accountId: string, transactionId: string): Promise<InfractionRow[]> {
    return repository.listInfractionsOf(this.db, accountId, transactionId);
  }

  /** The newest `limit` cases, and whether older ones match too. */
  async list(accountId: string, options: { status?: InfractionStatus | undefined; limit: number }): Promise<{ rows: InfractionRow[]; hasMore: boolean }> {
    const rows = await repository.listInfractions(this.db, accountId, { ...options, limit: options.limit + 1 });
    return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
  }

  /** The merchant contests an open case before its deadline. */
  defend(accountId: string, infractionId: string, text: string): Promise<InfractionRow> {
    return this.move(infractionId, INFRACTION.defend, {
      accountId,
      check: (infraction, now) => {
        if (infraction.status !== 'open') throw new InvalidStateError(messages.infractionNoDefense(infraction.status));
        if (now >= infraction.defenseDeadline) throw new InvalidStateError(messages.defenseDeadlinePassed);
      },
      changes: () => ({ defense: text }),
    });
  }

  /** The operator starts the analysis. */
  analyze(infractionId: string): Promise<InfractionRow> {
    return this.move(infractionId, INFRACTION.analyze);
  }

  /** Closed for the merchant (of the account, when given): the block is released. */
  reject(infractionId: string, accountId?: string): Promise<InfractionRow> {
    return this.move(infractionId, INFRACTION.reject, { accountId, close: true });
  }

  /** The charge's running cases, the oldest first. */
  listRunningOf(transactionId: string): Promise<InfractionRow[]> {
    return repository.listRunningInfractionsOf(this.db, transactionId);
  }

  /**
   * Closed against the merchant (of the account, when given): the PSP recovered `recoveredCents`
   * (the case's amount by default, never more) for the victim. The case's block is released and
   * that amount debited as the chargeback refund, even below zero: what the block lacked is then
   * owed, taken from later credits. The refund is then sent — or, when the PSP returned the money
   * already (`returned`), settled as that return.
   */
  async accept(infractionId: string, recoveredCents: number | undefined, accountId?: string, returned?: { refundEndToEndId: string }): Promise<InfractionRow> {
    const created: { chargeback?: RefundRow } = {};
    const closed = await this.move(infractionId, INFRACTION.accept, {
      accountId,
      close: true,
      check: (infraction) => {
        if (!allowsInfraction(INFRACTION.accept, infraction.status)) throw new InvalidStateError(messages.infractionWrongStatus(infraction.status));
        if (recoveredCents !== undefined && recoveredCents > infraction.amountCents)
          throw new InvalidStateError(messages.chargebackAboveCase(infraction.amountCents));
      },
      changes: (infraction) => ({ recoveredCents: recoveredCents ?? infraction.amountCents }),
      effects: async (tx, infraction, charge, at) => {
        created.chargeback = await this.refunds.createChargeback(tx, charge, infraction, recoveredCents ?? infraction.amountCents, at);
      },
    });
    const refund = created.chargeback;
    if (refund && returned) await this.refunds.applyOutcome(refund.id, { status: 'refunded', refundEndToEndId: returned.refundEndToEndId });
    else if (refund) await this.refunds.send(refund);
    return closed;
  }

  /** Worker step: cases whose defense deadline passed go to analysis, each with its event. Returns how many. */
  async analyzeOverdue(batch = 200): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const due = await repository.lockOverdueInfractions(tx, INFRACTION.analyze, now, batch);
      for (const infraction of due) {
        const charge = await lockTransaction(tx, 'pix_in', infraction.transactionId);
        const updated = await repository.updateInfraction(tx, infraction.id, INFRACTION.analyze, now);
        if (charge && updated) await this.recordEvents(tx, INFRACTION.analyze, charge, updated, now);
      }
      return due.length;
    });
  }

  /** Running cases of every account, the nearest deadline first (the back-office). */
  listRunning(limit: number): Promise<InfractionRow[]> {
    return repository.listRunningInfractions(this.db, limit);
  }

  countOpen(): Promise<number> {
    return repository.countOpenInfractions(this.db);
  }

  /**
   * Moves a case along a transition in one database transaction: case, then its charge, locked
   * (the order every writer of both takes); `check` refuses before anything is written.
   */
  private move(
    infractionId: string,
    transition: InfractionTransition,
    options: {
      accountId?: string | undefined;
      check?: (infraction: InfractionRow, now: Date) => void;
      changes?: (infraction: InfractionRow) => { defense?: string; recoveredCents?: number };
      close?: boolean;
      effects?: (tx: Tx, infraction: InfractionRow, charge: TransactionRow, at: Date) => Promise<void>;
    } = {},
  ): Promise<InfractionRow> {
    return this.db.transaction().execute(async (tx) => {
      const infraction = await repository.lockInfraction(tx, infractionId, options.accountId);
      if (!infraction) throw new NotFoundError(messages.infractionNotFound);
      const now = this.clock.now();
      options.check?.(infraction, now);
      if (!allowsInfraction(transition, infraction.status)) throw new InvalidStateError(messages.infractionWrongStatus(infraction.status));
      const charge = await lockTransaction(tx, 'pix_in', infraction.transactionId);
      if (!charge) throw new Error(`infraction ${infraction.id} without its charge`);
      // The balance row before the block (the order of a topping-up credit).
      if (options.close) await findBalance(tx, charge.accountId, { lock: true });
      const updated = await repository.updateInfraction(tx, infraction.id, transition, now, {
        ...options.changes?.(infraction),
        ...(options.close ? { closedAt: now } : {}),
      });
      if (!updated) throw new Error(`infraction ${infraction.id} left ${infraction.status} while locked`);
      // The chargeback's debit before the release: what the release frees tops up other short cases only if it stays the merchant's.
      await options.effects?.(tx, updated, charge, now);
      if (options.close) await releaseBlockOfInfraction(tx, infraction.id, now);
      await this.recordEvents(tx, transition, charge, updated, now);
      return updated;
    });
  }

  private recordEvents(tx: Tx, transition: InfractionTransition, charge: TransactionRow, infraction: InfractionRow, at: Date): Promise<void> {
    const view = presentInfraction(infraction);
    return recordTransactionEvents(
      tx,
      transition.events.map((name) => ({ name, transaction: charge, infraction: view })),
      at,
    );
  }
}
