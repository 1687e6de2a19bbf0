import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ZodError } from 'zod';
import { messages } from '../messages.js';
import { DomainError, httpStatusOf } from '../errors.js';

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
    if (error instanceof DomainError) return reply.code(httpStatusOf(error)).send({ error: error.message });
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
    request.log.error({ err: error }, 'unexpected failure');
    return reply.code(500).send({ error: messages.internalError });
  });
}

/** True when every string (keys included) is well-formed UTF-16 without NUL, which PostgreSQL text and jsonb refuse. */
export function hasOnlyStorableText(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed() && !value.includes('\u0000');
  if (Array.isArray(value)) return value.every(hasOnlyStorableText);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => hasOnlyStorableText(key) && hasOnlyStorableText(item));
  }
  return true;
}
