import type { ChargeService } from '../charges/service.js';
import { InvalidStateError, NotFoundError } from '../errors.js';
import type { InfractionService } from '../infractions/service.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import type { RefundRow } from '../platform/schema.js';
import type { AccountService } from '../accounts/service.js';
import type {
  ChargebackReceipt,
  CycleChargeReceipt,
  CycleChargeReport,
  RecurrenceReceipt,
  RecurrenceReport,
  IncomingPayment,
  OpenAtProvider,
  PaymentReceipt,
  ProviderReports,
  RefundOutcome,
  ReportedChargeback,
  StaticPayment,
} from '../provider/provider.js';
import type { StaticQrService } from '../staticqr/service.js';
import type { RecurrenceService } from '../recurrences/service.js';
import type { RefundService } from '../refunds/service.js';
import { insertAlert } from '../alerts/repository.js';

/**
 * Applies what a PSP reports on its own (DESIGN.md §12): received PIX, removed charges, refund
 * outcomes and MED returns. A PSP repeats, batches and reorders its reports, and a poller reads
 * them again: each is applied once, by the network's end-to-end ids, and a repeat is harmless.
 */
export class InboundService implements ProviderReports {
  constructor(
    /** The provider whose reports these are: it speaks only of what is bound to it (DESIGN.md §14). */
    private readonly providerId: string,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly charges: ChargeService,
    private readonly refunds: RefundService,
    private readonly infractions: InfractionService,
    private readonly staticQr: StaticQrService,
    private readonly accounts: Pick<AccountService, 'getAccount'>,
    private readonly recurrences: Pick<RecurrenceService, 'recurrenceReported' | 'cycleChargeReported' | 'openAtProvider'>,
  ) {}

  /** A Pix Automático recurrence's status at this provider (RecurrenceService.recurrenceReported). */
  recurrenceReported(providerRecurrenceId: string, report: RecurrenceReport): Promise<RecurrenceReceipt> {
    return this.recurrences.recurrenceReported(this.providerId, providerRecurrenceId, report);
  }

  /** A cycle's charge at this provider (RecurrenceService.cycleChargeReported). */
  cycleChargeReported(transactionId: string, report: CycleChargeReport): Promise<CycleChargeReceipt> {
    return this.recurrences.cycleChargeReported(this.providerId, transactionId, report);
  }

  /** Since when this provider's open recurrences and cycle charges were created (RecurrenceService.openAtProvider). */
  openAtProvider(): Promise<OpenAtProvider> {
    return this.recurrences.openAtProvider(this.providerId);
  }

  /**
   * Credits a PIX to its pending charge, or returns it to the payer when the charge is not payable
   * any more (cancelled, expired, failed, paid already) or the amount differs; once per end-to-end id.
   */
  async paymentReceived(payment: IncomingPayment): Promise<PaymentReceipt> {
    let toReturn: RefundRow | undefined;
    const receipt = await this.db.transaction().execute(async (tx): Promise<PaymentReceipt> => {
      const now = this.clock.now();
      const found = await this.charges.lockForIncoming(tx, payment, now);
      if (!found) return 'unknown_charge';
      const { charge, payable } = found;
      // Under the charge's lock: a repeat of this PIX finds what its first report did.
      if (charge.endToEndId === payment.endToEndId || (await this.refunds.isReturnedPayment(tx, payment.endToEndId))) return 'duplicate';
      if (charge.providerId !== this.providerId) {
        // A PIX to the charge's registration at this provider, which the gateway never showed (an
        // orphan of a failover): never credited; returned to its payer by this provider, and the operator told.
        toReturn = await this.refunds.recordReturnedPayment(tx, charge, payment, now, this.providerId);
        await insertAlert(tx, {
          accountId: charge.accountId,
          kind: 'payment_to_orphan_charge',
          transactionId: charge.id,
          details: { providerId: this.providerId, boundTo: charge.providerId, endToEndId: payment.endToEndId, amountCents: payment.amountCents },
          at: now,
        });
        return 'other_provider';
      }
      if (payable) {
        await this.charges.credit(tx, charge, payment, now);
        return 'credited';
      }
      toReturn = await this.refunds.recordReturnedPayment(tx, charge, payment, now);
      return 'returned';
    });
    if (toReturn) await this.refunds.send(toReturn);
    return receipt;
  }

  /** A PIX to this provider's receiving key with a static QR code's txid (StaticQrService.receiveReported). */
  staticPaymentReceived(payment: StaticPayment): Promise<PaymentReceipt> {
    return this.staticQr.receiveReported(this.providerId, payment, (accountId) => this.accounts.getAccount(accountId));
  }

  async chargeRemoved(transactionId: string): Promise<void> {
    try {
      // Only a charge this provider issued: an orphan it removes (ours, after a failover) is not the charge bound elsewhere.
      await this.charges.failCharge(transactionId, undefined, this.providerId);
    } catch (error) {
      // Paid, cancelled or expired meanwhile, or not ours: nothing to remove.
      if (!(error instanceof InvalidStateError || error instanceof NotFoundError)) throw error;
    }
  }

  async refundSettled(refundId: string, outcome: RefundOutcome): Promise<void> {
    try {
      await this.refunds.applyOutcome(refundId, outcome, { providerId: this.providerId });
    } catch (error) {
      // Settled already (a repeat), or not a refund of ours.
      if (!(error instanceof InvalidStateError || error instanceof NotFoundError)) throw error;
    }
  }

  /**
   * The PSP returned money of a received PIX through MED (a devolução of nature MED_*): the case it
   * settles closes against the merchant with this very return as its chargeback — the block
   * released, the amount debited, the charge refunded in part or in full. With MED 2.0 several
   * cases may run on one charge: the return settles the oldest running case of exactly its amount,
   * else the oldest that covers it (recovered in part); when the PSP never told us of a case, one
   * is opened for the return's amount and settled at once. A return already applied changes nothing.
   */
  async chargebackReported(chargeback: ReportedChargeback): Promise<ChargebackReceipt> {
    if (await this.refunds.findByEndToEndId(chargeback.refundEndToEndId)) return 'duplicate';
    const charge = await this.charges.findByPaymentEndToEndId(chargeback.paymentEndToEndId);
    if (charge?.providerId !== this.providerId) return 'unknown_payment';
    try {
      const cases = await this.infractions.listRunningOf(charge.id);
      const running =
        cases.find((infraction) => infraction.amountCents === chargeback.amountCents) ??
        cases.find((infraction) => infraction.amountCents > chargeback.amountCents) ??
        (await this.infractions.open(charge.id, {
          reason: chargeback.reason,
          amountCents: chargeback.amountCents,
          returnEndToEndId: chargeback.refundEndToEndId,
        }));
      await this.infractions.accept(running.id, chargeback.amountCents, undefined, {
        refundEndToEndId: chargeback.refundEndToEndId,
      });
      return 'applied';
    } catch (error) {
      // A concurrent report of the same return closed the case first.
      if (!(error instanceof InvalidStateError)) throw error;
      return 'duplicate';
    }
  }
}
