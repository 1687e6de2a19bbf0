import type { DueTerms } from '../pix/dueAmount.js';
import type { Holder, Party, RecurrenceDebtor, SimulatedOutage } from '../platform/schema.js';

/**
 * What the gateway needs from a PIX provider (PSP). End-to-end ids, payers, beneficiaries and
 * bank data come from the provider's answers, never from our services. Calls may do network I/O:
 * never call them inside a database transaction. docs/providers.md says how to add one.
 */
export type ChargeRequest = {
  accountId: string;
  transactionId: string;
  amountCents: number;
  expiresAt: Date;
  /** The receiving merchant as the payer's app shows it (BR Code fields 59 and 60). */
  merchantName: string;
  merchantCity: string;
  /** A charge with a due date (cobv, DESIGN.md §17): its terms and its named payer; absent for an immediate charge. */
  due?: { terms: DueTerms; payer: { name: string; document: string; documentType: 'cpf' | 'cnpj' } } | undefined;
};

/** Which kind of registration a removal is for: known for a charge, unknown for an orphan (a provider then tries both). */
export type ChargeKind = { due: boolean } | undefined;

/**
 * A charge withdrawn at the provider, one the provider never had (an orphan whose registration
 * never arrived), or one paid already (nothing left to remove: the PIX is reported as usual).
 */
export type ChargeRemoval = 'removed' | 'absent' | 'paid';

export type CreatedCharge = {
  /** Location of the dynamic charge's payload, without scheme (BR Code field 26.25). */
  location: string;
  /** The copy-and-paste BR Code the payer's app reads. */
  pixPayload: string;
};

/** A Pix Automático recurrence to register (BCB's rec) with its authorization request to the payer (solicrec). */
export type RecurrenceRequest = {
  accountId: string;
  recurrenceId: string;
  contract: string;
  /** The payer, with its account when the merchant gave it (BCB's solicrec destinatario). */
  debtor: RecurrenceDebtor;
  object: string | null;
  frequency: 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'annual';
  /** Fixed value (BCB's valorRec); null for a variable one. */
  amountCents: number | null;
  /** A variable recurrence's ceiling per cycle; null for a fixed one. */
  maxAmountCents: number | null;
  startDate: string;
  endDate: string | null;
  /** BCB's politicaRetentativa PERMITE_3R_7D (true) or NAO_PERMITE. */
  retriesAllowed: boolean;
  /** When the payer's authorization request lapses (BCB's dataExpiracaoSolicitacao). */
  authorizationExpiresAt: Date;
  merchantName: string;
};

/** One cycle's charge of an authorized recurrence (BCB's cobr), debited from the payer on its date. */
export type CycleChargeRequest = {
  accountId: string;
  /** Our transaction id, the cobr's txid: derived from the recurrence and the cycle, the same on every attempt (a repeat is the same cobr). */
  transactionId: string;
  providerRecurrenceId: string;
  /** BCB's dataDeVencimento: the cycle's calendar day. */
  dueDate: string;
  /** BCB's ajusteDiaUtil: the debit moves to the next business day when the due day is not one. */
  businessDayAdjustment: boolean;
  amountCents: number;
  debtor: Holder;
};

/**
 * Pix Automático (DESIGN.md §17) at a provider: recurrences, their authorization requests and the
 * cycles' charges. Calls may do network I/O; ProviderError when refused or unanswered.
 */
export interface RecurrenceProvider {
  /** The authorization request goes to the payer's account (BCB's solicrec destinatario): a recurrence without one is refused before anything is written. */
  readonly requiresDebtorAccount: boolean;
  /** Registers the recurrence and sends the payer its authorization request; answers BCB's idRec. */
  createRecurrence(request: RecurrenceRequest): Promise<{ providerRecurrenceId: string }>;
  /** Cancels the recurrence (and so the cycles' charges not yet debited). */
  cancelRecurrence(providerRecurrenceId: string): Promise<void>;
  /** Registers one cycle's charge (from 2 to 10 days before its date). */
  createCycleCharge(request: CycleChargeRequest): Promise<void>;
  /** Cancels one cycle's charge before its date. */
  cancelCycleCharge(transactionId: string): Promise<void>;
}

export type WithdrawalRequest = {
  accountId: string;
  transactionId: string;
  amountCents: number;
  pixKey: string;
  pixKeyType: 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';
  /** The holder the money may go to: the key's holder must have this document. */
  expectedHolder: Holder;
};

/** A submission's refusal for a key the DICT reports as fraud-marked or restricted (DESIGN.md §19). */
export const FRAUD_MARKED_REFUSAL = 'fraud_marked';

/** The provider's answer to a submission that reached it. */
export type WithdrawalSubmission =
  /** Accepted: the outcome arrives later (settlement, failure). */
  | { status: 'accepted'; confirmationInterrupted?: boolean }
  /** Refused after reaching the network (e.g. the key's holder is not the expected one; FRAUD_MARKED_REFUSAL). */
  | { status: 'rejected'; reason: string };

/**
 * The DICT as a provider lets the gateway ask it before anything is debited (DESIGN.md §19). A
 * provider without one reports a marked key only when the withdrawal is sent (FRAUD_MARKED_REFUSAL).
 */
export interface KeyDirectory {
  /** True when the DICT reports the key as fraud-marked; ProviderError when it cannot tell now. */
  isFraudMarked(request: { accountId: string; pixKey: string; pixKeyType: WithdrawalRequest['pixKeyType'] }): Promise<boolean>;
}

/** A withdrawal the network paid: who received it, under which end-to-end id. */
export type WithdrawalPaid = { status: 'paid'; endToEndId: string; beneficiary: Party };

/**
 * A withdrawal's outcome as the provider knows it; `not_received`: it has no such withdrawal (which
 * proves nothing was sent only after the provider's settling window, docs/providers.md).
 */
export type WithdrawalOutcome = WithdrawalPaid | { status: 'failed'; reason: string } | { status: 'unknown' } | { status: 'not_received' };

/**
 * How long a provider's sends take, for the services' reading of unknown outcomes
 * (docs/providers.md "Unknown outcomes").
 */
export type SendTiming = {
  /** The longest one send can take, all its attempts and retries included: the lease an attempt holds. */
  sendBudgetMs: number;
  /**
   * How long after the start of the latest attempt that may have reached the provider its "not
   * found" proves that nothing was received: a request in flight, or queued at the provider, is
   * not found yet.
   */
  settlingWindowMs: number;
};

/** A PIX received for one of our charges, as the provider reports it. */
export type ReceivedPayment = {
  endToEndId: string;
  /** Null when the provider does not say who paid (API Pix has no payer field; PSPs add it in extensions). */
  payer: Party | null;
  /** What the payer sent; absent when the sandbox's payer pays exactly the charge's amount. */
  amountCents?: number;
};

/** A PIX the provider reports on its own (notification, poller) for the charge `transactionId`. */
export type IncomingPayment = ReceivedPayment & {
  transactionId: string;
  amountCents: number;
  /** When the payer paid (API Pix's `horario`): a charge with a due date owes that day's amount, however late the report. */
  paidAt?: Date | undefined;
};

/** A PIX paid to a static QR code: the txid its BR Code carries, what was paid, when. */
export type StaticPayment = ReceivedPayment & { txid: string; amountCents: number; paidAt?: Date | undefined };

/**
 * What became of an incoming PIX: credited to its charge, returned to the payer (charge not
 * payable), known already, for no charge of ours, or for a charge bound to another provider (an
 * orphan registration paid after all: returned to the payer through the provider that received
 * it, never credited, the operator told; DESIGN.md §14).
 */
export type PaymentReceipt = 'credited' | 'returned' | 'duplicate' | 'unknown_charge' | 'other_provider';

/** `unknown_payment`: the PIX paid no charge of ours. */
export type ChargebackReceipt = 'applied' | 'duplicate' | 'unknown_payment';

/** Money of a received PIX that the PSP returned through MED without our request (a chargeback, DESIGN.md §9). */
export type ReportedChargeback = {
  paymentEndToEndId: string;
  amountCents: number;
  refundEndToEndId: string;
  reason: 'fraud' | 'operational_flaw';
};

/**
 * What a provider reports on its own initiative — notifications and polling — applied by the
 * services exactly once whatever the provider repeats (src/inbound/).
 */
export interface ProviderReports {
  paymentReceived(payment: IncomingPayment): Promise<PaymentReceipt>;
  /** A PIX to the provider's receiving key whose txid is no charge's: a static QR code's, if one has it. */
  staticPaymentReceived(payment: StaticPayment): Promise<PaymentReceipt>;
  /** The provider removed a pending charge (API Pix `REMOVIDA_PELO_PSP`). */
  chargeRemoved(transactionId: string): Promise<void>;
  refundSettled(refundId: string, outcome: RefundOutcome): Promise<void>;
  chargebackReported(chargeback: ReportedChargeback): Promise<ChargebackReceipt>;
  /** A recurrence's status changed at the provider (Pix Automático): applied once, a repeat or a state that takes it no more changes nothing. */
  recurrenceReported(providerRecurrenceId: string, report: RecurrenceReport): Promise<RecurrenceReceipt>;
  /** A cycle's charge (by our transaction id, the cobr's txid) changed at the provider. */
  cycleChargeReported(transactionId: string, report: CycleChargeReport): Promise<CycleChargeReceipt>;
  /** What the sweep of the provider's recurrences and cycle charges has to look at: since when its open ones were created. */
  openAtProvider(): Promise<OpenAtProvider>;
}

/**
 * When the oldest of the gateway's open recurrences at a provider (awaiting the payer, or
 * authorized) and of its pending cycle charges was created; null when none is open.
 */
export type OpenAtProvider = { recurrences: Date | null; cycleCharges: Date | null };

/**
 * `applied`; `ignored` (a repeat, or a status that takes it no more); `cancelled_there`: authorized
 * at the provider after it expired or was cancelled here, so to be cancelled at the provider (an
 * orphan rec: at once, or by the worker when that fails).
 */
export type RecurrenceReceipt = 'applied' | 'ignored' | 'cancelled_there';

/** What became of a recurrence at the provider (BCB's rec status), as it reports it. */
export type RecurrenceReport =
  | { status: 'authorized' }
  | { status: 'refused' }
  | { status: 'expired' }
  /** Cancelled at the provider: by the payer (or the payer's PSP), or by the receiving side (our own cancellation, or its PSP's). */
  | { status: 'cancelled'; by: 'payer' | 'merchant' };

/**
 * What became of a cycle's charge (BCB's cobr): paid (the debit's end-to-end id), an attempt failed
 * (`failedAttempts`: how many attempts failed so far, so that a repeat applies nothing), failed for
 * good (rejected), or cancelled.
 */
export type CycleChargeReport =
  | { status: 'paid'; payment: ReceivedPayment & { amountCents: number } }
  | { status: 'attempt_failed'; failedAttempts: number }
  | { status: 'failed' }
  | { status: 'cancelled' };

/**
 * `retry_on`: the attempt failed and the next one is on `day` (the provider is asked for it);
 * `retry_owed`: a repeat of a failure counted before, whose retry on `day` is still ahead (the
 * provider asks for it again unless it holds an attempt in flight: the first ask may have failed);
 * `ignored`: nothing to apply (a repeat, or a state that takes no such report).
 */
export type CycleChargeReceipt =
  | { outcome: 'applied' }
  | { outcome: 'retry_on'; day: string }
  | { outcome: 'retry_owed'; day: string }
  | { outcome: 'ignored' }
  | { outcome: 'unknown_charge' };

/** A provider's own listeners and pollers, started by the process that runs the workers. */
export interface ProviderInbound {
  readonly providerId: string;
  /** How often the worker runs `poll`. */
  readonly pollIntervalMs: number;
  /** Reads what notifications may have missed; returns how many reports it applied. */
  poll(): Promise<number>;
  /** Starts the provider's notification listener, if it has one; returns its URL. */
  listen(): Promise<string | null>;
  close(): Promise<void>;
}

/** Money of a paid withdrawal that the receiving bank sent back. */
export type WithdrawalReturn = { refundEndToEndId: string; amountCents: number | undefined };

/** Money sent back to the payer of a received PIX (API Pix: devolução). */
export type RefundRequest = {
  accountId: string;
  refundId: string;
  /** The charge the PIX paid. */
  transactionId: string;
  /** The end-to-end id of the PIX being returned. */
  paymentEndToEndId: string;
  amountCents: number;
  /** `med`: a MED case closed against the merchant; otherwise a return of nature ORIGINAL. */
  nature: 'original' | 'med';
};

/** A refund's outcome as the provider knows it; `not_received`: it has no such refund (safe to send again, same id). */
export type RefundOutcome =
  { status: 'refunded'; refundEndToEndId: string } | { status: 'failed'; reason: string } | { status: 'unknown' } | { status: 'not_received' };

/**
 * One movement as the provider's own records show it (reconciliation, DESIGN.md §14): a PIX it
 * received (keyed by its end-to-end id), a withdrawal it sent or a devolução (keyed by our id).
 */
export type ProviderRecord = {
  movement: 'payment' | 'withdrawal' | 'refund';
  /** A payment's end-to-end id; our withdrawal's or refund's id (a MED return the PSP made on its own: its end-to-end id). */
  reference: string;
  /** A devolução's end-to-end id, when known. */
  endToEndId?: string;
  amountCents: number;
  status: 'settled' | 'failed' | 'pending';
  at: Date;
};

export interface PixProvider {
  /** The configured provider's id, which every transaction it issued or sent records (DESIGN.md §14). */
  readonly id: string;
  /** Its kind: `simulated` or `apipix`. */
  readonly name: string;
  readonly sendTiming: SendTiming;
  /** Whether it registers charges with a due date (cobv, DESIGN.md §17); routing sends those only to one that does. */
  readonly dueCharges: boolean;
  /** The PIX key a static QR code pays (DESIGN.md §17); none: it takes no static codes. */
  readonly receivingKey?: string | undefined;
  /** Pix Automático (DESIGN.md §17); none: it takes no recurrences (docs/recurrences.md). */
  readonly recurrences?: RecurrenceProvider | undefined;
  /** Its DICT, asked about a withdrawal's key before the debit; none: a marked key is refused at the send. */
  readonly keyDirectory?: KeyDirectory | undefined;
  /** Registers a dynamic charge; throws ProviderError when the provider refuses or cannot answer. */
  createCharge(request: ChargeRequest): Promise<CreatedCharge>;
  /** Withdraws a pending charge so that it cannot be paid any more; ProviderError when refused or unanswered. */
  cancelCharge(transactionId: string, kind?: ChargeKind): Promise<ChargeRemoval>;
  /**
   * Sends a withdrawal. Throws ProviderError when nothing was sent (safe to undo), and
   * ProviderOutcomeUnknownError when it cannot tell whether it was sent.
   */
  createWithdrawal(request: WithdrawalRequest): Promise<WithdrawalSubmission>;
  /**
   * Asks for the outcome of a withdrawal (reconciliation, notifications); the PSP checked its holder
   * against `expectedHolder`. `not_received` when the provider has no such withdrawal.
   */
  withdrawalOutcome(withdrawal: { transactionId: string; expectedHolder: Holder }): Promise<WithdrawalOutcome>;
  /**
   * Sends a refund. Answers its outcome when the provider settled it at once, `unknown` when the
   * outcome arrives later. Throws ProviderError when the provider refused it before anything
   * moved, and ProviderOutcomeUnknownError when it cannot tell whether it was sent.
   */
  requestRefund(request: RefundRequest): Promise<RefundOutcome>;
  /** Asks for the outcome of a refund sent as `request` (reconciliation). */
  refundOutcome(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * The provider's records of the period: the PIX it received, the withdrawals it sent and the
   * devoluções it made; throws ProviderError when it cannot list them now.
   */
  listRecords(period: { from: Date; to: Date }): Promise<ProviderRecord[]>;
  /** The balance the provider reports for the gateway's account, in cents; null when it has no such figure. ProviderError when it cannot tell now. */
  balance(): Promise<number | null>;
}

export type ChargeDirective = 'provider_error';
export type WithdrawalDirective = 'provider_error' | 'unknown' | 'interrupted';
export type RefundDirective = 'provider_error';

/**
 * The simulated PIX network's remote control, behind the sandbox routes. Only the simulator
 * offers it: with a real provider there is no sandbox.
 */
export interface SimulatedNetwork {
  /** The simulated provider's id: each one keeps its own side of the network. */
  readonly id: string;
  /** The outage switch (DESIGN.md §14): `down` refuses every call, `timeout` lets calls hang and lose their answers, `up` ends it. */
  setOutage(mode: SimulatedOutage | 'up'): Promise<void>;
  /** The account's next charge creation fails this way (one-shot). */
  armNextCharge(accountId: string, outcome: ChargeDirective): Promise<void>;
  /** The account's next withdrawal submission fails this way (one-shot). */
  armNextWithdrawal(accountId: string, outcome: WithdrawalDirective): Promise<void>;
  /** Registers (or replaces) who holds an email/phone/evp key in the simulated DICT, and whether the DICT reports it as fraud-marked. */
  registerDictKey(accountId: string, keyType: 'email' | 'phone' | 'evp', key: string, owner: Party, fraudMarked: boolean): Promise<void>;
  /** A payer (the default one when none is given) pays a charge: the network's notification. */
  pay(payer: Party | undefined, amountCents: number | undefined): ReceivedPayment;
  /** Keeps a payment the gateway applied in the provider's records (what its GET /pix would list). */
  recordPayment(payment: { endToEndId: string; transactionId: string; accountId: string; amountCents: number }): Promise<void>;
  /**
   * The network decides a submitted withdrawal's outcome and reports it: paid (with the
   * end-to-end id and beneficiary), failed, or unknown when it never received the withdrawal
   * (nothing to pay).
   */
  decideWithdrawal(transactionId: string, outcome: 'paid' | 'failed'): Promise<WithdrawalOutcome>;
  /** The receiving bank returns `amountCents` of a paid withdrawal (all of it when absent). */
  returnWithdrawal(amountCents: number | undefined): WithdrawalReturn;
  /** Withdrawals whose automatic settlement time has come (SANDBOX_SETTLE_MS). */
  dueSettlements(limit: number): Promise<{ transactionId: string; accountId: string }[]>;
  /** The account's next refund is refused by the provider (one-shot). */
  armNextRefund(accountId: string, outcome: RefundDirective): Promise<void>;
  /** The network decides a sent refund's outcome and reports it; `unknown` when it was never sent or is decided already. */
  decideRefund(refundId: string, outcome: 'refunded' | 'failed'): Promise<RefundOutcome>;
  /** Refunds whose automatic settlement time has come (SANDBOX_SETTLE_MS). */
  dueRefunds(limit: number): Promise<{ refundId: string; accountId: string }[]>;
  /** The end-to-end id of the PIX by which the provider returns a received PIX it held (cautionary block). */
  heldReturnEndToEndId(): string;
  /** Keeps a held PIX's return (settled when made) in the provider's records, as its refunds are. */
  recordHeldReturn(refund: { refundId: string; accountId: string; amountCents: number; refundEndToEndId: string }): Promise<void>;
}

/** Where a provider writes what an operator should know (the process's pino logger). */
export type ProviderLogger = {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
};

/**
 * The provider did not do it, surely: it refused, or the request never reached it. `unavailable`:
 * it could not be reached (connection refused, 503, breaker open), which counts against its
 * health; a refusal does not (the provider answered).
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly unavailable: boolean;

  constructor(message: string, options: { unavailable?: boolean } = {}) {
    super(message);
    this.unavailable = options.unavailable ?? false;
  }
}

export class ProviderOutcomeUnknownError extends Error {
  override readonly name = 'ProviderOutcomeUnknownError';
}

/**
 * A recurrence's registration that failed after its rec was made at the provider, whose
 * cancellation there failed too: the rec (`providerRecurrenceId`) may be live, to be cancelled later.
 */
export class RecurrenceLeftLiveError extends ProviderOutcomeUnknownError {
  constructor(
    message: string,
    readonly providerRecurrenceId: string,
  ) {
    super(message);
  }
}
