// The SDK's public types, each read from the generated OpenAPI types (src/generated/openapi.ts):
// when the gateway's contract changes, `npm run sdk:generate` changes these with it, and the
// compiler shows every place of the client that no longer fits.
import type { components, operations } from './generated/openapi.js';

type Schemas = components['schemas'];
type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body an operation answers with the given status. */
export type ResponseBody<Operation extends keyof operations, Status extends keyof operations[Operation]['responses']> = JsonContent<
  operations[Operation]['responses'][Status]
>;
/** The JSON body an operation takes. */
export type RequestBody<Operation extends keyof operations> = JsonContent<NonNullable<operations[Operation]['requestBody']>>;
/** The query parameters an operation takes, as the document has them (every value a string). */
type QueryOf<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>;

/** A time given to a filter: Unix milliseconds or a Date. */
export type Instant = number | Date;

// Resources.
export type Transaction = Schemas['Transaction'];
export type TransactionType = Transaction['type'];
export type Party = Schemas['Party'];
export type DueTerms = Schemas['DueTerms'];
export type AmountDue = Schemas['AmountDue'];
export type StaticQrCode = Schemas['StaticQrCode'];
export type Infraction = Schemas['Infraction'];
export type Refund = Schemas['Refund'];
export type ApprovedRecipient = Schemas['ApprovedRecipient'];
export type Balance = Schemas['Balance'];

// Charges (POST /v1/pix), with a due date (POST /v1/pix/due) and static QR codes (POST /v1/pix/static).
export type CreateChargeRequest = RequestBody<'createCharge'>;
/** 201: a new charge; 200 (`idempotent: true`): the charge its `externalRef` already created. */
export type CreatedCharge = ResponseBody<'createCharge', 201> | ResponseBody<'createCharge', 200>;
export type CreateDueChargeRequest = RequestBody<'createDueCharge'>;
export type CreatedDueCharge = ResponseBody<'createDueCharge', 201> | ResponseBody<'createDueCharge', 200>;
export type DueChargeBatchResult = ResponseBody<'createDueChargeBatch', 200>;
export type CreateStaticQrCodeRequest = RequestBody<'createStaticQrCode'>;
/** 201: a new code; 200 (`idempotent: true`): the code its `externalRef` already created. */
export type CreatedStaticQrCode = ResponseBody<'createStaticQrCode', 201> | ResponseBody<'createStaticQrCode', 200>;
export type StaticQrCodeList = ResponseBody<'listStaticQrCodes', 200>;

/** QR code image options: PNG (default) as bytes, SVG as text; width 128 to 1024 pixels (default 256). */
export type QrCodeOptions<Format extends 'png' | 'svg'> = { format?: Format; size?: number };

// Transactions (GET /v1/transactions, DESIGN.md §15) and exports.
export type TransactionPage = ResponseBody<'listTransactions', 200>;
/** Filters of GET /v1/transactions; `limit` is the page size (1 to 100). */
export type ListTransactionsParams = Omit<QueryOf<'listTransactions'>, 'createdFrom' | 'createdTo' | 'type' | 'limit'> & {
  type?: TransactionType;
  createdFrom?: Instant;
  createdTo?: Instant;
  limit?: number;
};
export type ExportTransactionsParams = Omit<QueryOf<'exportTransactions'>, 'createdFrom' | 'createdTo' | 'type'> & {
  type?: TransactionType;
  createdFrom?: Instant;
  createdTo?: Instant;
};
export type Statement = ResponseBody<'getStatement', 200>;

// Withdrawals (POST /v1/withdraw).
export type CreateWithdrawalRequest = RequestBody<'createWithdrawal'>;
/** 201: started; 200 (`idempotent: true`): the withdrawal its `externalRef` already started; 202: `failed_unknown`, debited, reconciled within 24 hours (do not resend). */
export type CreatedWithdrawal = ResponseBody<'createWithdrawal', 201> | ResponseBody<'createWithdrawal', 200> | ResponseBody<'createWithdrawal', 202>;

// Recipients.
export type CreateRecipientRequest = RequestBody<'createRecipient'>;
export type RecipientRegistration = ResponseBody<'createRecipient', 201> | ResponseBody<'createRecipient', 200>;
export type RecipientList = ResponseBody<'listRecipients', 200>;

// Refunds.
export type CreateRefundRequest = NonNullable<RequestBody<'createRefund'>>;
export type RefundList = ResponseBody<'listRefunds', 200>;

// MED cases.
export type InfractionList = ResponseBody<'listInfractions', 200>;
export type ListInfractionsParams = Omit<QueryOf<'listInfractions'>, 'limit'> & { status?: Infraction['status']; limit?: number };
export type DefenseRequest = RequestBody<'defendInfraction'>;
export type Evidence = Schemas['Evidence'];
export type EvidenceList = ResponseBody<'listEvidence', 200>;
/** One file to add to a case's defense: PDF, PNG or JPEG (the gateway reads its bytes), at most 10 MB. */
export type EvidenceUpload = { file: Blob | Uint8Array; fileName: string };
/** A downloaded evidence file: its bytes, the type the gateway told from them, and its name. */
export type EvidenceFile = { bytes: Uint8Array; contentType: string; fileName: string };

// Pix Automático (recurrences and their cycles).
export type Recurrence = Schemas['Recurrence'];
export type RecurrenceWithCycles = Schemas['RecurrenceWithCycles'];
export type CreateRecurrenceRequest = RequestBody<'createRecurrence'>;
/** A variable recurrence's amount for its cycles not charged yet. */
export type ChangeRecurrenceAmountRequest = RequestBody<'changeRecurrenceAmount'>;
/** 201: a new recurrence; 200 (`idempotent: true`): the one its `externalRef` already created. */
export type CreatedRecurrence = ResponseBody<'createRecurrence', 201> | ResponseBody<'createRecurrence', 200>;
export type RecurrencePage = ResponseBody<'listRecurrences', 200>;
/** `limit` is the page size (1 to 100); `startingAfter` a recurrence's id. */
export type ListRecurrencesParams = Omit<QueryOf<'listRecurrences'>, 'limit'> & { limit?: number };

// Sandbox (the simulator's controls; a gateway with PIX_PROVIDER=simulated).
export type SandboxPayment = NonNullable<RequestBody<'sandboxPayCharge'>>;
export type SandboxStaticPayment = NonNullable<RequestBody<'sandboxPayStaticQrCode'>>;
export type SandboxLatePayment = NonNullable<RequestBody<'sandboxPayChargeLate'>>;
export type SandboxWithdrawalSettlement = RequestBody<'sandboxSettleWithdrawal'>;
export type SandboxRefundSettlement = RequestBody<'sandboxSettleRefund'>;
export type SandboxInfractionOpening = RequestBody<'sandboxOpenInfraction'>;
export type SandboxInfractionClosing = RequestBody<'sandboxCloseInfraction'>;
export type SandboxDictKey = RequestBody<'sandboxRegisterDictKey'>;
export type SandboxArmed = ResponseBody<'sandboxFailNextCharge', 201>;
export type SandboxCycleDebit = RequestBody<'sandboxDebitRecurrenceCycle'>;
/** The next cycle's debit: `outcome` paid (the default) or failed, and the payer. */
export type SandboxNextCycleDebit = NonNullable<RequestBody<'sandboxDebitNextRecurrenceCycle'>>;

// Webhooks.
/** The body of any webhook delivery: one of the 21 events, discriminated by `event`. */
export type WebhookEvent = Schemas['WebhookEvent'];
export type WebhookEventName = WebhookEvent['event'];
/** The body of one event, e.g. `WebhookEventOf<'transaction.paid'>`. */
export type WebhookEventOf<Name extends WebhookEventName> = Extract<WebhookEvent, { event: Name }>;
