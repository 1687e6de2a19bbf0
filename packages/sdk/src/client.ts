import { generateExternalRef } from './externalRef.js';
import { messages } from './messages.js';
import { CursorList } from './paging.js';
import { Transport, type Call, type RequestOptions } from './transport.js';
import type {
  AmountDue,
  Balance,
  CreateChargeRequest,
  ChangeRecurrenceAmountRequest,
  CreateRecurrenceRequest,
  CreateDueChargeRequest,
  CreateRecipientRequest,
  CreateRefundRequest,
  CreateStaticQrCodeRequest,
  CreatedStaticQrCode,
  CreateWithdrawalRequest,
  CreatedCharge,
  CreatedDueCharge,
  CreatedRecurrence,
  CreatedWithdrawal,
  DefenseRequest,
  Evidence,
  EvidenceFile,
  EvidenceList,
  EvidenceUpload,
  DueChargeBatchResult,
  ExportTransactionsParams,
  Infraction,
  InfractionList,
  Instant,
  ListInfractionsParams,
  ListRecurrencesParams,
  ListTransactionsParams,
  QrCodeOptions,
  RecipientList,
  RecipientRegistration,
  Recurrence,
  RecurrencePage,
  RecurrenceWithCycles,
  Refund,
  RefundList,
  RequestBody,
  ResponseBody,
  SandboxCycleDebit,
  SandboxNextCycleDebit,
  SandboxDictKey,
  SandboxInfractionClosing,
  SandboxInfractionOpening,
  SandboxLatePayment,
  SandboxPayment,
  SandboxRefundSettlement,
  SandboxStaticPayment,
  SandboxWithdrawalSettlement,
  Statement,
  StaticQrCode,
  StaticQrCodeList,
  Transaction,
  TransactionPage,
} from './types.js';

/** The transactions a filter selects, newest first: `for await` walks them all, `.page()` fetches one page. */
export type TransactionList = CursorList<Transaction, TransactionPage>;
/** The account's recurrences, newest first: `for await` walks them all, `.page()` fetches one page. */
export type RecurrenceList = CursorList<Recurrence, RecurrencePage>;

export type PixGatewayOptions = {
  /** The merchant's API key (`Authorization: Bearer <key>`). */
  apiKey: string;
  /** The gateway's address, e.g. `https://pix.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Per attempt: how long to wait for an answer (default 30 000 ms). */
  timeoutMs?: number;
  /** How many times a call the retry table allows is sent again (default 2; 0: never). */
  maxRetries?: number;
  /** The fetch to send with (default: Node's global `fetch`). */
  fetch?: typeof fetch;
  /** The first retry's wait, doubled at each retry, with jitter (default 500 ms). */
  retryDelayMs?: number;
  /** The longest wait between retries (default 8 000 ms). */
  maxRetryDelayMs?: number;
  /** Sent as User-Agent (default `pix-gateway-sdk/<version> node/<version>`). */
  userAgent?: string;
};

export type { RequestOptions };

const DEFAULTS = { timeoutMs: 30_000, maxRetries: 2, retryDelayMs: 500, maxRetryDelayMs: 8_000 };

const segment = (value: string) => encodeURIComponent(value);
const milliseconds = (value: Instant | undefined) => (value === undefined ? undefined : String(value instanceof Date ? value.getTime() : value));
const integer = (value: number | undefined) => (value === undefined ? undefined : String(value));

function checkedNumber(name: string, value: number | undefined, fallback: number, rule: (value: number) => boolean, description: string): number {
  if (value === undefined) return fallback;
  if (!rule(value)) throw new RangeError(messages.optionInvalid(name, description));
  return value;
}

function checkedBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(messages.baseUrlInvalid(value));
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) throw new TypeError(messages.baseUrlInvalid(value));
  return url.href.replace(/\/+$/, '');
}

type WithdrawalFault = RequestBody<'sandboxFailNextWithdrawal'>['outcome'];

type QrCall = QrCodeOptions<'png' | 'svg'> & RequestOptions;

/** A QR image call: PNG bytes, or SVG text. */
function qrImage(transport: Transport, path: string, options: QrCall): Promise<Uint8Array | string> {
  const call: Call = { method: 'GET', path, query: { format: options.format, size: integer(options.size) }, rule: 'read', options };
  return options.format === 'svg' ? transport.text(call) : transport.bytes(call);
}

/** The name of an attachment: RFC 5987's `filename*` (UTF-8) when given, else `filename`. */
function attachmentName(disposition: string | null): string {
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? '')?.[1];
  if (encoded) return decodeURIComponent(encoded);
  return /filename="([^"]*)"/i.exec(disposition ?? '')?.[1] ?? '';
}

/** Dynamic charges: `POST /v1/pix`, its cancellation and its QR image. */
export class Charges {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Creates a charge (201), or answers the one its `externalRef` already created (200,
   * `idempotent: true`). Without an `externalRef` the SDK generates one, so that a timeout, a
   * network error or a 502 is retried safely (spec: retry table).
   */
  create(body: CreateChargeRequest, options?: RequestOptions): Promise<CreatedCharge> {
    const externalRef = body.externalRef ?? generateExternalRef('charge');
    return this.#transport.json({ method: 'POST', path: '/v1/pix', body: { ...body, externalRef }, rule: 'charge', externalRef, options });
  }

  /** Cancels a pending charge: the charge, `cancelled`. */
  cancel(transactionId: string, options?: RequestOptions): Promise<ResponseBody<'cancelCharge', 200>> {
    return this.#transport.json({ method: 'POST', path: `/v1/pix/${segment(transactionId)}/cancel`, rule: 'none', options });
  }

  /** The charge's QR code: PNG bytes (default), or SVG text with `{ format: 'svg' }`. */
  qrCode(transactionId: string, options: QrCodeOptions<'svg'> & RequestOptions & { format: 'svg' }): Promise<string>;
  qrCode(transactionId: string, options?: QrCodeOptions<'png'> & RequestOptions): Promise<Uint8Array>;
  qrCode(transactionId: string, options: QrCall = {}): Promise<Uint8Array | string> {
    return qrImage(this.#transport, `/v1/pix/${segment(transactionId)}/qrcode`, options);
  }
}

/** Charges with a due date (cobv: fine, interest, discounts, abatement; docs/due-charges.md). */
export class DueCharges {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Creates a charge with a due date; retried as `charges.create` (same `externalRef`, generated when absent). */
  create(body: CreateDueChargeRequest, options?: RequestOptions): Promise<CreatedDueCharge> {
    const externalRef = body.externalRef ?? generateExternalRef('due');
    return this.#transport.json({ method: 'POST', path: '/v1/pix/due', body: { ...body, externalRef }, rule: 'charge', externalRef, options });
  }

  /** Creates up to 100 at once: each item's status and charge, or its error (never retried: give each an `externalRef`). */
  createBatch(charges: readonly CreateDueChargeRequest[], options?: RequestOptions): Promise<DueChargeBatchResult> {
    return this.#transport.json({ method: 'POST', path: '/v1/pix/due/batch', body: { charges }, rule: 'none', options });
  }

  /** What the charge costs when paid on `date` (AAAA-MM-DD, America/Sao_Paulo; default today). */
  amount(transactionId: string, params: { date?: string } = {}, options?: RequestOptions): Promise<AmountDue> {
    return this.#transport.json({ method: 'GET', path: `/v1/pix/due/${segment(transactionId)}/amount`, query: { date: params.date }, rule: 'read', options });
  }
}

/** Static QR codes: a reusable BR Code whose every payment is a new `pix_in`. */
export class StaticQrCodes {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  create(body: CreateStaticQrCodeRequest = {}, options?: RequestOptions): Promise<CreatedStaticQrCode> {
    return this.#transport.json({ method: 'POST', path: '/v1/pix/static', body, rule: 'none', externalRef: body.externalRef ?? undefined, options });
  }

  list(options?: RequestOptions): Promise<StaticQrCodeList> {
    return this.#transport.json({ method: 'GET', path: '/v1/pix/static', rule: 'read', options });
  }

  get(id: string, options?: RequestOptions): Promise<StaticQrCode> {
    return this.#transport.json({ method: 'GET', path: `/v1/pix/static/${segment(id)}`, rule: 'read', options });
  }

  deactivate(id: string, options?: RequestOptions): Promise<StaticQrCode> {
    return this.#transport.json({ method: 'POST', path: `/v1/pix/static/${segment(id)}/deactivate`, rule: 'none', options });
  }

  qrCode(id: string, options: QrCodeOptions<'svg'> & RequestOptions & { format: 'svg' }): Promise<string>;
  qrCode(id: string, options?: QrCodeOptions<'png'> & RequestOptions): Promise<Uint8Array>;
  qrCode(id: string, options: QrCall = {}): Promise<Uint8Array | string> {
    return qrImage(this.#transport, `/v1/pix/static/${segment(id)}/qrcode`, options);
  }
}

/** Transactions: one, a filtered list paged by cursor (DESIGN.md §15), exports. */
export class Transactions {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  get(transactionId: string, options?: RequestOptions): Promise<Transaction> {
    return this.#transport.json({ method: 'GET', path: `/v1/transactions/${segment(transactionId)}`, rule: 'read', options });
  }

  /**
   * The transactions the filters select, newest first: iterate with `for await` (every page,
   * fetched as needed) or call `.page()` for one page (`{ transactions, count, hasMore }`).
   * `limit` is the page size (1 to 100); `startingAfter` starts after that transaction.
   */
  list(params: ListTransactionsParams = {}, options?: RequestOptions): TransactionList {
    const { createdFrom, createdTo, limit, startingAfter, ...filters } = params;
    const query = { ...filters, createdFrom: milliseconds(createdFrom), createdTo: milliseconds(createdTo) };
    return new CursorList(
      (after, pageSize) =>
        this.#transport.json<TransactionPage>({
          method: 'GET',
          path: '/v1/transactions',
          query: { ...query, startingAfter: after, limit: integer(pageSize) },
          rule: 'read',
          options,
        }),
      { items: (page) => page.transactions, cursor: (transaction) => transaction.transactionId },
      startingAfter,
      limit,
    );
  }

  /** Every transaction of a range as CSV or OFX text (see `exportStream` for large ranges). */
  export(params: ExportTransactionsParams, options?: RequestOptions): Promise<string> {
    return this.#transport.text(this.#exportCall(params, options));
  }

  /** The export as a stream of bytes, read as it arrives (constant memory at any size). */
  exportStream(params: ExportTransactionsParams, options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
    return this.#transport.stream(this.#exportCall(params, options));
  }

  #exportCall(params: ExportTransactionsParams, options: RequestOptions | undefined): Call {
    const { createdFrom, createdTo, ...rest } = params;
    const query = { ...rest, createdFrom: milliseconds(createdFrom), createdTo: milliseconds(createdTo) };
    return { method: 'GET', path: '/v1/transactions/export', query, rule: 'read', options };
  }
}

/** Daily statements (closed America/Sao_Paulo days). */
export class Statements {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The statement of `date` (AAAA-MM-DD). */
  get(date: string, options?: RequestOptions): Promise<Statement> {
    return this.#transport.json({ method: 'GET', path: `/v1/statements/${segment(date)}`, rule: 'read', options });
  }
}

/** Withdrawals: `POST /v1/withdraw`. */
export class Withdrawals {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Starts a withdrawal. Resolves with 201 (started), 200 (`idempotent: true`: the one its
   * `externalRef` started) or 202 (`status: 'failed_unknown'`: debited, settled by reconciliation
   * within 24 hours; do not resend). Only a 502 "O valor não foi debitado." is retried (same
   * `externalRef`, generated when absent). A 502 "Saque iniciado mas confirmação interrompida" is
   * never retried: the error's `transactionId` names the withdrawal to query. A timeout is never
   * retried either: look the withdrawal up by the error's `externalRef`.
   */
  create(body: CreateWithdrawalRequest, options?: RequestOptions): Promise<CreatedWithdrawal> {
    const externalRef = body.externalRef ?? generateExternalRef('withdrawal');
    return this.#transport.json({ method: 'POST', path: '/v1/withdraw', body: { ...body, externalRef }, rule: 'withdrawal', externalRef, options });
  }
}

/** Third-party withdrawal recipients. */
export class Recipients {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Registers a recipient for review (201), or answers the one with this document (200). */
  create(body: CreateRecipientRequest, options?: RequestOptions): Promise<RecipientRegistration> {
    return this.#transport.json({ method: 'POST', path: '/v1/recipients', body, rule: 'none', options });
  }

  /** The approved recipients. */
  list(options?: RequestOptions): Promise<RecipientList> {
    return this.#transport.json({ method: 'GET', path: '/v1/recipients', rule: 'read', options });
  }
}

export class BalanceResource {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  get(options?: RequestOptions): Promise<Balance> {
    return this.#transport.json({ method: 'GET', path: '/v1/balance', rule: 'read', options });
  }
}

/** Refunds of a paid charge (docs/refunds.md). */
export class Refunds {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Refunds `amountCents` (default: the refundable remainder) of a paid charge; never retried by the SDK. */
  create(transactionId: string, body: CreateRefundRequest = {}, options?: RequestOptions): Promise<Refund> {
    return this.#transport.json({
      method: 'POST',
      path: `/v1/transactions/${segment(transactionId)}/refunds`,
      body,
      rule: 'none',
      externalRef: body.externalRef ?? undefined,
      options,
    });
  }

  list(transactionId: string, options?: RequestOptions): Promise<RefundList> {
    return this.#transport.json({ method: 'GET', path: `/v1/transactions/${segment(transactionId)}/refunds`, rule: 'read', options });
  }
}

/** MED cases on the merchant's charges, and their defense. */
export class Infractions {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  list(params: ListInfractionsParams = {}, options?: RequestOptions): Promise<InfractionList> {
    return this.#transport.json({
      method: 'GET',
      path: '/v1/infractions',
      query: { status: params.status, limit: integer(params.limit) },
      rule: 'read',
      options,
    });
  }

  get(infractionId: string, options?: RequestOptions): Promise<Infraction> {
    return this.#transport.json({ method: 'GET', path: `/v1/infractions/${segment(infractionId)}`, rule: 'read', options });
  }

  /** Sends the merchant's defense (once, before the deadline). */
  defend(infractionId: string, body: DefenseRequest, options?: RequestOptions): Promise<Infraction> {
    return this.#transport.json({ method: 'POST', path: `/v1/infractions/${segment(infractionId)}/defense`, body, rule: 'none', options });
  }

  /**
   * Adds one evidence file to the case's defense (multipart, field `file`): PDF, PNG or JPEG by its
   * bytes, at most 10 MB, at most 5 per case, while the case takes a defense. Never retried.
   * Refusals: 400, 404, 413 (`Arquivo maior que 10 MB.`), 415 (not PDF, PNG or JPEG), 422.
   */
  uploadEvidence(infractionId: string, upload: EvidenceUpload, options?: RequestOptions): Promise<Evidence> {
    const form = new FormData();
    form.append('file', upload.file instanceof Blob ? upload.file : new Blob([new Uint8Array(upload.file)]), upload.fileName);
    return this.#transport.json({ method: 'POST', path: `/v1/infractions/${segment(infractionId)}/evidence`, form, rule: 'none', options });
  }

  /** The case's evidence files, oldest first. */
  listEvidence(infractionId: string, options?: RequestOptions): Promise<EvidenceList> {
    return this.#transport.json({ method: 'GET', path: `/v1/infractions/${segment(infractionId)}/evidence`, rule: 'read', options });
  }

  /** One evidence file: its bytes, its type and its name. */
  async downloadEvidence(infractionId: string, evidenceId: string, options?: RequestOptions): Promise<EvidenceFile> {
    const path = `/v1/infractions/${segment(infractionId)}/evidence/${segment(evidenceId)}`;
    const { bytes, headers } = await this.#transport.file({ method: 'GET', path, rule: 'read', options });
    return { bytes, contentType: headers.get('content-type') ?? 'application/octet-stream', fileName: attachmentName(headers.get('content-disposition')) };
  }
}

/**
 * Pix Automático (docs/recurrences.md): a recurrence the payer authorizes once, then one charge
 * (a `pix_in` transaction) per cycle, debited by the payer's bank on its date.
 */
export class Recurrences {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Creates a recurrence and asks the payer to authorize it (201), or answers the one its `externalRef` created (200). Never retried by the SDK. */
  create(body: CreateRecurrenceRequest, options?: RequestOptions): Promise<CreatedRecurrence> {
    return this.#transport.json({ method: 'POST', path: '/v1/recurrences', body, rule: 'none', externalRef: body.externalRef ?? undefined, options });
  }

  /** The account's recurrences, newest first: iterate with `for await`, or `.page()` for one page. */
  list(params: ListRecurrencesParams = {}, options?: RequestOptions): RecurrenceList {
    return new CursorList(
      (after, pageSize) =>
        this.#transport.json<RecurrencePage>({
          method: 'GET',
          path: '/v1/recurrences',
          query: { startingAfter: after, limit: integer(pageSize) },
          rule: 'read',
          options,
        }),
      { items: (page) => page.recurrences, cursor: (recurrence) => recurrence.id },
      params.startingAfter,
      params.limit,
    );
  }

  /** One recurrence with its cycles. */
  get(id: string, options?: RequestOptions): Promise<RecurrenceWithCycles> {
    return this.#transport.json({ method: 'GET', path: `/v1/recurrences/${segment(id)}`, rule: 'read', options });
  }

  /** A variable recurrence's amount (up to its `maxAmountCents`) for the cycles not charged yet; the ones charged keep theirs. Never retried by the SDK. */
  changeAmount(id: string, body: ChangeRecurrenceAmountRequest, options?: RequestOptions): Promise<RecurrenceWithCycles> {
    return this.#transport.json({ method: 'PATCH', path: `/v1/recurrences/${segment(id)}`, body, rule: 'none', options });
  }

  /** Cancels the recurrence and its pending cycles. */
  cancel(id: string, options?: RequestOptions): Promise<ResponseBody<'cancelRecurrence', 200>> {
    return this.#transport.json({ method: 'POST', path: `/v1/recurrences/${segment(id)}/cancel`, rule: 'none', options });
  }

  /** Cancels one cycle's charge, before its due date: the charge, `cancelled`. */
  cancelCycle(id: string, cycle: number, options?: RequestOptions): Promise<ResponseBody<'cancelRecurrenceCycle', 200>> {
    return this.#transport.json({ method: 'POST', path: `/v1/recurrences/${segment(id)}/cycles/${cycle}/cancel`, rule: 'none', options });
  }
}

/**
 * The simulated PIX network of a gateway running the simulator (`/sandbox/v1`): payers paying,
 * the provider's outcomes and faults. Not available against a real PSP (404).
 */
export class Sandbox {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  #post<T>(path: string, body: unknown, options: RequestOptions | undefined): Promise<T> {
    return this.#transport.json<T>({ method: 'POST', path: `/sandbox/v1${path}`, body, rule: 'none', options });
  }

  /** A payer pays the charge (its amount; `amountCents` must equal it). */
  payCharge(transactionId: string, body?: SandboxPayment, options?: RequestOptions): Promise<ResponseBody<'sandboxPayCharge', 200>> {
    return this.#post(`/pix/${segment(transactionId)}/pay`, body, options);
  }

  /** A payer pays a static QR code: a new `pix_in`, paid. */
  payStaticQrCode(id: string, body?: SandboxStaticPayment, options?: RequestOptions): Promise<ResponseBody<'sandboxPayStaticQrCode', 200>> {
    return this.#post(`/pix/static/${segment(id)}/pay`, body, options);
  }

  /** A payment after the charge stopped being pending: returned in full. */
  payChargeLate(transactionId: string, body?: SandboxLatePayment, options?: RequestOptions): Promise<ResponseBody<'sandboxPayChargeLate', 201>> {
    return this.#post(`/pix/${segment(transactionId)}/late-payment`, body, options);
  }

  /** The charge's validity elapses now. */
  expireCharge(transactionId: string, options?: RequestOptions): Promise<ResponseBody<'sandboxExpireCharge', 200>> {
    return this.#post(`/pix/${segment(transactionId)}/expire`, undefined, options);
  }

  /** The provider removes a pending charge. */
  failCharge(transactionId: string, options?: RequestOptions): Promise<ResponseBody<'sandboxFailCharge', 200>> {
    return this.#post(`/pix/${segment(transactionId)}/fail`, undefined, options);
  }

  /** The next charge creation fails at the provider: 502. */
  failNextCharge(options?: RequestOptions): Promise<ResponseBody<'sandboxFailNextCharge', 201>> {
    return this.#post('/provider/next-charge', { outcome: 'provider_error' }, options);
  }

  /** The next withdrawal's submission: 502 with rollback, 202 `failed_unknown`, or 502 confirmation interrupted. */
  failNextWithdrawal(outcome: WithdrawalFault, options?: RequestOptions): Promise<ResponseBody<'sandboxFailNextWithdrawal', 201>> {
    return this.#post('/provider/next-withdrawal', { outcome }, options);
  }

  /** The next refund fails at the provider: 502. */
  failNextRefund(options?: RequestOptions): Promise<ResponseBody<'sandboxFailNextRefund', 201>> {
    return this.#post('/provider/next-refund', { outcome: 'provider_error' }, options);
  }

  /** The provider's answer for a processing withdrawal. */
  settleWithdrawal(transactionId: string, body: SandboxWithdrawalSettlement, options?: RequestOptions): Promise<ResponseBody<'sandboxSettleWithdrawal', 200>> {
    return this.#post(`/withdrawals/${segment(transactionId)}/settle`, body, options);
  }

  /** The provider's answer for a processing refund. */
  settleRefund(refundId: string, body: SandboxRefundSettlement, options?: RequestOptions): Promise<ResponseBody<'sandboxSettleRefund', 200>> {
    return this.#post(`/refunds/${segment(refundId)}/settle`, body, options);
  }

  /** Who holds an email/phone/evp key in the simulated DICT. */
  registerDictKey(body: SandboxDictKey, options?: RequestOptions): Promise<ResponseBody<'sandboxRegisterDictKey', 201>> {
    return this.#post('/dict/keys', body, options);
  }

  /** The payer's PSP opens a MED case on a paid charge. */
  openInfraction(transactionId: string, body: SandboxInfractionOpening, options?: RequestOptions): Promise<ResponseBody<'sandboxOpenInfraction', 201>> {
    return this.#post(`/pix/${segment(transactionId)}/infraction`, body, options);
  }

  /** The payer authorizes a recurrence in its bank's app. */
  authorizeRecurrence(id: string, options?: RequestOptions): Promise<ResponseBody<'sandboxAuthorizeRecurrence', 200>> {
    return this.#post(`/recurrences/${segment(id)}/authorize`, undefined, options);
  }

  /** The payer refuses a recurrence. */
  refuseRecurrence(id: string, options?: RequestOptions): Promise<ResponseBody<'sandboxRefuseRecurrence', 200>> {
    return this.#post(`/recurrences/${segment(id)}/refuse`, undefined, options);
  }

  /** The payer cancels a recurrence. */
  cancelRecurrence(id: string, options?: RequestOptions): Promise<ResponseBody<'sandboxCancelRecurrence', 200>> {
    return this.#post(`/recurrences/${segment(id)}/cancel`, undefined, options);
  }

  /** The payer's bank debits a cycle (`paid`) or fails to (`failed`), on or after its attempt day. */
  debitRecurrenceCycle(
    id: string,
    cycle: number,
    body: SandboxCycleDebit,
    options?: RequestOptions,
  ): Promise<ResponseBody<'sandboxDebitRecurrenceCycle', 200>> {
    return this.#post(`/recurrences/${segment(id)}/cycles/${cycle}/debit`, body, options);
  }

  /** The payer's bank debits the recurrence's next cycle now (its charge created first when needed): paid by default, or `failed`. */
  debitNextRecurrenceCycle(
    id: string,
    body: SandboxNextCycleDebit = {},
    options?: RequestOptions,
  ): Promise<ResponseBody<'sandboxDebitNextRecurrenceCycle', 200>> {
    return this.#post(`/recurrences/${segment(id)}/cycles/next/debit`, body, options);
  }

  /** The payer cancels one cycle's debit, before its date. */
  cancelRecurrenceCycle(id: string, cycle: number, options?: RequestOptions): Promise<ResponseBody<'sandboxCancelRecurrenceCycle', 200>> {
    return this.#post(`/recurrences/${segment(id)}/cycles/${cycle}/cancel`, undefined, options);
  }

  /** The PSP closes a MED case: `accepted` (the amount returned to the payer) or `rejected`. */
  closeInfraction(infractionId: string, body: SandboxInfractionClosing, options?: RequestOptions): Promise<ResponseBody<'sandboxCloseInfraction', 200>> {
    return this.#post(`/infractions/${segment(infractionId)}/close`, body, options);
  }

  /** The PSP releases a charge it held (cautionary block, paid with `{ held: true }`): its net becomes withdrawable. */
  releaseHeldCharge(transactionId: string, options?: RequestOptions): Promise<ResponseBody<'sandboxReleaseHeldCharge', 200>> {
    return this.#post(`/pix/${segment(transactionId)}/hold/release`, undefined, options);
  }

  /** The PSP returns a charge it held to its payer: the charge ends refunded, the balance as before the PIX. */
  returnHeldCharge(transactionId: string, options?: RequestOptions): Promise<ResponseBody<'sandboxReturnHeldCharge', 200>> {
    return this.#post(`/pix/${segment(transactionId)}/hold/return`, undefined, options);
  }
}

/**
 * The gateway's merchant API. One client per API key; it keeps no state between calls.
 *
 * ```ts
 * const pix = new PixGateway({ apiKey: process.env.PIX_API_KEY!, baseUrl: 'https://pix.example.com' });
 * const charge = await pix.charges.create({ amountCents: 1000, customer });
 * ```
 */
export class PixGateway {
  readonly charges: Charges;
  readonly dueCharges: DueCharges;
  readonly staticQrCodes: StaticQrCodes;
  readonly transactions: Transactions;
  readonly statements: Statements;
  readonly withdrawals: Withdrawals;
  readonly recipients: Recipients;
  readonly balance: BalanceResource;
  readonly refunds: Refunds;
  readonly infractions: Infractions;
  readonly recurrences: Recurrences;
  readonly sandbox: Sandbox;

  constructor(options: PixGatewayOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') throw new TypeError(messages.apiKeyRequired);
    const positive = (value: number) => Number.isFinite(value) && value > 0;
    const count = (value: number) => Number.isInteger(value) && value >= 0;
    const transport = new Transport({
      apiKey: options.apiKey,
      baseUrl: checkedBaseUrl(options.baseUrl),
      timeoutMs: checkedNumber('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs, positive, 'um número de milissegundos maior que 0'),
      maxRetries: checkedNumber('maxRetries', options.maxRetries, DEFAULTS.maxRetries, count, 'um inteiro ≥ 0'),
      retryDelayMs: checkedNumber('retryDelayMs', options.retryDelayMs, DEFAULTS.retryDelayMs, count, 'um inteiro ≥ 0'),
      maxRetryDelayMs: checkedNumber('maxRetryDelayMs', options.maxRetryDelayMs, DEFAULTS.maxRetryDelayMs, count, 'um inteiro ≥ 0'),
      fetch: options.fetch,
      userAgent: options.userAgent,
    });
    this.charges = new Charges(transport);
    this.dueCharges = new DueCharges(transport);
    this.staticQrCodes = new StaticQrCodes(transport);
    this.transactions = new Transactions(transport);
    this.statements = new Statements(transport);
    this.withdrawals = new Withdrawals(transport);
    this.recipients = new Recipients(transport);
    this.balance = new BalanceResource(transport);
    this.refunds = new Refunds(transport);
    this.infractions = new Infractions(transport);
    this.recurrences = new Recurrences(transport);
    this.sandbox = new Sandbox(transport);
  }
}
