import type { Account } from '../accounts/model.js';
import type { StaticQrService } from '../staticqr/service.js';
import type { RecurrenceService } from '../recurrences/service.js';
import type { ChargeService } from '../charges/service.js';
import { InvalidRequestError, InvalidStateError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import { normalizePixKey, pixKeyFormatError } from '../pix/pixKeys.js';
import type { Party, TransactionRow, InfractionRow, RecurrenceRow, RefundRow, SimulatedOutage } from '../platform/schema.js';
import type { InfractionService, OpenInfractionInput } from '../infractions/service.js';
import type { ChargeDirective, RefundDirective, SimulatedNetwork, WithdrawalDirective } from '../provider/provider.js';
import type { RefundService } from '../refunds/service.js';
import { recurrenceCycleOf, WITHDRAWAL } from '../transactions/states.js';
import { assertAllowed } from '../transactions/transition.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import type { HoldService } from '../holds/service.js';

export type SettleOutcome = 'paid' | 'failed' | 'returned';

/** A sandbox payment of a charge: who pays, the amount sent (the charge's when absent), and for a due-date charge the day it counts as paid on. */
export type SandboxPayment = { payer?: Party | undefined; amountCents?: number | undefined; paidOn?: string | undefined; held?: boolean | undefined };

/**
 * The sandbox (DESIGN.md §6): a merchant plays the PIX network against its own transactions.
 * The simulated network produces what a real provider would report (payments, outcomes,
 * returns); the charge and withdrawal services apply those reports as they would a PSP's.
 */
export class SandboxService {
  /** The network of account-wide controls (armed failures, the DICT): shared by every simulated provider, as the DICT is. */
  private readonly network: SimulatedNetwork;

  constructor(
    private readonly networks: ReadonlyMap<string, SimulatedNetwork>,
    private readonly charges: ChargeService,
    private readonly withdrawals: WithdrawalService,
    private readonly refunds: RefundService,
    private readonly infractions: InfractionService,
    private readonly staticQr: StaticQrService,
    private readonly recurrences: RecurrenceService,
    private readonly holds: HoldService,
  ) {
    const [first] = networks.values();
    if (!first) throw new Error('the sandbox needs a simulated provider');
    this.network = first;
  }

  /** The simulated provider a transaction is bound to; one bound to a real PSP is not the sandbox's to play. */
  private networkOf(providerId: string): SimulatedNetwork {
    const network = this.networks.get(providerId);
    if (!network) throw new InvalidStateError(messages.sandboxRealProvider);
    return network;
  }

  /** The account's charge; a Pix Automático cycle's is played through its recurrence's routes, where its dates and retries apply. */
  private async notACycle(accountId: string, transactionId: string): Promise<TransactionRow> {
    const charge = await this.charges.findCharge(accountId, transactionId);
    const cycle = recurrenceCycleOf(charge);
    if (cycle) throw new InvalidStateError(messages.recurrenceCycleSandbox(cycle.recurrenceId, cycle.cycle));
    return charge;
  }

  /**
   * A payer (the default one when none is given) pays the charge, at the provider that issued it;
   * a due-date charge today or on the payable day given (`paidOn`); `held`: the PSP holds it (cautionary block).
   */
  async pay(accountId: string, transactionId: string, { payer, amountCents, paidOn, held }: SandboxPayment): Promise<TransactionRow> {
    const charge = await this.notACycle(accountId, transactionId);
    const network = this.networkOf(charge.providerId);
    const payment = network.pay(payer, amountCents);
    const paid = await this.charges.applyPayment(accountId, transactionId, payment, paidOn, held ?? false);
    // A charge with a due date was paid the amount due that day, which is now its amount.
    await network.recordPayment({ endToEndId: payment.endToEndId, transactionId, accountId, amountCents: paid.amountCents });
    return paid;
  }

  /** A payer pays one of the account's static QR codes (its fixed amount, or the amount given): a new pix_in transaction, paid. */
  async payStaticQr(account: Account, codeId: string, payer: Party | undefined, amountCents: number | undefined): Promise<TransactionRow> {
    const code = await this.staticQr.get(account.id, codeId);
    const amount = this.staticQr.assertPayable(account, code, amountCents);
    const network = this.networkOf(code.providerId);
    const payment = network.pay(payer, amount);
    const received = await this.staticQr.receive(account, code, { ...payment, amountCents: amount });
    await network.recordPayment({ endToEndId: payment.endToEndId, transactionId: received.id, accountId: account.id, amountCents: amount });
    return received;
  }

  /** The payer answers a recurrence's authorization request in its bank's app (Pix Automático). */
  answerRecurrence(accountId: string, id: string, answer: 'authorize' | 'refuse'): Promise<RecurrenceRow> {
    return answer === 'authorize' ? this.recurrences.authorize(accountId, id) : this.recurrences.refuse(accountId, id);
  }

  /** The payer cancels the recurrence. */
  cancelRecurrence(accountId: string, id: string): Promise<RecurrenceRow> {
    return this.recurrences.cancel(accountId, id, 'payer');
  }

  /** The payer cancels one cycle's scheduled debit (before its day). */
  cancelRecurrenceCycle(accountId: string, id: string, cycle: number): Promise<TransactionRow> {
    return this.recurrences.cancelCycle(accountId, id, cycle);
  }

  /**
   * The payer's bank debits a cycle: paid (by the payer given, or the default one), or failed (no
   * funds). A numbered cycle on its attempt day; `next`, the recurrence's next cycle (charged first
   * when it has no charge yet), at once.
   */
  async debitRecurrenceCycle(
    accountId: string,
    id: string,
    cycle: number | 'next',
    outcome: 'paid' | 'failed',
    payer: Party | undefined,
  ): Promise<TransactionRow> {
    const found = cycle === 'next' ? await this.recurrences.chargeNextCycle(accountId, id) : await this.recurrences.findCycle(accountId, id, cycle);
    const { charge } = found;
    const when = cycle === 'next' ? 'now' : 'on_its_day';
    const network = this.networkOf(charge.providerId);
    if (outcome === 'failed') return this.recurrences.debit(accountId, id, found.cycle.cycle, { outcome }, when);
    const payment = network.pay(payer, charge.amountCents);
    const paid = await this.recurrences.debit(accountId, id, found.cycle.cycle, { outcome, payment }, when);
    await network.recordPayment({ endToEndId: payment.endToEndId, transactionId: paid.id, accountId, amountCents: paid.amountCents });
    return paid;
  }

  /** The outage switch of a simulated provider (DESIGN.md §14); 404 for any other id. */
  async setOutage(providerId: string, mode: SimulatedOutage | 'up'): Promise<void> {
    const network = this.networks.get(providerId);
    if (!network) throw new NotFoundError(messages.providerNotFound);
    await network.setOutage(mode);
  }

  async expire(accountId: string, transactionId: string): Promise<TransactionRow> {
    await this.notACycle(accountId, transactionId);
    return this.charges.expireCharge(accountId, transactionId);
  }

  /** The provider removes the pending charge. */
  async fail(accountId: string, transactionId: string): Promise<TransactionRow> {
    await this.notACycle(accountId, transactionId);
    return this.charges.failCharge(transactionId, accountId);
  }

  /**
   * A payment reaches the provider after the charge stopped being payable (cancelled, expired,
   * failed, or paid already): it is returned to the payer in full, never credited.
   */
  async latePayment(accountId: string, transactionId: string, payer: Party | undefined, amountCents: number | undefined): Promise<RefundRow> {
    const charge = await this.charges.findUnpayableCharge(accountId, transactionId);
    const network = this.networkOf(charge.providerId);
    const payment = network.pay(payer, amountCents ?? charge.amountCents);
    const returned = await this.refunds.returnPayment(charge, payment);
    await network.recordPayment({ endToEndId: payment.endToEndId, transactionId, accountId, amountCents: amountCents ?? charge.amountCents });
    return returned;
  }

  armNextRefund(accountId: string, outcome: RefundDirective): Promise<void> {
    return this.network.armNextRefund(accountId, outcome);
  }

  /** The network's answer for a processing refund of the account. */
  async settleRefund(accountId: string, refundId: string, outcome: 'refunded' | 'failed'): Promise<RefundRow> {
    const refund = await this.refunds.get(accountId, refundId);
    if (refund.status !== 'processing') throw new InvalidStateError(messages.refundNotProcessing(refund.status));
    const decided = await this.networkOf(refund.providerId).decideRefund(refundId, outcome);
    // Decided already by the network (e.g. a settlement that raced this call): apply what it knows.
    const applied =
      decided.status === 'unknown' ? await this.refunds.applyProviderOutcome(refundId) : await this.refunds.applyOutcome(refundId, decided, { accountId });
    return applied ?? refund;
  }

  /** The PSP releases a held charge of the account (cautionary block). */
  releaseHold(accountId: string, transactionId: string): Promise<TransactionRow> {
    return this.holds.release(transactionId, accountId);
  }

  /** The PSP returns a held charge of the account to its payer: the charge is refunded in full, the merchant's balance as before the PIX. */
  async returnHold(accountId: string, transactionId: string): Promise<TransactionRow> {
    const charge = await this.charges.findCharge(accountId, transactionId);
    const network = this.networkOf(charge.providerId);
    const { charge: returned, refund } = await this.holds.returnHeld(transactionId, network.heldReturnEndToEndId(), accountId);
    const { id: refundId, amountCents, refundEndToEndId } = refund;
    if (refundEndToEndId) await network.recordHeldReturn({ refundId, accountId, amountCents, refundEndToEndId });
    return returned;
  }

  /** The payer's bank contests a paid charge through MED. */
  openInfraction(accountId: string, transactionId: string, input: OpenInfractionInput): Promise<InfractionRow> {
    return this.infractions.open(transactionId, input, accountId);
  }

  /** The PSP's decision on a MED case: accepted (chargeback of what it recovered) or rejected (block released). */
  closeInfraction(
    accountId: string,
    infractionId: string,
    decision: { outcome: 'accepted' | 'rejected'; recoveredCents?: number | undefined },
  ): Promise<InfractionRow> {
    return decision.outcome === 'accepted'
      ? this.infractions.accept(infractionId, decision.recoveredCents, accountId)
      : this.infractions.reject(infractionId, accountId);
  }

  armNextCharge(accountId: string, outcome: ChargeDirective): Promise<void> {
    return this.network.armNextCharge(accountId, outcome);
  }

  armNextWithdrawal(accountId: string, outcome: WithdrawalDirective): Promise<void> {
    return this.network.armNextWithdrawal(accountId, outcome);
  }

  /** Registers who holds an email/phone/evp key, fraud-marked or not; returns the key as stored (normalized). */
  async registerDictKey(accountId: string, keyType: 'email' | 'phone' | 'evp', key: string, owner: Party, fraudMarked: boolean): Promise<string> {
    const normalized = normalizePixKey(keyType, key);
    const formatError = pixKeyFormatError(keyType, normalized);
    if (formatError) throw new InvalidRequestError(formatError);
    await this.network.registerDictKey(accountId, keyType, normalized, owner, fraudMarked);
    return normalized;
  }

  /**
   * The network's answer for a withdrawal of the account. A processing withdrawal changes at
   * once (the provider notifies us); for a `failed_unknown` one the provider only learns the
   * outcome, which the reconciliation worker then finds.
   */
  async settle(accountId: string, transactionId: string, outcome: SettleOutcome, amountCents: number | undefined): Promise<TransactionRow> {
    const withdrawal = await this.withdrawals.findWithdrawal(accountId, transactionId);
    const network = this.networkOf(withdrawal.providerId);
    if (outcome === 'returned') return this.withdrawals.markReturned(transactionId, accountId, network.returnWithdrawal(amountCents));
    assertAllowed(withdrawal, WITHDRAWAL.settle);
    const decided = await network.decideWithdrawal(transactionId, outcome);
    if (withdrawal.status === WITHDRAWAL.loseTrack.to) return withdrawal;
    // Applied as the provider's notification of this very outcome, under the row lock: a
    // concurrent settlement that got there first makes this one a 422.
    return (await this.withdrawals.applyOutcome(transactionId, decided, accountId)) ?? withdrawal;
  }

  /** Worker step: processing withdrawals and refunds whose SANDBOX_SETTLE_MS elapsed are paid / refunded. */
  async settleDue(batch = 200): Promise<number> {
    let settled = 0;
    for (const network of this.networks.values()) settled += await this.settleDueAt(network, batch);
    return settled;
  }

  private async settleDueAt(network: SimulatedNetwork, batch: number): Promise<number> {
    let settled = 0;
    for (const due of await network.dueRefunds(batch)) {
      const decided = await network.decideRefund(due.refundId, 'refunded');
      try {
        if (await this.refunds.applyOutcome(due.refundId, decided)) settled++;
      } catch (error) {
        if (!(error instanceof InvalidStateError)) throw error; // a concurrent settle won the race
      }
    }
    for (const due of await network.dueSettlements(batch)) {
      const withdrawal = await this.withdrawals.findWithdrawal(due.accountId, due.transactionId);
      const decided = await network.decideWithdrawal(due.transactionId, 'paid');
      if (withdrawal.status !== WITHDRAWAL.submit.to) continue; // settled by hand meanwhile, or waiting for reconciliation
      try {
        if (await this.withdrawals.applyOutcome(due.transactionId, decided)) settled++;
      } catch (error) {
        if (!(error instanceof InvalidStateError)) throw error; // a concurrent settle won the race
      }
    }
    return settled;
  }
}
