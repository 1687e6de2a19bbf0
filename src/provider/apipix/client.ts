import type { z } from 'zod';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { PspSettings } from '../../config.js';
import { errorCode } from '../../platform/errors.js';
import { ProviderError, ProviderOutcomeUnknownError } from '../provider.js';

/** An RFC 7807 problem (API Pix) or a `{ nome, mensagem }` error (Efí's own endpoints), as the PSP answered it. */
export type PspProblem = { type?: string; title?: string; detail?: string; nome?: string; mensagem?: string };

/** The PSP answered 4xx: it refused the request; nothing was done. */
export class PspRefusal extends Error {
  override readonly name = 'PspRefusal';
  constructor(
    readonly status: number,
    readonly problem: PspProblem,
    /** An earlier attempt of the same call may have reached the PSP: this refusal does not prove it did nothing. */
    readonly afterDelivery = false,
  ) {
    super(`PSP refused the request (${status}${problem.type ? ` ${problem.type}` : ''}${problem.nome ? ` ${problem.nome}` : ''})`);
  }
}

/**
 * No answer the gateway can act on: `delivered` false when the request surely did not reach the PSP
 * (connection refused, TLS failure, the PSP said it is unavailable), true when it may have been
 * applied (a timeout or a broken connection after sending, a 5xx).
 */
export class PspUnavailable extends Error {
  override readonly name = 'PspUnavailable';
  constructor(
    readonly delivered: boolean,
    detail: string,
  ) {
    super(`PSP unavailable: ${detail}`);
  }
}

/** Errors of the connection phase: the request was never written. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  // The TLS handshake failed: no request was written.
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
]);
/** Waits between attempts of an idempotent call. */
const RETRY_DELAYS_MS = [200, 1000];

/**
 * The longest one call can take: each attempt may fetch a token, send, renew the token on a 401
 * and send again (four exchanges of at most `timeoutMs`), then the waits between attempts.
 */
export function callBudgetMs(timeoutMs: number): number {
  return (RETRY_DELAYS_MS.length + 1) * 4 * timeoutMs + RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);
}
/** A token is renewed this long before the PSP says it expires. */
const TOKEN_MARGIN_MS = 60_000;
/** The most of a PSP answer read: API Pix pages are bounded; anything larger is a fault. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export type PspCall = {
  method: 'GET' | 'PUT' | 'PATCH' | 'POST';
  /** Path under PSP_BASE_URL, its variable parts already encoded. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /**
   * Safe to send again (GET, and PUT keyed by our own ids): retried on a 5xx, a timeout or a broken
   * connection. Other calls are sent once.
   */
  idempotent: boolean;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The PSP connection of DESIGN.md §12: mutual TLS with the operator's certificate, OAuth2 client
 * credentials with the token kept until shortly before it expires, a timeout per call, retries
 * only where a repeat cannot do a thing twice. Answers the parsed JSON of a 2xx; throws PspRefusal
 * (4xx) or PspUnavailable.
 */
export class PspClient {
  private readonly agent: Agent;
  private token: { value: string; renewAt: number } | null = null;
  private tokenRequest: Promise<string> | null = null;

  constructor(private readonly settings: PspSettings) {
    this.agent = new Agent({
      connect: {
        cert: readFileSync(settings.certFile),
        key: readFileSync(settings.keyFile),
        ...(settings.caFile ? { ca: readFileSync(settings.caFile) } : {}),
        timeout: settings.timeoutMs,
      },
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
    });
  }

  async call(call: PspCall): Promise<unknown> {
    const attempts = call.idempotent ? RETRY_DELAYS_MS.length + 1 : 1;
    let failure: PspUnavailable | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1] ?? 0);
      try {
        return await this.attempt(call, true);
      } catch (error) {
        // A retry refused after an attempt that may have got through (e.g. 429 on the repeat) proves nothing about the first.
        if (error instanceof PspRefusal && failure?.delivered) throw new PspRefusal(error.status, error.problem, true);
        if (!(error instanceof PspUnavailable)) throw error;
        // Once any attempt may have reached the PSP, the call's outcome stays unknown.
        failure = new PspUnavailable(error.delivered || (failure?.delivered ?? false), error.message);
      }
    }
    throw failure ?? new PspUnavailable(false, 'no attempt');
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async attempt(call: PspCall, renewTokenOn401: boolean): Promise<unknown> {
    const token = await this.accessToken();
    const url = new URL(this.settings.baseUrl + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const answer = await this.send(url, {
      method: call.method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    if (answer.status === 401) {
      // Revoked or expired early: one new token, one more try; refused again, the credentials are wrong.
      if (!renewTokenOn401) throw new PspRefusal(401, problemOf(answer.body));
      this.token = null;
      return this.attempt(call, false);
    }
    return answer.body;
  }

  /** One HTTP exchange; 2xx → its JSON, 4xx → PspRefusal, anything else → PspUnavailable. */
  private async send(
    url: URL,
    options: { method: string; headers: Record<string, string>; body: string | undefined },
  ): Promise<{ status: number; body: unknown }> {
    let response;
    try {
      response = await request(url, { ...options, dispatcher: this.agent, signal: AbortSignal.timeout(this.settings.timeoutMs) });
    } catch (error) {
      throw new PspUnavailable(!NOT_SENT_CODES.has(errorCode(error) ?? ''), errorCode(error) ?? String(error));
    }
    const { statusCode } = response;
    let text: string;
    try {
      text = await readBounded(response.body);
    } catch (error) {
      throw new PspUnavailable(true, `response body: ${errorCode(error) ?? String(error)}`);
    }
    const body = parseJson(text);
    if (statusCode >= 200 && statusCode < 300) return { status: statusCode, body };
    if (statusCode === 401) return { status: 401, body };
    if (statusCode >= 400 && statusCode < 500) throw new PspRefusal(statusCode, problemOf(body));
    // 503: the PSP says it did not take the request (API Pix: service unavailable); other 5xx may have been applied.
    throw new PspUnavailable(statusCode !== 503, `HTTP ${statusCode}`);
  }

  /** The cached OAuth2 token, or a new one (one request at a time however many calls wait for it). */
  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return this.token.value;
    this.tokenRequest ??= this.fetchToken().finally(() => {
      this.tokenRequest = null;
    });
    return this.tokenRequest;
  }

  private async fetchToken(): Promise<string> {
    const basic = Buffer.from(`${encodeURIComponent(this.settings.clientId)}:${encodeURIComponent(this.settings.clientSecret)}`).toString('base64');
    const answer = await this.send(new URL(this.settings.tokenUrl), {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: 'grant_type=client_credentials',
    });
    const body = answer.body;
    if (answer.status === 401 || !isRecord(body) || typeof body.access_token !== 'string') {
      throw new PspRefusal(answer.status, { title: 'OAuth2 token refused: check PSP_CLIENT_ID and PSP_CLIENT_SECRET' });
    }
    const expiresInMs = (typeof body.expires_in === 'number' ? body.expires_in : 300) * 1000;
    this.token = { value: body.access_token, renewAt: Date.now() + Math.max(expiresInMs - TOKEN_MARGIN_MS, expiresInMs / 2) };
    return body.access_token;
  }
}

async function readBounded(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) throw new Error('response too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function problemOf(body: unknown): PspProblem {
  if (!isRecord(body)) return {};
  const text = (key: string) => (typeof body[key] === 'string' ? { [key]: body[key] } : {});
  return { ...text('type'), ...text('title'), ...text('detail'), ...text('nome'), ...text('mensagem') };
}

const PAGE_SIZE = 100;

/** The pages of an API Pix list (and of Efí's, which pages the same way), read one after the other. */
export async function* readPages<T extends { parametros: { paginacao: { quantidadeDePaginas: number } } }>(
  client: PspClient,
  schema: z.ZodType<T>,
  path: string,
  query: Record<string, string>,
): AsyncGenerator<T> {
  for (let page = 0; ; page++) {
    const parsed = schema.safeParse(
      await client.call({
        method: 'GET',
        path,
        query: { ...query, 'paginacao.paginaAtual': String(page), 'paginacao.itensPorPagina': String(PAGE_SIZE) },
        idempotent: true,
      }),
    );
    // A PSP answer is input like any other: a page of another shape is the PSP failing, not our caller.
    if (!parsed.success) throw new PspUnavailable(true, `${path}: a list page of an unexpected shape`);
    const answer = parsed.data;
    yield answer;
    if (page + 1 >= answer.parametros.paginacao.quantidadeDePaginas) return;
  }
}

/**
 * The services' reading of a failed call that moves money: refused or surely not received →
 * ProviderError (nothing happened: safe to undo); may have been applied → ProviderOutcomeUnknownError.
 */
export function refusedOrUnanswered(error: unknown): never {
  if (error instanceof PspRefusal) throw error.afterDelivery ? new ProviderOutcomeUnknownError(error.message) : new ProviderError(error.message);
  if (error instanceof PspUnavailable)
    throw error.delivered ? new ProviderOutcomeUnknownError(error.message) : new ProviderError(error.message, { unavailable: true });
  throw error;
}
