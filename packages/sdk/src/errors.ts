/** What the error came from: the gateway's answer, or no answer at all. */
export type PixGatewayErrorInit = {
  status: number;
  message: string;
  method: string;
  path: string;
  requestId?: string | undefined;
  retryable?: boolean;
  body?: unknown;
  attempts?: number;
  externalRef?: string | undefined;
  transactionId?: string | undefined;
  cause?: unknown;
};

/**
 * A failed call. `status` is the HTTP status the gateway answered (0 when no answer came: the
 * subclasses say why), `message` the gateway's Portuguese `error` as it sent it, `requestId` the
 * `X-Request-Id` of the answer (or of the request, when no answer came) for the gateway's logs.
 *
 * `retryable` follows the spec's retry table: true when the same call may be sent again. The SDK
 * has already done so, up to `maxRetries`, where the table allows it at once (see docs/sdk.md);
 * a 429 is retryable only after a wait that is the caller's to choose (up to an hour).
 */
export class PixGatewayError extends Error {
  override name = 'PixGatewayError';
  readonly status: number;
  readonly requestId: string | undefined;
  readonly retryable: boolean;
  /** The answer's body (parsed JSON, else its text), when one came. */
  readonly body: unknown;
  readonly method: string;
  /** The path called, without the query. */
  readonly path: string;
  /** How many times the request was sent. */
  readonly attempts: number;
  /** The `externalRef` sent with a charge or withdrawal (the caller's or the generated one): look the transaction up by it. */
  readonly externalRef: string | undefined;
  /** The transaction the error names, when it names one (a withdrawal whose confirmation was interrupted). */
  readonly transactionId: string | undefined;

  constructor(init: PixGatewayErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryable = init.retryable ?? false;
    this.body = init.body;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts ?? 1;
    this.externalRef = init.externalRef;
    this.transactionId = init.transactionId;
  }
}

/**
 * A refund refused because a MED case on the charge is running (422): the blocked money belongs to
 * the payer's victim until the case closes. Try again once `infractions.list()` shows it closed.
 */
export class PixGatewayDisputeOpenError extends PixGatewayError {
  override name = 'PixGatewayDisputeOpenError';
}

/** No answer: the connection failed (refused, reset, DNS…). `status` is 0; `cause` is the network error. */
export class PixGatewayConnectionError extends PixGatewayError {
  override name = 'PixGatewayConnectionError';
}

/** No answer within `timeoutMs`. `status` is 0. Whether the gateway acted is unknown: query before resending. */
export class PixGatewayTimeoutError extends PixGatewayConnectionError {
  override name = 'PixGatewayTimeoutError';
}

/** The caller's `AbortSignal` ended the call. `status` is 0; `cause` is the signal's reason. */
export class PixGatewayAbortError extends PixGatewayError {
  override name = 'PixGatewayAbortError';
}

/** Why `verifyWebhook` refused a delivery. */
export type WebhookVerificationReason =
  'missing_headers' | 'invalid_timestamp' | 'timestamp_too_old' | 'timestamp_too_new' | 'invalid_signature' | 'invalid_body';

/** A webhook delivery that is not the gateway's, or not fresh: answer it 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
