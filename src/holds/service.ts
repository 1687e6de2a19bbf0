import { InvalidStateError, NotFoundError } from '../errors.js';
import { postMovement, releaseCautionaryBlock } from '../ledger/repository.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { RefundRow, TransactionRow } from '../platform/schema.js';
import { presentRefund } from '../refunds/presenter.js';
import { heldCharges } from './repository.js';
import * as refunds from '../refunds/repository.js';
import { recordTransactionEvents } from '../transactions/events.js';
import { lockExpiredHolds, lockTransaction, setHold } from '../transactions/repository.js';
import { CHARGE } from '../transactions/states.js';
import { applyTransition, assertAllowed } from '../transactions/transition.js';

/**
 * The cautionary block (Res. BCB 506, DESIGN.md §19): a received PIX the PSP holds is credited and
 * blocked on receipt (charges/service.ts, holdOnReceipt); here it ends. Released: the block ends,
 * the money is the merchant's (`transaction.hold_released`). Returned by the PSP to its payer: the
 * payment's whole movement is reversed, fee included, with a settled refund of kind
 * `cautionary_return` (`transaction.refunded`). A hold nobody decided ends released when its
 * `heldUntil` passes (the worker's step): the PSP may hold it 72 hours at most.
 */
export class HoldService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The account's held charges (Início's attention list): the first `limit`, sooner released first, and how many. */
  heldCharges(accountId: string, limit: number) {
    return heldCharges(this.db, accountId, limit);
  }

  /** The PSP releases a held charge (of the account, when given). */
  release(transactionId: string, accountId?: string): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => this.releaseLocked(tx, await this.lockHeld(tx, transactionId, accountId), this.clock.now()));
  }

  /**
   * The PSP returned a held PIX to its payer (`refundEndToEndId`: the return's PIX). Written as a
   * settled refund; the charge is refunded in full and the merchant's balance is as before the PIX.
   */
  returnHeld(transactionId: string, refundEndToEndId: string, accountId?: string): Promise<{ charge: TransactionRow; refund: RefundRow }> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const held = await this.lockHeld(tx, transactionId, accountId);
      assertAllowed(held, CHARGE.refundInFull);
      // A refund or a MED case already spoke for part of it: returning all of it would give back more than the charge.
      const { refundsCents, openCaseCents } = await refunds.committedAmount(tx, held.id);
      if (refundsCents > 0 || openCaseCents > 0) throw new InvalidStateError(messages.heldReturnCommitted);
      const refund = await refunds.insertRefund(tx, {
        id: newId(),
        accountId: held.accountId,
        transactionId: held.id,
        kind: 'cautionary_return',
        status: 'refunded',
        amountCents: held.amountCents,
        reason: null,
        externalRef: null,
        paymentEndToEndId: paymentEndToEndIdOf(held),
        refundEndToEndId,
        infractionId: null,
        providerId: held.providerId,
        createdAt: now,
        settledAt: now,
        updatedAt: now,
      });
      // The payment's movement (charges/service.ts, postChargePaid) in reverse: the merchant never had it.
      await postMovement(tx, {
        accountId: held.accountId,
        kind: 'cautionary_return',
        transactionId: held.id,
        memo: refund.id,
        at: now,
        entries: [
          { book: 'settlement', amountCents: held.amountCents },
          { book: 'merchant', amountCents: -held.netCents },
          { book: 'fees', amountCents: -held.feeCents },
        ],
      });
      // The block after the debit: its release tops up short MED blocks only from money that stays the merchant's.
      await releaseCautionaryBlock(tx, held.id, now);
      const returned = await setHold(tx, held.id, { to: 'returned' }, now);
      if (!returned) throw new Error(`charge ${held.id} left its hold while locked`);
      const charge = await applyTransition(tx, returned, CHARGE.refundInFull, now, { refundedCents: held.amountCents }, { refund: presentRefund(refund) });
      return { charge, refund };
    });
  }

  /** Worker step: holds whose `heldUntil` passed with no decision are released. Returns how many. */
  releaseExpired(batch = 100): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const expired = await lockExpiredHolds(tx, now, batch);
      for (const held of expired) await this.releaseLocked(tx, held, now);
      return expired.length;
    });
  }

  /** Ends the hold of a locked held charge: its block released, `held: false`, `transaction.hold_released`. */
  private async releaseLocked(tx: Tx, held: TransactionRow, at: Date): Promise<TransactionRow> {
    await releaseCautionaryBlock(tx, held.id, at);
    const released = await setHold(tx, held.id, { to: 'released' }, at);
    if (!released) throw new Error(`charge ${held.id} left its hold while locked`);
    await recordTransactionEvents(tx, [{ name: 'transaction.hold_released', transaction: released }], at);
    return released;
  }

  /** Locks a charge (of the account, when given) that the PSP holds: 404 when it is none, 422 when it is not held. */
  private async lockHeld(tx: Tx, transactionId: string, accountId: string | undefined): Promise<TransactionRow> {
    const charge = await lockTransaction(tx, 'pix_in', transactionId, accountId);
    if (!charge) throw new NotFoundError(messages.transactionNotFound);
    if (charge.holdStatus !== 'held') throw new InvalidStateError(messages.chargeNotHeld);
    return charge;
  }
}

/** The end-to-end id of a paid charge's payment: what its return gives back. */
function paymentEndToEndIdOf(charge: TransactionRow): string {
  if (!charge.endToEndId) throw new Error(`paid charge ${charge.id} has no end-to-end id`);
  return charge.endToEndId;
}
