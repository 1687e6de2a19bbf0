import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ZodError } from 'zod';
import { messages } from '../messages.js';
import { DomainError, httpStatusOf } from '../errors.js';
import { errorCode, isDatabaseUnavailable } from './errors.js';

/** Fastify's own client-error codes, answered in Portuguese in the one error shape. */
const frameworkClientErrors: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 400, message: messages.bodyNotJson },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: messages.bodyMalformed },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: messages.bodyEmpty },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: messages.bodyMalformed },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: messages.bodyTooLarge },
};

/** One error format for every route: `{ error }`; 5xx never reveal internals. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ error: messages.routeNotFound });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError) {
      // The spec's own answer to a write whose database went away (POST /v1/pix, /v1/withdraw): logged as the 503 would be.
      if (isDatabaseUnavailable(error.cause)) request.log.warn({ err: error.cause }, 'database unavailable');
      return reply.code(httpStatusOf(error)).send({ error: error.message });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const first = error.validation[0];
      return reply.code(400).send({ error: first?.message ?? messages.requestInvalid });
    }
    if (error instanceof ZodError) {
      // Bodies a handler checks itself against per-account rules (POST /v1/withdraw).
      return reply.code(400).send({ error: error.issues[0]?.message ?? messages.requestInvalid });
    }
    const known = error.code ? frameworkClientErrors[error.code] : undefined;
    if (known) return reply.code(known.status).send({ error: known.message });
    if (error instanceof SyntaxError || (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)) {
      // JSON.parse failures and other framework 4xx (e.g. prototype poisoning): the client's input.
      const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
      return reply.code(status).send({ error: status === 400 ? messages.bodyMalformed : messages.requestInvalid });
    }
    if (isDatabaseUnavailable(error)) {
      // The statement may or may not have run: the client retries (idempotency keys make that safe).
      request.log.warn({ err: error }, 'database unavailable');
      return reply.code(503).send({ error: messages.serviceUnavailable });
    }
    request.log.error({ err: error }, 'unexpected failure');
    return reply.code(500).send({ error: messages.internalError });
  });
}

/**
 * Answers a request Node's HTTP parser refused, on the raw socket (there is no request object),
 * in the one error shape, and closes the connection: after a framing error the rest of the
 * stream cannot be trusted.
 */
export function answerClientError(error: Error, socket: Duplex): void {
  const code = errorCode(error);
  if (code === 'ECONNRESET' || code === 'EPIPE' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message = status === 431 ? messages.headersTooLarge : status === 408 ? messages.requestTimeout : messages.requestMalformed;
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Memory per connection stays bounded whatever the client does. A client may pipeline requests
 * and never read the answers: every answer would wait in memory. A connection is refused more
 * work when it has too many requests unanswered (answers not yet handed to the network) or too
 * many bytes the client has not taken.
 */
export class SocketBudget {
  static readonly MAX_UNANSWERED = 16;
  static readonly MAX_UNSENT_BYTES = 1024 * 1024;
  private readonly unanswered = new WeakMap<Socket, number>();

  /** Counts a new request on the socket; false when the socket is over its budget. */
  admit(socket: Socket): boolean {
    const count = (this.unanswered.get(socket) ?? 0) + 1;
    if (count > SocketBudget.MAX_UNANSWERED || socket.writableLength > SocketBudget.MAX_UNSENT_BYTES) return false;
    this.unanswered.set(socket, count);
    return true;
  }

  /** A response of the socket was handed to the network. */
  release(socket: Socket): void {
    const count = this.unanswered.get(socket);
    if (count !== undefined) this.unanswered.set(socket, count - 1);
  }
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the incoming X-Request-Id when it is short printable ASCII (no log injection), else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
}

/** A Content-Type without a charset, or with UTF-8's (JSON is UTF-8: RFC 8259). */
export function hasUtf8Charset(contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset);
}

/** How deep a JSON body may nest: the API's bodies use 4 levels; anything far deeper is refused before it is walked. */
export const MAX_BODY_DEPTH = 32;

/**
 * What is wrong with a parsed body, if anything: `invalid_text` when a string (keys included) is
 * not well-formed UTF-16 or holds NUL, which PostgreSQL text and jsonb refuse; `too_deep` when it
 * nests beyond MAX_BODY_DEPTH. Walked with an explicit stack: a body's depth never reaches the
 * call stack.
 */
const isStorableText = (text: string): boolean => text.isWellFormed() && !text.includes('\u0000');

export function inspectBody(body: unknown): 'ok' | 'invalid_text' | 'too_deep' {
  const pending: { value: unknown; depth: number }[] = [{ value: body, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next;
    if (typeof value === 'string') {
      if (!isStorableText(value)) return 'invalid_text';
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_BODY_DEPTH) return 'too_deep';
      for (const [key, item] of Object.entries(value)) {
        if (!isStorableText(key)) return 'invalid_text';
        pending.push({ value: item, depth: depth + 1 });
      }
    }
  }
  return 'ok';
}

/** A request as its log lines show it: the token of an invitation link (dashboard or back-office) replaced. */
export function requestLogView(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: request.url.replace(/\/(dashboard|backoffice)\/convite\/[^/?#]+/, '/$1/convite/[redacted]'),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket.remotePort,
  };
}
