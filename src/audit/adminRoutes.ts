import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses, listLimitQuery } from '../platform/schemas.js';
import type { AuditService } from './service.js';
import type { TransactionService } from '../transactions/service.js';
import { presentAuditEntry } from './service.js';
import { ADMIN_TOKEN_ACTOR } from '../platform/adminAuth.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

function parsed(payload: unknown): unknown {
  if (typeof payload !== 'string' || payload === '') return undefined;
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

const textField = (value: unknown, name: string): string | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const field: unknown = Reflect.get(value, name);
  return typeof field === 'string' ? field : undefined;
};

/**
 * Records every successful operator action of /admin/v1 in the audit log before its answer leaves
 * (onSend): the actor, the route, its account and object, the request body, the object before
 * (when the handler put it in `request.auditBefore`) and the answer. A failure to record answers
 * 500 (and is logged): an operator never sees a success that is not in the log.
 */
export function auditOperatorActions({ audit, transactions }: { audit: AuditService; transactions: TransactionService }) {
  return async function auditOperatorAction(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    if (READS.has(request.method) || reply.statusCode >= 400) return payload;
    const after = parsed(payload);
    const params = request.params;
    const transactionId = request.routeOptions.url?.includes('/transactions/:id') ? textField(params, 'id') : textField(after, 'transactionId');
    const accountId =
      request.auditAccountId ??
      textField(params, 'accountId') ??
      textField(after, 'accountId') ??
      (transactionId && isId(transactionId) ? await transactions.accountOf(transactionId) : undefined);
    const paramValues = Object.entries(typeof params === 'object' && params !== null ? params : {})
      .filter(([name, value]) => name !== 'accountId' && typeof value === 'string')
      .map(([, value]) => String(value));
    await audit.record({
      actor: request.auditActor ?? ADMIN_TOKEN_ACTOR,
      action: `${request.method} ${request.routeOptions.url ?? request.url}`,
      accountId: accountId && isId(accountId) ? accountId : null,
      objectId: paramValues.at(-1) ?? textField(after, 'accountId') ?? null,
      changes: { input: request.body ?? undefined, before: request.auditBefore, after },
    });
    return payload;
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The object an operator action changes, as it was (set by the handler for the audit log). */
    auditBefore?: unknown;
    /** Who acts, when not the admin token (an operator user of the back-office). */
    auditActor?: string;
    /** The account acted on, when neither the route's parameters nor its answer name it (a webhook resend). */
    auditAccountId?: string;
  }
}

const auditQuery = z.object({
  accountId: z.string().optional(),
  actor: z.string().max(200).optional(),
  limit: listLimitQuery,
});

const auditEntrySchema = z
  .object({
    auditId: z.string(),
    at: z.int().meta({ description: 'Unix milliseconds.' }),
    actor: z.string().meta({ description: "'admin-token', or 'operator:<operator user id>'." }),
    action: z.string().meta({ description: "The route, e.g. 'POST /admin/v1/transactions/:id/approve'." }),
    accountId: z.string().nullable(),
    objectId: z.string().nullable(),
    changes: z
      .object({ input: z.unknown().optional(), before: z.unknown().optional(), after: z.unknown().optional() })
      .meta({ description: 'Request body, the object before (when the action changes one) and the answer; documents masked, secrets redacted.' }),
  })
  .meta({ id: 'AuditEntry' });

/** GET /admin/v1/audit: the log, newest first. */
export const auditAdminRoutes =
  ({ audit }: { audit: AuditService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/audit',
      {
        schema: {
          tags: ['Operador: auditoria'],
          summary: 'Registro de auditoria das ações dos operadores, do mais recente ao mais antigo',
          security: [{ adminToken: [] }],
          querystring: auditQuery,
          response: { 200: z.object({ entries: z.array(auditEntrySchema), count: z.int() }), ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        const { accountId, actor, limit } = request.query;
        if (accountId !== undefined && !isId(accountId)) throw new InvalidRequestError(messages.accountIdInvalid);
        const rows = await audit.list({ accountId, actor, limit });
        return { entries: rows.map(presentAuditEntry), count: rows.length };
      },
    );
  };
