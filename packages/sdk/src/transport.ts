import { randomUUID } from 'node:crypto';
import { PixGatewayAbortError, PixGatewayConnectionError, PixGatewayDisputeOpenError, PixGatewayError, PixGatewayTimeoutError } from './errors.js';
import { messages } from './messages.js';
import { VERSION } from './version.js';

/**
 * Which rule of the spec's retry table a call follows (docs/sdk.md):
 * - `charge`: POST /v1/pix (and /v1/pix/due, "as POST /v1/pix"): a timeout, a network error or a
 *   502 is sent again with the same `externalRef`;
 * - `withdrawal`: POST /v1/withdraw: only the 502 "Erro ao processar saque. O valor não foi
 *   debitado." (nothing was debited) is sent again, with the same `externalRef`; never a timeout,
 *   never the 502 "Saque iniciado mas confirmação interrompida…";
 * - `read`: a GET, which changes nothing: a timeout, a network error or a 503;
 * - `none`: every other call: never.
 * No 4xx is ever sent again by the SDK (a 429 is `retryable`, after a wait that is the caller's).
 */
export type RetryRule = 'charge' | 'withdrawal' | 'read' | 'none';

/** Options every call takes. */
export type RequestOptions = {
  /** Ends the call (and its retries) when aborted: the call rejects with a PixGatewayAbortError. */
  signal?: AbortSignal;
  /** This call's timeout per attempt, instead of the client's. */
  timeoutMs?: number;
  /** This call's retries, instead of the client's (0: none). */
  maxRetries?: number;
};

export type TransportOptions = {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  fetch: typeof fetch | undefined;
  userAgent: string | undefined;
};

export type Call = {
  method: 'GET' | 'POST' | 'PATCH';
  /** The path with its parameters already encoded. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** A multipart body (a file upload), sent as it is instead of `body`. */
  form?: FormData;
  rule: RetryRule;
  /** The `externalRef` the body carries (charges, withdrawals): errors name it. */
  externalRef?: string | undefined;
  options?: RequestOptions | undefined;
};

/** What one attempt came to. */
type Outcome = { kind: 'answer'; status: number; message: string | undefined } | { kind: 'timeout' } | { kind: 'network' };

const WITHDRAWAL_NOT_DEBITED = 'Erro ao processar saque. O valor não foi debitado.';
const WITHDRAWAL_INTERRUPTED = /^Saque iniciado mas confirmação interrompida\. Consulte \/v1\/transactions\/(\S+)$/;
/** The gateway's refusal of a refund while a MED case on the charge runs (DESIGN.md §19). */
const REFUND_DURING_DISPUTE = 'Devolução indisponível: há uma disputa MED aberta para esta cobrança.';

/** Whether the spec's retry table lets the SDK send the call again at once after this outcome. */
function mayRetry(rule: RetryRule, outcome: Outcome): boolean {
  switch (rule) {
    case 'charge':
      return outcome.kind !== 'answer' || outcome.status === 502;
    case 'withdrawal':
      return outcome.kind === 'answer' && outcome.status === 502 && outcome.message === WITHDRAWAL_NOT_DEBITED;
    case 'read':
      return outcome.kind !== 'answer' || outcome.status === 503;
    case 'none':
      return false;
  }
}

/** The wait before retry number `retry` (1, 2…): exponential, capped, with jitter (half fixed, half random). */
export function backoffMs(retry: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * A body as the contract describes it. The SDK has no runtime dependency to validate bodies
 * with: it trusts the gateway's answer to be its documented JSON object, and checks only that.
 */
function isContractBody<T>(value: unknown): value is T {
  return typeof value === 'object' && value !== null;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

function errorMessageOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string' ? body.error : undefined;
}

/** A readable reason of a network failure: undici's `fetch failed` carries the system error as its cause. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string') return cause.code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<'slept' | 'aborted'> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve('aborted');
    const onAbort = () => {
      clearTimeout(timer);
      resolve('aborted');
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve('slept');
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Read = 'json' | 'text' | 'bytes' | 'stream';
type Answer = { response: Response; text?: string; bytes?: Uint8Array };

/** Sends calls to the gateway: authentication, timeouts, the retry table, errors. */
export class Transport {
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
  }

  /** A JSON answer (any 2xx), as the contract types it. */
  async json<T>(call: Call): Promise<T> {
    const { response, text = '' } = await this.#send(call, 'json');
    const body = parseJson(text);
    if (!isContractBody<T>(body)) {
      throw new PixGatewayError({
        status: response.status,
        message: messages.unexpectedBody(call.method, call.path, response.status),
        method: call.method,
        path: call.path,
        requestId: response.headers.get('x-request-id') ?? undefined,
        body,
      });
    }
    return body;
  }

  async text(call: Call): Promise<string> {
    return (await this.#send(call, 'text')).text ?? '';
  }

  async bytes(call: Call): Promise<Uint8Array> {
    return (await this.#send(call, 'bytes')).bytes ?? new Uint8Array();
  }

  /** The answer's bytes with its headers (a file's type and name). */
  async file(call: Call): Promise<{ bytes: Uint8Array; headers: Headers }> {
    const { bytes, response } = await this.#send(call, 'bytes');
    return { bytes: bytes ?? new Uint8Array(), headers: response.headers };
  }

  /** The answer's body as a stream: the timeout covers the wait for the answer's headers, the signal the whole read. */
  async stream(call: Call): Promise<ReadableStream<Uint8Array>> {
    const { response } = await this.#send(call, 'stream');
    return response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  }

  #url(call: Call): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) query.set(name, value);
    const search = query.toString();
    return `${this.#options.baseUrl}${call.path}${search ? `?${search}` : ''}`;
  }

  async #send(call: Call, read: Read): Promise<Answer> {
    const signal = call.options?.signal;
    const timeoutMs = call.options?.timeoutMs ?? this.#options.timeoutMs;
    const maxRetries = call.options?.maxRetries ?? this.#options.maxRetries;
    const fetchImpl = this.#options.fetch ?? globalThis.fetch;
    const url = this.#url(call);
    const common = { method: call.method, path: call.path, externalRef: call.externalRef };
    const aborted = (attempts: number, requestId: string | undefined) =>
      new PixGatewayAbortError({ ...common, status: 0, message: messages.aborted(call.method, call.path), requestId, attempts, cause: signal?.reason });
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.apiKey}`,
      accept: read === 'json' ? 'application/json' : '*/*',
      'user-agent': this.#options.userAgent ?? `pix-gateway-sdk/${VERSION} node/${process.versions.node}`,
    };
    // fetch writes a form's own multipart Content-Type (with its boundary).
    const body = call.form ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
    if (typeof body === 'string') headers['content-type'] = 'application/json';

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw aborted(attempt - 1, undefined);
      const requestId = randomUUID();
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const onAbort = () => controller.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      let outcome: Outcome;
      // Set once the whole answer was read (its headers only, for a stream): a body cut short is a network error or a timeout.
      let answer: Answer | undefined;
      let streaming = false;
      let failure: unknown;
      try {
        const response = await fetchImpl(url, { method: call.method, headers: { ...headers, 'x-request-id': requestId }, body, signal: controller.signal });
        if (read === 'stream' && response.ok) {
          // The answer has come: the timeout is over; the caller's signal still ends the read.
          streaming = true;
          return { response };
        }
        answer =
          read === 'bytes' && response.ok ? { response, bytes: new Uint8Array(await response.arrayBuffer()) } : { response, text: await response.text() };
        outcome = { kind: 'answer', status: response.status, message: errorMessageOf(parseJson(answer.text ?? '')) };
      } catch (error) {
        if (signal?.aborted) throw aborted(attempt, requestId);
        failure = error;
        outcome = timedOut ? { kind: 'timeout' } : { kind: 'network' };
      } finally {
        clearTimeout(timer);
        if (!streaming) signal?.removeEventListener('abort', onAbort);
      }
      if (answer?.response.ok) return answer;

      const retry = mayRetry(call.rule, outcome);
      if (retry && attempt <= maxRetries) {
        const wait = backoffMs(attempt, this.#options.retryDelayMs, this.#options.maxRetryDelayMs);
        if ((await abortableSleep(wait, signal)) === 'aborted') throw aborted(attempt, requestId);
        continue;
      }
      if (outcome.kind === 'timeout') {
        throw new PixGatewayTimeoutError({
          ...common,
          status: 0,
          message: messages.timeout(call.method, call.path, timeoutMs),
          requestId,
          retryable: retry,
          attempts: attempt,
        });
      }
      if (outcome.kind === 'network') {
        const message = messages.network(call.method, call.path, networkReason(failure));
        throw new PixGatewayConnectionError({ ...common, status: 0, message, requestId, retryable: retry, attempts: attempt, cause: failure });
      }
      const response = answer?.response;
      const parsed = parseJson(answer?.text ?? '');
      const Failure = outcome.status === 422 && outcome.message === REFUND_DURING_DISPUTE ? PixGatewayDisputeOpenError : PixGatewayError;
      throw new Failure({
        ...common,
        status: outcome.status,
        message: outcome.message ?? messages.noMessage(outcome.status),
        requestId: response?.headers.get('x-request-id') ?? requestId,
        retryable: retry || outcome.status === 429,
        body: parsed,
        attempts: attempt,
        transactionId: outcome.message === undefined ? undefined : WITHDRAWAL_INTERRUPTED.exec(outcome.message)?.[1],
      });
    }
  }
}
