import type { FeePlan } from '../config.js';
import type { AmountDue, DueTerms } from '../pix/dueAmount.js';
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { PixKeyType } from '../pix/pixKeys.js';
import type { Frequency } from '../pix/recurrenceCalendar.js';

export interface AccountsTable {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  city: string;
  responsibleName: string;
  responsibleCpf: string;
  companyLegalName: string | null;
  companyCnpj: string | null;
  kycStatus: 'approved' | 'pending' | 'rejected';
  blocked: boolean;
  withdrawalMode: 'automatic' | 'manual';
  ipAllowlist: string[];
  allowedPixKeyTypes: string[];
  recipientLimit: number;
  pixPerHour: number;
  withdrawPerSecond: number;
  withdrawPerMinute: number;
  withdrawPerHour: number;
  recipientsPerHour: number;
  chargeMinCents: number;
  chargeMaxCents: number;
  withdrawMinCents: number;
  withdrawMaxCents: number;
  withdrawDailyCents: number;
  withdrawMonthlyCents: number;
  createdAt: Generated<Date>;
  updatedAt: Generated<Date>;
}

export interface FeePlansTable {
  accountId: string;
  transactionType: 'pix_in' | 'withdrawal';
  fixedCents: number;
  bps: number;
  minCents: number;
  maxCents: number;
}

export interface ApiKeysTable {
  id: string;
  accountId: string;
  prefix: string;
  keyHash: Buffer;
  ipAllowlist: string[] | null;
  createdAt: Generated<Date>;
  revokedAt: Date | null;
  lastUsedAt: Generated<Date | null>;
}

/** Who holds an account: a person (CPF) or a company (CNPJ). */
export type Holder = {
  name: string;
  document: string;
  documentType: 'cpf' | 'cnpj';
};

/** A recurrence's payer (BCB's devedor) and, when the merchant gave it, its account (where a PSP sends the authorization request). */
export type RecurrenceDebtor = Holder & { account?: { ispb: string; branch: string | null; number: string } };

/** A holder at a bank, as the PIX network reports payers and beneficiaries. */
export type Party = Holder & { bankAccount: { ispb: string; branch: string; account: string } };

export type ChargeCustomer = {
  name: string;
  /** Always on an immediate charge; optional on one with a due date. */
  email?: string | undefined;
  phone?: string | undefined;
  document: { number: string; type: 'cpf' | 'cnpj' };
};

/** The statuses of each transaction type (spec; the CHECK of migration 005 holds the same lists). */
export const CHARGE_STATUSES = ['pending', 'paid', 'expired', 'cancelled', 'failed', 'refunded', 'partially_refunded'] as const;
export const WITHDRAWAL_STATUSES = [
  'pending_approval',
  'processing',
  'failed_unknown',
  'paid',
  'failed',
  'cancelled',
  'refunded',
  'partially_refunded',
] as const;

export type ChargeStatus = (typeof CHARGE_STATUSES)[number];
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];
export type TransactionStatus = ChargeStatus | WithdrawalStatus;
export type TransactionType = 'pix_in' | 'withdrawal';

export interface TransactionsTable {
  id: string;
  accountId: string;
  type: TransactionType;
  /** Written only through a transition of transactions/states.ts. */
  status: TransactionStatus;
  amountCents: number;
  feeCents: number;
  netCents: number;
  externalRef: string | null;
  description: string | null;
  customer: ColumnType<ChargeCustomer | null, string | null, string | null>;
  pixPayload: string | null;
  location: string | null;
  expiresAt: Date | null;
  paidAt: Date | null;
  endToEndId: string | null;
  payer: ColumnType<Party | null, string | null, string | null>;
  /** Withdrawals: the provider's beneficiary, once paid. */
  beneficiary: ColumnType<Party | null, string | null, string | null>;
  /** Withdrawals: who the money may go to (the key's holder must be this one). */
  expectedHolder: ColumnType<Holder | null, string | null, string | null>;
  refundEndToEndId: string | null;
  /** Charges: the sum of settled refunds (merchant refunds and MED chargebacks). */
  refundedCents: Generated<number>;
  pixKey: string | null;
  pixKeyType: PixKeyType | null;
  recipientId: string | null;
  /** The provider that issued the charge or sent the withdrawal; every later call goes there (DESIGN.md §14). */
  providerId: string;
  /** Charges with a due date (cobv): their terms, and what the payment was made of once paid. */
  due: ColumnType<DueRecord | null, string | null, string | null>;
  /** A PIX paid to one of the merchant's static QR codes: that code. */
  staticQrId: string | null;
  /** A cycle's charge of a Pix Automático recurrence (BCB's cobr): the recurrence and the cycle's number. */
  recurrenceId: string | null;
  recurrenceCycle: number | null;
  /** A received PIX the PSP held (cautionary block, migration 037): held, released or returned; null when never held. */
  holdStatus: Generated<HoldStatus | null>;
  /** Until when the PSP may hold it (with holdStatus). */
  heldUntil: Generated<Date | null>;
  createdAt: Date;
  updatedAt: Date;
}

export type HoldStatus = 'held' | 'released' | 'returned';

/**
 * A due-date charge's terms, the fee plan it was created under (its fee is taken on the amount
 * paid), and the parts of its payment (BCB's `componentesValor`) once paid.
 */
export type DueRecord = { terms: DueTerms; fee: FeePlan; paid?: Omit<AmountDue, 'payable'> };

export interface IdempotencyKeysTable {
  accountId: string;
  scope: string;
  externalRef: string;
  transactionId: string;
  expiresAt: Date;
}

export interface RateCountersTable {
  accountId: string;
  bucket: string;
  windowStart: Date;
  count: number;
  /** How many uses its latest count let through (migration 029). */
  granted: Generated<number>;
  expiresAt: Date;
}

export type LedgerBook = 'merchant' | 'fees' | 'settlement' | 'adjustments';

export interface LedgerEntriesTable {
  id: Generated<number>;
  accountId: string;
  movementId: string;
  book: LedgerBook;
  kind: string;
  transactionId: string | null;
  amountCents: number;
  memo: string | null;
  createdAt: Generated<Date>;
}

/** Per account and America/Sao_Paulo day, what the merchant entries credited and debited (migration 040), kept by the ledger's statements. */
export interface LedgerDaysTable {
  accountId: string;
  day: string;
  creditedCents: number;
  debitedCents: number;
}

export interface BalancesTable {
  accountId: string;
  availableCents: number;
  /** The sum of the account's active blocks, moved with them (ledger/repository.ts). */
  blockedCents: Generated<number>;
  /** What the running MED cases' blocks still lack (migration 036): later credits top them up. */
  shortfallCents: Generated<number>;
  updatedAt: Generated<Date>;
  /** The withdrawals that count towards the caps, summed for one UTC day and one UTC month (migration 019; ledger/repository.ts). */
  withdrawnDay: Generated<string>;
  withdrawnDayCents: Generated<number>;
  withdrawnMonth: Generated<string>;
  withdrawnMonthCents: Generated<number>;
  /** A withdrawal's rate windows: the latest fixed window, its count and the count of the one before (migration 024; ledger/repository.ts). */
  withdrawSecondStart: Generated<Date>;
  withdrawSecondCount: Generated<number>;
  withdrawMinuteStart: Generated<Date>;
  withdrawMinuteCount: Generated<number>;
  withdrawHourStart: Generated<Date>;
  withdrawHourCount: Generated<number>;
  withdrawSecondPrevCount: Generated<number>;
  withdrawMinutePrevCount: Generated<number>;
  withdrawHourPrevCount: Generated<number>;
}

export interface BlocksTable {
  id: string;
  accountId: string;
  amountCents: number;
  reason: string;
  status: 'active' | 'released';
  createdAt: Generated<Date>;
  releasedAt: Date | null;
  /** The MED case holding this block, released when the case closes. */
  infractionId: Generated<string | null>;
  /**
   * Why it holds money (migration 034): `fraud_mark` holds a PIX received from a fraud-marked
   * payer; `cautionary` (migration 037) a PIX the PSP holds (Res. BCB 506), its charge in `transactionId`.
   */
  kind: Generated<BlockKind>;
  transactionId: Generated<string | null>;
}

export type BlockKind = 'precautionary' | 'fraud_mark' | 'cautionary';

export type InfractionStatus = 'open' | 'in_defense' | 'under_analysis' | 'accepted' | 'rejected';
export type InfractionReason = 'fraud' | 'operational_flaw';
/** How the victim was led to pay (MED 2.0's funds recovery). */
export type InfractionSituation = 'scam' | 'account_takeover' | 'coercion' | 'fraudulent_access' | 'other' | 'unknown';

export interface InfractionsTable {
  id: string;
  accountId: string;
  transactionId: string;
  /** Written only through a transition of infractions/states.ts. */
  status: InfractionStatus;
  reason: InfractionReason;
  amountCents: number;
  openedAt: Date;
  defenseDeadline: Date;
  defense: string | null;
  closedAt: Date | null;
  updatedAt: Date;
  /** The funds recovery this case belongs to (MED 2.0), when the PSP names it. */
  recoveryId: string | null;
  /** The account's place on the money's trail: 1 when the victim paid the merchant directly. */
  hop: Generated<number>;
  situation: Generated<InfractionSituation>;
  /** What the PSP returned to the victim when the case closed against the merchant. */
  recoveredCents: Generated<number | null>;
  /** The PSP's MED return that opened this case and settled it at once (a case we were never told of). */
  returnEndToEndId: Generated<string | null>;
  /** The latest defense deadline reminder written, in hours before the deadline (migration 039; infractions/reminders.ts); null: none yet. */
  remindedStage: ColumnType<ReminderStage | null, ReminderStage | null | undefined, ReminderStage | null>;
}

/** The reminders of a MED case's defense deadline: this many hours before it (DESIGN.md §19). */
export type ReminderStage = 48 | 24 | 6;

/** An evidence file of a MED case's defense (migration 038): its metadata, written once. */
export interface InfractionEvidenceTable {
  id: string;
  accountId: string;
  infractionId: string;
  fileName: string;
  contentType: EvidenceContentType;
  sizeBytes: number;
  createdAt: Date;
}

export type EvidenceContentType = 'application/pdf' | 'image/png' | 'image/jpeg';

/** An evidence file's bytes, in order of `position` (migration 038). */
export interface InfractionEvidenceChunksTable {
  evidenceId: string;
  accountId: string;
  position: number;
  bytes: Buffer;
}

export type RefundKind = 'merchant' | 'med' | 'returned_payment' | 'cautionary_return';
export type RefundStatus = 'processing' | 'refunded' | 'failed';

export interface RefundsTable {
  id: string;
  accountId: string;
  transactionId: string;
  kind: RefundKind;
  status: RefundStatus;
  amountCents: number;
  reason: string | null;
  externalRef: string | null;
  paymentEndToEndId: string;
  refundEndToEndId: string | null;
  infractionId: string | null;
  /** The provider that received the PIX it returns (its charge's): the refund is sent and asked about there. */
  providerId: string;
  createdAt: Date;
  settledAt: Date | null;
  updatedAt: Date;
}

export interface EventsTable {
  id: string;
  accountId: string;
  transactionId: string | null;
  name: string;
  /** The exact JSON body sent to webhook endpoints. */
  payload: ColumnType<string, string, never>;
  createdAt: Generated<Date>;
}

export interface WebhookEndpointsTable {
  id: string;
  accountId: string;
  url: string;
  filters: string[];
  eventNames: string[];
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  deletedAt: Date | null;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  accountId: string;
  endpointId: string;
  eventId: string;
  transactionId: string | null;
  resendOf: string | null;
  status: WebhookDeliveryStatus;
  attemptCount: Generated<number>;
  nextAttemptAt: Date;
  leaseId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookAttemptsTable {
  id: string;
  accountId: string;
  deliveryId: string;
  attemptNumber: number;
  url: string;
  attemptedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
}

export interface SandboxDirectivesTable {
  id: Generated<number>;
  accountId: string;
  operation: string;
  outcome: string;
  createdAt: Generated<Date>;
}

export type RecipientStatus = 'pending_review' | 'active' | 'rejected' | 'removed' | 'deactivated';

export interface RecipientsTable {
  accountId: string;
  /** HMAC-derived from the document (DESIGN.md §5): the same document has the same id in every account. */
  id: string;
  status: RecipientStatus;
  legalName: string;
  document: string;
  documentType: 'cpf' | 'cnpj';
  pixKey: string;
  pixKeyType: 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';
  /** As submitted by the merchant. */
  label: string | null;
  /** The alias the operator gave at approval: the one the merchant's list shows. */
  approvedLabel: string | null;
  approvedAt: Date | null;
  /** The operator's reason for the last rejection or deactivation. */
  statusReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AlertsTable {
  id: string;
  /** Null for an alert of the platform itself (a reconciliation difference). */
  accountId: string | null;
  kind: string;
  transactionId: string | null;
  details: ColumnType<Record<string, unknown>, string, never>;
  severity: ColumnType<AlertSeverity, AlertSeverity | undefined, never>;
  createdAt: Date;
}

export type AlertSeverity = 'normal' | 'high';

export type ProviderSendKind = 'withdrawal' | 'refund';
export type ProviderSendState = 'unsent' | 'sent' | 'watching' | 'owed' | 'closed';
/** One line of a send's history: an attempt, a question to the PSP, or what the gateway decided. */
export type ProviderSendNote = { at: string; step: 'send' | 'check' | 'decision'; answer: string; detail?: string };

/** A send to a PSP that moves money (migration 012; docs/providers.md "Unknown outcomes"). */
export interface ProviderSendsTable {
  id: string;
  kind: ProviderSendKind;
  accountId: string;
  state: ProviderSendState;
  acknowledged: Generated<boolean>;
  attempts: number;
  attemptStartedAt: Date | null;
  reachedMaybeAt: Date | null;
  leaseUntil: Date | null;
  nextCheckAt: Date | null;
  checks: Generated<number>;
  deadlineAt: Date;
  escalatedAt: Date | null;
  blockId: string | null;
  history: ColumnType<ProviderSendNote[], string | undefined, string>;
  createdAt: Date;
  updatedAt: Date;
}

export interface SandboxDictKeysTable {
  accountId: string;
  keyType: string;
  key: string;
  owner: ColumnType<Party, string, string>;
  /** The simulated DICT reports the key as fraud-marked (migration 034). */
  fraudMarked: Generated<boolean>;
}

export type FraudMarkKind = 'key' | 'document';

/** A key or document operators marked for fraud (migration 034); a removed mark stays with who removed it. */
export interface FraudMarksTable {
  id: string;
  kind: FraudMarkKind;
  /** A key's type; null for a document. */
  keyType: PixKeyType | null;
  /** Normalised: a key as its type is written, a document without punctuation and upper-cased. */
  value: string;
  reason: string;
  createdBy: string;
  createdAt: Date;
  removedBy: string | null;
  removedAt: Date | null;
}

/** One row whose version grows with every change of fraud_marks. */
export interface FraudMarksVersionTable {
  singleton: boolean;
  version: number;
}

export type FraudMarkRow = Selectable<FraudMarksTable>;

export interface SandboxWithdrawalsTable {
  /** The simulated provider that received it. */
  providerId: string;
  transactionId: string;
  /** Null for withdrawals received before migration 015 whose transaction was gone. */
  amountCents: number | null;
  accountId: string;
  beneficiary: ColumnType<Party, string, string>;
  outcome: 'paid' | 'failed' | null;
  /** The network's end-to-end id, once paid. */
  endToEndId: string | null;
  settleAt: Date | null;
  createdAt: Date;
}

/** Each recurrence (rec) a simulated provider registered, one row per registration, and when it was cancelled there. */
export interface SandboxRecurrencesTable {
  id: Generated<string>;
  providerId: string;
  recurrenceId: string;
  providerRecurrenceId: string;
  createdAt: Date;
  cancelledAt: Date | null;
}

/** The cycles' charges (cobr) a simulated provider registered, by txid: a repeat of one is the same cobr, another of its cycle is refused (BCB: one per cycle). */
export interface SandboxCycleChargesTable {
  providerId: string;
  txid: string;
  providerRecurrenceId: string;
  dueDate: string;
  amountCents: number;
  createdAt: Date;
  cancelledAt: Date | null;
}

export interface SandboxRefundsTable {
  providerId: string;
  refundId: string;
  amountCents: number | null;
  accountId: string;
  outcome: 'refunded' | 'failed' | null;
  refundEndToEndId: string | null;
  settleAt: Date | null;
  createdAt: Date;
}

/** A charge a simulated provider registered although its answer was lost (outage `timeout`). */
export interface SandboxChargesTable {
  providerId: string;
  transactionId: string;
  accountId: string;
  status: 'active' | 'removed';
  createdAt: Date;
}

export type SimulatedOutage = 'down' | 'timeout';

export interface SandboxProviderOutagesTable {
  providerId: string;
  mode: SimulatedOutage;
  since: Date;
}

/** A provider's share of the traffic in a routing list. */
export type RoutingTarget = { providerId: string; weight: number };

/** The routing rules (DESIGN.md §14): default lists, and an account's own lists where it has them. */
export type RoutingRules = {
  charges: RoutingTarget[];
  withdrawals: RoutingTarget[];
  accounts: Record<string, { charges?: RoutingTarget[] | undefined; withdrawals?: RoutingTarget[] | undefined }>;
};

export interface RoutingRulesTable {
  id: number;
  rules: ColumnType<RoutingRules, string, string>;
  updatedAt: Date;
}

/** A merchant's reusable BR Code (DESIGN.md §17): each PIX paid to it is a new pix_in transaction naming it. */
export interface StaticQrCodesTable {
  id: string;
  accountId: string;
  /** Unique across the gateway, whatever its case (bank statements upper-case txids): every merchant's static codes share the provider's receiving key. */
  txid: string;
  amountCents: ColumnType<number | null, number | null, never>;
  description: string | null;
  pixPayload: string;
  providerId: string;
  externalRef: string | null;
  active: Generated<boolean>;
  createdAt: Date;
  deactivatedAt: Date | null;
}
export type StaticQrCodeRow = Selectable<StaticQrCodesTable>;

/** The statuses of a Pix Automático recurrence (the CHECK of migration 026 holds the same list; moves in recurrences/states.ts). */
export const RECURRENCE_STATUSES = ['created', 'awaiting_authorization', 'authorized', 'refused', 'cancelled', 'expired'] as const;
export type RecurrenceStatus = (typeof RECURRENCE_STATUSES)[number];
/** BCB's periodicidade: SEMANAL, MENSAL, TRIMESTRAL, SEMESTRAL, ANUAL. */
export const RECURRENCE_FREQUENCIES = ['weekly', 'monthly', 'quarterly', 'semiannual', 'annual'] as const satisfies readonly Frequency[];
export type RecurrenceFrequency = Frequency;
/** BCB's politicaRetentativa: NAO_PERMITE, PERMITE_3R_7D. */
export type RetryPolicy = 'none' | 'three_in_seven_days';

/** A Pix Automático recurrence (DESIGN.md §17, BCB's rec): the contract the payer authorizes, then one charge per cycle. */
export interface RecurrencesTable {
  id: string;
  accountId: string;
  providerId: string;
  /** BCB's idRec, once the provider registered the recurrence. */
  providerRecurrenceId: string | null;
  externalRef: string | null;
  contract: string;
  debtor: ColumnType<RecurrenceDebtor, string, never>;
  object: string | null;
  frequency: RecurrenceFrequency;
  /** The amount of each cycle not charged yet; a variable recurrence's may change (PATCH /v1/recurrences/{id}), a fixed one's never. Null: never today (creation requires it). */
  amountCents: ColumnType<number | null, number | null, number>;
  /** A variable recurrence's ceiling per cycle; null for a fixed one. */
  maxAmountCents: ColumnType<number | null, number | null, never>;
  startDate: string;
  endDate: string | null;
  retryPolicy: RetryPolicy;
  /** BCB's ajusteDiaUtil: a cycle falling on a day that is not a business day is due on the next one. */
  businessDayAdjustment: ColumnType<boolean, boolean | undefined, never>;
  /** Written only through a transition of recurrences/states.ts. */
  status: RecurrenceStatus;
  authorizationExpiresAt: Date;
  cancelledBy: 'merchant' | 'payer' | null;
  nextCycle: Generated<number>;
  nextCycleDate: string | null;
  /** The next cycle's charge failed at the provider this many times in a row; the worker tries it again from cycleRetryAt. */
  cycleFailures: Generated<number>;
  /** The amount the next cycle's charge was sent with when the provider did not confirm it: its retries send the same (a change of amount waits for the cycle after). */
  cycleAmountCents: ColumnType<number | null, number | null | undefined, number | null>;
  cycleRetryAt: Date | null;
  /** While `created`: the request registering it at the provider holds it until then; no other asks meanwhile. */
  registrationClaimedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
export type RecurrenceRow = Selectable<RecurrencesTable>;

/** A cycle is charged (a cobr, its pix_in transaction) or skipped: reached too late for BCB's cobr (less than 2 days before its date), no charge. */
export const CYCLE_STATUSES = ['charged', 'skipped'] as const;
export type CycleStatus = (typeof CYCLE_STATUSES)[number];

/** One cycle of a recurrence: its charge (BCB's cobr, a pix_in transaction), due day and debit attempts; or its skip. */
export interface RecurrenceCyclesTable {
  /** The cycle's charge; null when skipped. */
  transactionId: string | null;
  /** Inserted once, never changed (migration 027's CHECK holds the list). */
  status: CycleStatus;
  recurrenceId: string;
  accountId: string;
  cycle: number;
  dueDate: string;
  attemptDate: string;
  failedAttempts: Generated<number>;
  createdAt: Date;
}
export type RecurrenceCycleRow = Selectable<RecurrenceCyclesTable>;

/** A charge registration whose answer was lost at a provider: the `cob` that may exist there is removed when it answers again. */
export interface OrphanChargesTable {
  providerId: string;
  transactionId: string;
  accountId: string;
  attempts: Generated<number>;
  nextAttemptAt: Date;
  removedAt: Date | null;
  lastError: string | null;
  createdAt: Date;
}

/** A rec at a provider for a recurrence that is over here (migration 033): cancelled there by the worker. */
export interface OrphanRecurrencesTable {
  providerId: string;
  providerRecurrenceId: string;
  recurrenceId: string;
  accountId: string;
  attempts: Generated<number>;
  nextAttemptAt: Date;
  cancelledAt: Date | null;
  lastError: string | null;
  createdAt: Date;
}

/** A PIX a simulated provider received (its GET /pix, for reconciliation). */
export interface SandboxPaymentsTable {
  endToEndId: string;
  providerId: string;
  transactionId: string;
  accountId: string;
  amountCents: number;
  paidAt: Date;
}

export type ReconciliationStatus = 'running' | 'done' | 'failed';
export type DifferenceKind = 'missing_at_psp' | 'missing_in_ledger' | 'amount' | 'status';
export type MovementKind = 'payment' | 'withdrawal' | 'refund';

export interface ReconciliationRunsTable {
  id: string;
  providerId: string;
  periodFrom: Date;
  periodTo: Date;
  requestedBy: string;
  status: ReconciliationStatus;
  matched: Generated<number>;
  differences: Generated<number>;
  ledgerInCents: Generated<number>;
  ledgerOutCents: Generated<number>;
  pspInCents: Generated<number>;
  pspOutCents: Generated<number>;
  error: string | null;
  startedAt: Date;
  finishedAt: Date | null;
}

export interface ReconciliationDifferencesTable {
  runId: string;
  position: number;
  kind: DifferenceKind;
  movement: MovementKind;
  reference: string;
  accountId: string | null;
  transactionId: string | null;
  ledgerCents: number | null;
  pspCents: number | null;
  ledgerStatus: string | null;
  pspStatus: string | null;
}

export interface ProviderBalancesTable {
  providerId: string;
  ledgerInCents: number;
  ledgerOutCents: number;
  reportedCents: number | null;
  readError: string | null;
  low: boolean;
  readAt: Date;
}

/** Where a PSP poller stopped reading (migration 011), written only under src/provider/. */
export interface PspCursorsTable {
  name: string;
  position: Date;
}

export type UserRole = 'owner' | 'developer' | 'finance' | 'viewer';

export interface UsersTable {
  id: string;
  accountId: string;
  email: string;
  role: UserRole;
  passwordHash: string | null;
  totpSecretEncrypted: string | null;
  totpEnrolledAt: Date | null;
  totpLastStep: number | null;
  failedAttempts: Generated<number>;
  lockedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
  removedAt: Date | null;
}

export interface UserInvitesTable {
  tokenHash: Buffer;
  userId: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

export type SessionStage = 'password' | 'full';

export interface SessionsTable {
  idHash: Buffer;
  userId: string;
  stage: SessionStage;
  createdAt: Date;
  lastSeenAt: Date;
  endedAt: Date | null;
}

export type OperatorRole = 'admin' | 'compliance' | 'support';

/** Back-office operator users (migration 010): the users' credentials, no account. */
export interface OperatorsTable {
  id: string;
  email: string;
  role: OperatorRole;
  passwordHash: string | null;
  totpSecretEncrypted: string | null;
  totpEnrolledAt: Date | null;
  totpLastStep: number | null;
  failedAttempts: Generated<number>;
  lockedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
  removedAt: Date | null;
}

export interface OperatorInvitesTable {
  tokenHash: Buffer;
  operatorId: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

export interface OperatorSessionsTable {
  idHash: Buffer;
  operatorId: string;
  stage: SessionStage;
  createdAt: Date;
  lastSeenAt: Date;
  endedAt: Date | null;
}

export interface SchemaMigrationsTable {
  version: string;
  appliedAt: Generated<Date>;
}

/** Append-only (migration 009): inserted, never updated nor deleted. */
export interface AuditLogTable {
  id: string;
  at: Date;
  actor: string;
  action: string;
  accountId: string | null;
  objectId: string | null;
  /** JSON text on insert; read back parsed. */
  changes: ColumnType<AuditChanges, string, never>;
}

export type AuditChanges = { input?: unknown; before?: unknown; after?: unknown };
export type AuditRow = Selectable<AuditLogTable>;

export interface DB {
  accounts: AccountsTable;
  feePlans: FeePlansTable;
  apiKeys: ApiKeysTable;
  transactions: TransactionsTable;
  idempotencyKeys: IdempotencyKeysTable;
  rateCounters: RateCountersTable;
  ledgerEntries: LedgerEntriesTable;
  ledgerDays: LedgerDaysTable;
  balances: BalancesTable;
  blocks: BlocksTable;
  events: EventsTable;
  webhookEndpoints: WebhookEndpointsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  webhookAttempts: WebhookAttemptsTable;
  sandboxDirectives: SandboxDirectivesTable;
  alerts: AlertsTable;
  sandboxDictKeys: SandboxDictKeysTable;
  sandboxWithdrawals: SandboxWithdrawalsTable;
  sandboxCycleCharges: SandboxCycleChargesTable;
  sandboxRecurrences: SandboxRecurrencesTable;
  recipients: RecipientsTable;
  infractions: InfractionsTable;
  infractionEvidence: InfractionEvidenceTable;
  infractionEvidenceChunks: InfractionEvidenceChunksTable;
  refunds: RefundsTable;
  sandboxRefunds: SandboxRefundsTable;
  pspCursors: PspCursorsTable;
  users: UsersTable;
  userInvites: UserInvitesTable;
  sessions: SessionsTable;
  operators: OperatorsTable;
  operatorInvites: OperatorInvitesTable;
  operatorSessions: OperatorSessionsTable;
  schemaMigrations: SchemaMigrationsTable;
  auditLog: AuditLogTable;
  providerSends: ProviderSendsTable;
  sandboxCharges: SandboxChargesTable;
  sandboxProviderOutages: SandboxProviderOutagesTable;
  routingRules: RoutingRulesTable;
  orphanCharges: OrphanChargesTable;
  staticQrCodes: StaticQrCodesTable;
  recurrences: RecurrencesTable;
  recurrenceCycles: RecurrenceCyclesTable;
  orphanRecurrences: OrphanRecurrencesTable;
  sandboxPayments: SandboxPaymentsTable;
  reconciliationRuns: ReconciliationRunsTable;
  reconciliationDifferences: ReconciliationDifferencesTable;
  providerBalances: ProviderBalancesTable;
  statements: StatementsTable;
  fraudMarks: FraudMarksTable;
  fraudMarksVersion: FraudMarksVersionTable;
}

/** A closed day's statement (migration 018): never updated or deleted. */
export interface StatementsTable {
  accountId: string;
  /** The America/Sao_Paulo day, AAAA-MM-DD (read back as text: a `date` would become a local-midnight Date). */
  day: string;
  openingBalanceCents: number;
  closingBalanceCents: number;
  openingBlockedCents: number;
  closingBlockedCents: number;
  movementCount: number;
  previousDigest: string | null;
  digest: string;
  /** The exact JSON text served; `digest` is its SHA-256. */
  body: string;
  createdAt: Date;
}

export type AccountRow = Selectable<AccountsTable>;
export type TransactionRow = Selectable<TransactionsTable>;
export type NewTransaction = Insertable<TransactionsTable>;
export type RecipientRow = Selectable<RecipientsTable>;
export type InfractionRow = Selectable<InfractionsTable>;
export type EvidenceRow = Selectable<InfractionEvidenceTable>;
export type RefundRow = Selectable<RefundsTable>;
export type ProviderSendRow = Selectable<ProviderSendsTable>;
export type ProviderBalanceRow = Selectable<ProviderBalancesTable>;
export type ReconciliationRunRow = Selectable<ReconciliationRunsTable>;
export type ReconciliationDifferenceRow = Selectable<ReconciliationDifferencesTable>;
export type UserRow = Selectable<UsersTable>;
export type OperatorRow = Selectable<OperatorsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
