import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildDynamicBrCode } from '../../pix/brcode.js';
import { generateEndToEndId } from '../../pix/endToEndId.js';
import type { Clock } from '../../platform/clock.js';
import { dayOf } from '../../platform/saoPauloDay.js';
import type { Db } from '../../platform/database.js';
import { grouped } from '../../platform/grouped.js';
import type { Party, SimulatedOutage } from '../../platform/schema.js';
import {
  ProviderError,
  ProviderOutcomeUnknownError,
  FRAUD_MARKED_REFUSAL,
  type ChargeDirective,
  type ChargeRemoval,
  type ChargeRequest,
  type CreatedCharge,
  type KeyDirectory,
  type PixProvider,
  type ProviderRecord,
  type RecurrenceProvider,
  type ReceivedPayment,
  type RefundDirective,
  type RefundOutcome,
  type RefundRequest,
  type SimulatedNetwork,
  type WithdrawalDirective,
  type WithdrawalOutcome,
  type WithdrawalRequest,
  type WithdrawalReturn,
  type WithdrawalSubmission,
} from '../provider.js';
import * as repository from './repository.js';

/** ISPB the simulated network uses in the end-to-end ids it mints and for the bank accounts it makes up. */
const SIMULATED_ISPB = '99999999';

/** A transaction's txid at the PSP: its id's 32 hex digits (BCB: 26 to 35 alphanumeric characters). */
const txidOf = (transactionId: string): string => transactionId.replaceAll('-', '');

/** The payer of a sandbox payment that names none. */
const DEFAULT_SANDBOX_PAYER: Party = {
  name: 'Pagador Sandbox',
  document: '52998224725',
  documentType: 'cpf',
  bankAccount: { ispb: SIMULATED_ISPB, branch: '0001', account: '123456' },
};

/** The bank account the simulator attributes to holders it has no data for (CPF/CNPJ keys). */
const SIMULATED_BANK_ACCOUNT = { ispb: SIMULATED_ISPB, branch: '0001', account: '0000001' };

const ISPB_PATTERN = /^[0-9A-Z]{8}$/;

/** How long a process trusts the outage switch it read: another process's switch reaches it within this. */
const OUTAGE_READ_TTL_MS = 500;

/**
 * The built-in PIX network simulator. Charges get a location on our own public host
 * (`<host>/pix/v2/<32 hex>`, DESIGN.md §5). Withdrawals resolve email/phone/evp keys in the
 * sandbox DICT and settle after `settleMs` (or when the sandbox says so). Failures are the ones
 * armed through the sandbox.
 */
export class SimulatedPixProvider implements PixProvider, SimulatedNetwork {
  readonly name = 'simulated';
  readonly dueCharges = true;
  /** A random key (EVP) of its own, the same on every start: static QR codes printed once keep working. */
  readonly receivingKey: string;
  /**
   * Pix Automático (DESIGN.md §17): the simulated network keeps the recurrences it registered and
   * their cycles' charges by txid (a repeat is refused as in use, as BCB's PUT /cobr/{txid}, then the
   * one held is read back and adopted when it is the same); the payer's
   * answers and the debits are the sandbox's calls.
   */
  /** The sandbox DICT, asked before the debit; cpf/cnpj keys resolve to their own document and are never in it. */
  readonly keyDirectory: KeyDirectory = {
    isFraudMarked: async (request) => {
      if (request.pixKeyType === 'cpf' || request.pixKeyType === 'cnpj') return false;
      return (await repository.findDictKey(this.db, request.accountId, request.pixKeyType, request.pixKey))?.fraudMarked ?? false;
    },
  };

  readonly recurrences: RecurrenceProvider = {
    // The simulated payer answers in the sandbox: no account needed.
    requiresDebtorAccount: false,
    createRecurrence: async (request) => {
      await this.failIfOut();
      // BCB's idRec: R, R (retries allowed) or N, the ISPB, the creation day (Brasília's), 11 characters of our own.
      const day = dayOf(this.clock.now()).replaceAll('-', '');
      const sequence = request.recurrenceId.replaceAll('-', '').slice(-11);
      const providerRecurrenceId = `R${request.retriesAllowed ? 'R' : 'N'}${SIMULATED_ISPB}${day}${sequence}`;
      await repository.insertRecurrence(this.db, {
        providerId: this.id,
        recurrenceId: request.recurrenceId,
        providerRecurrenceId,
        createdAt: this.clock.now(),
      });
      return { providerRecurrenceId };
    },
    cancelRecurrence: async (providerRecurrenceId) => {
      await this.failIfOut();
      await repository.cancelRecurrence(this.db, this.id, providerRecurrenceId, this.clock.now());
    },
    createCycleCharge: async (request) => {
      const outage = await this.refuseIfDown();
      const charge = {
        providerId: this.id,
        txid: txidOf(request.transactionId),
        providerRecurrenceId: request.providerRecurrenceId,
        createdAt: this.clock.now(),
      };
      if (!(await repository.insertCycleCharge(this.db, { ...charge, dueDate: request.dueDate, amountCents: request.amountCents }))) {
        // Its txid in use (BCB refuses the PUT, as a real PSP does): the cobr there, read back, is
        // adopted when it is this one (an earlier attempt whose answer was lost), as the API Pix adapter does.
        const held = await repository.findCycleCharge(this.db, this.id, charge.txid);
        const same =
          held?.providerRecurrenceId === request.providerRecurrenceId &&
          held.dueDate === request.dueDate &&
          held.amountCents === request.amountCents &&
          held.cancelledAt === null;
        if (!same) throw new ProviderError('simulated provider refused the cobr: its txid is in use by another');
      }
      // Registered, but the answer never comes back: the same txid sent again finds it there.
      if (outage === 'timeout') await this.timeOut();
    },
    cancelCycleCharge: async (transactionId) => {
      await this.failIfOut();
      await repository.cancelCycleCharge(this.db, this.id, txidOf(transactionId), this.clock.now());
    },
  };
  /** A send is a database write or two; a process that dies mid-send has lost its connection within seconds. */
  readonly sendTiming = { sendBudgetMs: 5_000, settlingWindowMs: 10_000 };

  private outageRead: { mode: SimulatedOutage | undefined; at: number } | null = null;

  /**
   * Whether the account has an outcome armed for its next charge, asked for the charges of many
   * requests at once: the usual charge then takes no round trip of its own here. One armed after
   * the answer applies to the next charge, as one armed just after the call would.
   */
  /** The usual withdrawal sends of many requests in one statement (repository.receiveUsualWithdrawals). */
  private readonly receiveUsual = grouped((withdrawals: repository.ArrivingWithdrawal[]) => repository.receiveUsualWithdrawals(this.db, withdrawals));

  private readonly chargeArmed = grouped(async (accountIds: string[]) => {
    const armed = await repository.armedAmong(this.db, 'charge', accountIds);
    return accountIds.map((accountId) => armed.has(accountId));
  });

  constructor(
    readonly id: string,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly locationHost: string,
    private readonly settleMs: number | 'manual',
    /** How long a call hangs before giving up while the outage switch says `timeout`. */
    private readonly timeoutMs: number,
    /** What the simulated account held before the first movement it keeps. */
    private readonly openingBalanceCents: number,
  ) {
    const hex = createHash('sha256').update(`simulated receiving key ${id}`).digest('hex');
    this.receivingKey = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  async createCharge(request: ChargeRequest): Promise<CreatedCharge> {
    const outage = await this.refuseIfDown();
    const outcome = (await this.chargeArmed(request.accountId)) ? await repository.takeDirective(this.db, request.accountId, 'charge') : undefined;
    if (outcome === 'provider_error') throw new ProviderError('simulated provider error on charge creation');
    if (outage === 'timeout') {
      // Registered, but the answer never comes back: the orphan the gateway removes later.
      const lost = { providerId: this.id, transactionId: request.transactionId, accountId: request.accountId, createdAt: this.clock.now() };
      await repository.insertLostCharge(this.db, lost);
      await this.timeOut();
    }
    // 32 hex digits from a random UUID: Node draws those from a buffered pool, where 16 fresh random
    // bytes per charge were ~4% of a charge's CPU.
    const location = `${this.locationHost}/pix/v2/${randomUUID().replaceAll('-', '')}`;
    return { location, pixPayload: buildDynamicBrCode({ locationUrl: location, merchantName: request.merchantName, merchantCity: request.merchantCity }) };
  }

  /** The simulator keeps state only for charges whose answer was lost (the orphans): those are removed. */
  async cancelCharge(transactionId: string): Promise<ChargeRemoval> {
    await this.failIfOut();
    await repository.removeCharge(this.db, this.id, transactionId);
    return 'removed';
  }

  async createWithdrawal(request: WithdrawalRequest): Promise<WithdrawalSubmission> {
    const outage = await this.refuseIfDown();
    const submission = await this.receiveWithdrawal(request);
    // A timeout after sending: received (and paid in time), the answer lost.
    if (outage === 'timeout') await this.timeOut();
    return submission;
  }

  private async receiveWithdrawal(request: WithdrawalRequest): Promise<WithdrawalSubmission> {
    const now = this.clock.now();
    const settleAt = this.settleMs === 'manual' ? null : new Date(now.getTime() + this.settleMs);
    let beneficiary: Party = { ...request.expectedHolder, bankAccount: SIMULATED_BANK_ACCOUNT };
    const inDict = request.pixKeyType === 'email' || request.pixKeyType === 'phone' || request.pixKeyType === 'evp';
    const withdrawal = {
      providerId: this.id,
      transactionId: request.transactionId,
      amountCents: request.amountCents,
      accountId: request.accountId,
      createdAt: now,
    };
    // The usual send, with those of other requests: recorded in one statement unless a directive is armed.
    if (!inDict && (await this.receiveUsual({ ...withdrawal, beneficiary, settleAt }))) return { status: 'accepted' };
    // One round trip for a lone send; a directive or a DICT key is decided below.
    const receipt = await repository.receiveWithdrawal(this.db, withdrawal, inDict ? null : { beneficiary, settleAt });
    // A send received already (the same transaction id, as a PSP's idEnvio) is acknowledged again, never made twice.
    if (receipt.existing || receipt.recorded) return { status: 'accepted' };
    const directive = receipt.directive;
    if (directive === 'provider_error') throw new ProviderError('simulated provider error on withdrawal');
    const record = (received: Party, settlesAt: Date | null) =>
      repository.insertSubmittedWithdrawal(this.db, { ...withdrawal, beneficiary: received, settleAt: settlesAt });

    if (directive === 'unknown') {
      // Sent, but the answer is lost: only a sandbox settle call will tell the outcome.
      await record(beneficiary, null);
      throw new ProviderOutcomeUnknownError('simulated unknown outcome');
    }
    if (inDict) {
      const entry = await repository.findDictKey(this.db, request.accountId, request.pixKeyType, request.pixKey);
      if (!entry) return { status: 'rejected', reason: 'key_not_found' };
      if (entry.fraudMarked) return { status: 'rejected', reason: FRAUD_MARKED_REFUSAL };
      if (entry.owner.document !== request.expectedHolder.document) return { status: 'rejected', reason: 'holder_mismatch' };
      beneficiary = entry.owner;
    }
    await record(beneficiary, settleAt);
    return { status: 'accepted', ...(directive === 'interrupted' ? { confirmationInterrupted: true } : {}) };
  }

  async withdrawalOutcome(withdrawal: { transactionId: string }): Promise<WithdrawalOutcome> {
    if (!(await this.answersQueries())) return { status: 'unknown' };
    const row = await repository.findSubmittedWithdrawal(this.db, this.id, withdrawal.transactionId);
    // As a PSP answers: a withdrawal it never received is not found.
    if (!row) return { status: 'not_received' };
    if (row.outcome === 'failed') return { status: 'failed', reason: 'provider_failed' };
    if (row.outcome !== 'paid') return { status: 'unknown' };
    // Rows decided before the network kept end-to-end ids get one now.
    return { status: 'paid', endToEndId: row.endToEndId ?? generateEndToEndId(SIMULATED_ISPB, this.clock.now()), beneficiary: row.beneficiary };
  }

  async requestRefund(request: RefundRequest): Promise<RefundOutcome> {
    const outage = await this.refuseIfDown();
    const outcome = await this.receiveRefund(request);
    if (outage === 'timeout') await this.timeOut();
    return outcome;
  }

  private async receiveRefund(request: RefundRequest): Promise<RefundOutcome> {
    // A refund received already (its id, as a PSP's devolução id) answers what the network knows of it.
    if (await repository.findSentRefund(this.db, this.id, request.refundId)) return this.knownRefundOutcome(request.refundId);
    const directive = await repository.takeDirective(this.db, request.accountId, 'refund');
    if (directive === 'provider_error') throw new ProviderError('simulated provider error on refund');
    const now = this.clock.now();
    if (request.nature === 'med') {
      // The PSP executes a MED return itself before it reports the case closed: settled at once.
      const refundEndToEndId = generateEndToEndId(SIMULATED_ISPB, now, 'D');
      await repository.insertSentRefund(this.db, {
        providerId: this.id,
        refundId: request.refundId,
        accountId: request.accountId,
        amountCents: request.amountCents,
        outcome: 'refunded',
        refundEndToEndId,
        settleAt: null,
        createdAt: now,
      });
      return { status: 'refunded', refundEndToEndId };
    }
    const settleAt = this.settleMs === 'manual' ? null : new Date(now.getTime() + this.settleMs);
    await repository.insertSentRefund(this.db, {
      providerId: this.id,
      refundId: request.refundId,
      accountId: request.accountId,
      amountCents: request.amountCents,
      outcome: null,
      refundEndToEndId: null,
      settleAt,
      createdAt: now,
    });
    return { status: 'unknown' };
  }

  async refundOutcome(request: RefundRequest): Promise<RefundOutcome> {
    if (!(await this.answersQueries())) return { status: 'unknown' };
    return this.knownRefundOutcome(request.refundId);
  }

  private async knownRefundOutcome(refundId: string): Promise<RefundOutcome> {
    const row = await repository.findSentRefund(this.db, this.id, refundId);
    if (!row) return { status: 'not_received' };
    if (row.outcome === 'failed') return { status: 'failed', reason: 'provider_failed' };
    if (row.outcome === 'refunded' && row.refundEndToEndId) return { status: 'refunded', refundEndToEndId: row.refundEndToEndId };
    return { status: 'unknown' };
  }

  // The sandbox's controls (SimulatedNetwork)

  armNextRefund(accountId: string, outcome: RefundDirective): Promise<void> {
    return repository.armDirective(this.db, accountId, 'refund', outcome);
  }

  async decideRefund(refundId: string, outcome: 'refunded' | 'failed'): Promise<RefundOutcome> {
    const refundEndToEndId = outcome === 'refunded' ? generateEndToEndId(SIMULATED_ISPB, this.clock.now(), 'D') : null;
    const decided = await repository.decideSentRefund(this.db, this.id, refundId, { outcome, refundEndToEndId });
    if (!decided) return { status: 'unknown' };
    return refundEndToEndId ? { status: 'refunded', refundEndToEndId } : { status: 'failed', reason: 'provider_failed' };
  }

  dueRefunds(limit: number) {
    return repository.findDueRefunds(this.db, this.id, this.clock.now(), limit);
  }

  heldReturnEndToEndId(): string {
    return generateEndToEndId(SIMULATED_ISPB, this.clock.now(), 'D');
  }

  async recordHeldReturn(refund: { refundId: string; accountId: string; amountCents: number; refundEndToEndId: string }): Promise<void> {
    await repository.insertSentRefund(this.db, { ...refund, providerId: this.id, outcome: 'refunded', settleAt: null, createdAt: this.clock.now() });
  }

  armNextCharge(accountId: string, outcome: ChargeDirective): Promise<void> {
    return repository.armDirective(this.db, accountId, 'charge', outcome);
  }

  armNextWithdrawal(accountId: string, outcome: WithdrawalDirective): Promise<void> {
    return repository.armDirective(this.db, accountId, 'withdrawal', outcome);
  }

  registerDictKey(accountId: string, keyType: 'email' | 'phone' | 'evp', key: string, owner: Party, fraudMarked: boolean): Promise<void> {
    return repository.upsertDictKey(this.db, { accountId, keyType, key, owner, fraudMarked });
  }

  pay(payer: Party | undefined, amountCents: number | undefined): ReceivedPayment {
    const from = payer ?? DEFAULT_SANDBOX_PAYER;
    // The payer's bank mints the end-to-end id under its own ISPB.
    const ispb = ISPB_PATTERN.test(from.bankAccount.ispb) ? from.bankAccount.ispb : SIMULATED_ISPB;
    return { endToEndId: generateEndToEndId(ispb, this.clock.now()), payer: from, ...(amountCents === undefined ? {} : { amountCents }) };
  }

  async decideWithdrawal(transactionId: string, outcome: 'paid' | 'failed'): Promise<WithdrawalOutcome> {
    const endToEndId = outcome === 'paid' ? generateEndToEndId(SIMULATED_ISPB, this.clock.now()) : null;
    const submitted = await repository.decideSubmittedWithdrawal(this.db, this.id, transactionId, { outcome, endToEndId });
    if (outcome === 'failed') return { status: 'failed', reason: 'provider_failed' };
    return submitted && endToEndId ? { status: 'paid', endToEndId, beneficiary: submitted.beneficiary } : { status: 'unknown' };
  }

  returnWithdrawal(amountCents: number | undefined): WithdrawalReturn {
    return { refundEndToEndId: generateEndToEndId(SIMULATED_ISPB, this.clock.now(), 'D'), amountCents };
  }

  dueSettlements(limit: number) {
    return repository.findDueSettlements(this.db, this.id, this.clock.now(), limit);
  }

  async recordPayment(payment: { endToEndId: string; transactionId: string; accountId: string; amountCents: number }): Promise<void> {
    await repository.insertPayment(this.db, { ...payment, providerId: this.id, paidAt: this.clock.now() });
  }

  async listRecords(period: { from: Date; to: Date }): Promise<ProviderRecord[]> {
    await this.failIfOut();
    const { payments, withdrawals, refunds } = await repository.listRecords(this.db, this.id, period.from, period.to);
    const settledOf = (outcome: string | null, settled: string): ProviderRecord['status'] =>
      outcome === settled ? 'settled' : outcome === null ? 'pending' : 'failed';
    return [
      ...payments.map((row): ProviderRecord => ({
        movement: 'payment',
        reference: row.endToEndId,
        amountCents: row.amountCents,
        status: 'settled',
        at: row.paidAt,
      })),
      ...withdrawals.map((row): ProviderRecord => ({
        movement: 'withdrawal',
        reference: row.transactionId,
        amountCents: row.amountCents ?? 0,
        status: settledOf(row.outcome, 'paid'),
        at: row.createdAt,
      })),
      ...refunds.map((row): ProviderRecord => ({
        movement: 'refund',
        reference: row.refundId,
        amountCents: row.amountCents ?? 0,
        status: settledOf(row.outcome, 'refunded'),
        at: row.createdAt,
      })),
    ];
  }

  async balance(): Promise<number | null> {
    await this.failIfOut();
    return this.openingBalanceCents + (await repository.movedCents(this.db, this.id));
  }

  async setOutage(mode: SimulatedOutage | 'up'): Promise<void> {
    await repository.setOutage(this.db, this.id, mode, this.clock.now());
    this.outageRead = { mode: mode === 'up' ? undefined : mode, at: performance.now() };
  }

  /** The outage switch as this process knows it (read again after OUTAGE_READ_TTL_MS). */
  private async outage(): Promise<SimulatedOutage | undefined> {
    const now = performance.now();
    if (this.outageRead && now - this.outageRead.at < OUTAGE_READ_TTL_MS) return this.outageRead.mode;
    const mode = await repository.findOutage(this.db, this.id);
    this.outageRead = { mode, at: now };
    return mode;
  }

  /** `down`: refused as a connection is, nothing received. Answers the outage otherwise. */
  private async refuseIfDown(): Promise<SimulatedOutage | undefined> {
    const outage = await this.outage();
    if (outage === 'down') throw new ProviderError(`simulated provider ${this.id} is down (connection refused)`, { unavailable: true });
    return outage;
  }

  /** A call that does nothing while the provider is out: refused at once (`down`), or never answered (`timeout`). */
  private async failIfOut(): Promise<void> {
    if ((await this.refuseIfDown()) === 'timeout') await this.timeOut();
  }

  /** The caller waits its timeout and never hears back. */
  private async timeOut(): Promise<never> {
    await sleep(this.timeoutMs);
    throw new ProviderOutcomeUnknownError(`simulated provider ${this.id} timed out`);
  }

  /** A query answers `unknown` while the provider is out (after the timeout, with `timeout`). */
  private async answersQueries(): Promise<boolean> {
    const outage = await this.outage();
    if (outage === 'timeout') await sleep(this.timeoutMs);
    return outage === undefined;
  }
}
