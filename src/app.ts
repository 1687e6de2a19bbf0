import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { accountAdminRoutes } from './accounts/adminRoutes.js';
import { alertAdminRoutes } from './alerts/adminRoutes.js';
import { auditAdminRoutes, auditOperatorActions } from './audit/adminRoutes.js';
import { merchantAuthentication } from './accounts/auth.js';
import { chargeAdminRoutes } from './charges/adminRoutes.js';
import { chargeRoutes } from './charges/routes.js';
import { staticQrRoutes } from './staticqr/routes.js';
import { recurrenceRoutes } from './recurrences/routes.js';
import { recurrenceEventBodySchema } from './recurrences/schemas.js';
import { isRecurrenceEvent } from './webhooks/events.js';
import { infractionAdminRoutes } from './infractions/adminRoutes.js';
import { holdAdminRoutes } from './holds/adminRoutes.js';
import { infractionRoutes } from './infractions/routes.js';
import { evidenceRoutes } from './infractions/evidenceRoutes.js';
import { refundRoutes } from './refunds/routes.js';
import { userAdminRoutes } from './users/adminRoutes.js';
import { operatorAdminRoutes } from './operators/adminRoutes.js';
import { apiReferenceRoutes } from './docs/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { FAVICON_SVG } from './platform/favicon.js';
import { backofficeRoutes } from './backoffice/routes.js';
import { ledgerAdminRoutes } from './ledger/adminRoutes.js';
import { fraudMarkAdminRoutes } from './fraudmarks/adminRoutes.js';
import { balanceRoutes } from './ledger/routes.js';
import { adminAuthentication } from './platform/adminAuth.js';
import { InvalidRequestError, RateLimitedError } from './errors.js';
import {
  answerClientError,
  hasUtf8Charset,
  inspectBody,
  MAX_BODY_DEPTH,
  registerErrorHandling,
  requestIdOf,
  requestLogView,
  SocketBudget,
} from './platform/http.js';
import { messages } from './messages.js';
import { completeDocument, DOCUMENT_TAGS, documentedRoutes } from './platform/openapi.js';
import './platform/validation.js';
import { operationsRoutes } from './operations/routes.js';
import { recipientAdminRoutes } from './recipients/adminRoutes.js';
import { recipientRoutes } from './recipients/routes.js';
import { webhookAdminRoutes } from './webhooks/adminRoutes.js';
import { openApiWebhooks } from './webhooks/schemas.js';
import { withdrawalAdminRoutes } from './withdrawals/adminRoutes.js';
import { providerSendAdminRoutes } from './sends/adminRoutes.js';
import { withdrawalRoutes } from './withdrawals/routes.js';
import { sandboxOutageRoutes, sandboxRoutes } from './sandbox/routes.js';
import { routingAdminRoutes } from './routing/adminRoutes.js';
import { reconciliationAdminRoutes } from './reconciliation/adminRoutes.js';
import { treasuryAdminRoutes } from './treasury/adminRoutes.js';
import type { Services } from './services.js';
import { transactionRoutes } from './transactions/routes.js';
import { historyRoutes } from './history/routes.js';
import { transactionAdminRoutes } from './transactions/adminRoutes.js';
import { eventBodySchema } from './transactions/schemas.js';
import { infractionSchema } from './infractions/schemas.js';
import { refundSchema } from './refunds/schemas.js';

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

export type AppOptions = {
  /** false = no logs; a stream = logs there (tests read them); default = stdout. */
  logger?: false | NodeJS.WritableStream;
};

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: { paths: ['req.headers.authorization', 'req.headers["x-forwarded-for"]', 'req.headers.cookie'], censor: '[redacted]' },
            // An invitation's one-time token is in its link: never in the logs.
            serializers: { req: requestLogView },
            ...(options.logger ? { stream: options.logger } : {}),
          },
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    bodyLimit: 64 * 1024,
    // Every response carries X-Request-Id and every log line of the request its `reqId`: the
    // caller's own id when it sends a sane one (a proxy's, a client's), else a new UUID.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // A client gets 10 s to send its headers and 30 s for the whole request (Node's defaults, 60 s
    // and 300 s, let slow clients hold sockets); timeouts are checked every second.
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 },
    // Requests Node's parser refuses (bad Content-Length, bare LF, NUL in a header, headers too large…).
    clientErrorHandler: answerClientError,
    // Malformed URLs (bad percent-encoding) answer in the one error shape too.
    frameworkErrors: (_error, _request, reply) => {
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Fastify types this reply with the route's generics, not yet known when the URL fails to parse
      void (reply as FastifyReply).code(400).send({ error: messages.urlInvalid });
    },
  }).withTypeProvider<ZodTypeProvider>();

  const sockets = new SocketBudget();
  app.addHook('onRequest', (request, reply, done) => {
    if (!sockets.admit(request.raw.socket)) {
      // A client that pipelines without reading its answers: no more work for it, and the connection closes.
      request.log.warn('closing a connection that does not read its responses');
      request.raw.socket.destroy();
      done(new RateLimitedError(messages.connectionOverloaded));
      return;
    }
    void reply.header('x-request-id', request.id);
    done();
  });
  const { metrics } = services;
  app.addHook('onResponse', (request, reply, done) => {
    sockets.release(request.raw.socket);
    // The route's template (not the URL: ids would make a series per transaction).
    const labels = { route: request.routeOptions.url ?? 'unmatched', method: request.method, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);

  // JSON only (no text/plain parser); an empty JSON body is "no body" (a POST without data),
  // and text PostgreSQL cannot store (NUL, unpaired surrogates) is refused before it gets there.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (!hasUtf8Charset(request.headers['content-type'])) return done(new InvalidRequestError(messages.bodyCharsetInvalid));
    let text: string;
    try {
      // Bytes that are not UTF-8 are refused, not silently replaced by U+FFFD.
      text = typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      return done(new InvalidRequestError(messages.bodyNotUtf8));
    }
    if (text === '') return done(null, undefined);
    // Fastify's default JSON parser answers through `done`, synchronously.
    void parseJson(request, text, (error, parsed) => {
      if (error) return done(error);
      const problem = inspectBody(parsed);
      if (problem === 'invalid_text') return done(new InvalidRequestError(messages.bodyInvalidText));
      if (problem === 'too_deep') return done(new InvalidRequestError(messages.bodyTooDeep(MAX_BODY_DEPTH)));
      done(null, parsed);
    });
  });

  // The document lists the APIs only, each operation with its operationId and error answers (docs/openapi.md).
  const webhooks = openApiWebhooks((name) =>
    isRecurrenceEvent(name) ? recurrenceEventBodySchema(name) : eventBodySchema(name, { infraction: infractionSchema, refund: refundSchema }),
  );
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'PIX gateway API',
        version: '1.0.0',
        description: 'Merchant API (/v1), operator API (/admin/v1) and sandbox (/sandbox/v1). Errors are `{ "error": "<mensagem>" }`.',
      },
      servers: [{ url: config.publicBaseUrl }],
      tags: [...DOCUMENT_TAGS],
      webhooks: webhooks.webhooks,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Merchant API key: `Authorization: Bearer svck_…`' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Operator token (ADMIN_TOKEN)' },
        },
      },
    },
    transform: documentedRoutes(jsonSchemaTransform),
    transformObject: completeDocument(jsonSchemaTransformObject, webhooks.schemas),
  });
  await app.register(apiReferenceRoutes);

  // Built once: the document is the same for every request (and large).
  let openApiDocument: string | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    openApiDocument ??= JSON.stringify(app.swagger());
    return reply.type('application/json; charset=utf-8').send(openApiDocument);
  });
  // Browsers and tools ask for it on their own; the pages name the same icon inline.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG),
  );
  await app.register(operationsRoutes(services, { metricsHere: config.metricsPort === undefined }));

  const authenticateMerchant = merchantAuthentication(services.accounts);
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticateMerchant);
      await v1.register(chargeRoutes(services));
      await v1.register(staticQrRoutes(services));
      await v1.register(recurrenceRoutes(services));
      await v1.register(historyRoutes(services));
      await v1.register(transactionRoutes(services));
      await v1.register(balanceRoutes(services));
      await v1.register(recipientRoutes(services));
      await v1.register(withdrawalRoutes(services));
      await v1.register(refundRoutes(services));
      await v1.register(infractionRoutes(services));
      await v1.register(evidenceRoutes(services));
    },
    { prefix: '/v1' },
  );
  const { sandbox } = services;
  if (sandbox) {
    // The simulated network's controls exist only with the simulator (DESIGN.md §12); a merchant
    // plays it only where no real PSP is configured: beside one, a merchant could pay its own charge
    // with play money and withdraw real money.
    if (config.providers.every((provider) => provider.kind === 'simulated')) {
      await app.register(
        async (scope) => {
          scope.addHook('onRequest', authenticateMerchant);
          await scope.register(sandboxRoutes({ sandbox }));
        },
        { prefix: '/sandbox/v1' },
      );
    }
    await app.register(
      async (scope) => {
        scope.addHook('onRequest', adminAuthentication(config.adminToken));
        scope.addHook('onSend', auditOperatorActions(services));
        await scope.register(sandboxOutageRoutes({ sandbox }));
      },
      { prefix: '/sandbox/v1' },
    );
  }
  await app.register(dashboardRoutes(services), { prefix: '/dashboard' });
  await app.register(backofficeRoutes(services), { prefix: '/backoffice' });
  await app.register(
    async (admin) => {
      admin.addHook('onRequest', adminAuthentication(config.adminToken));
      admin.addHook('onSend', auditOperatorActions(services));
      await admin.register(auditAdminRoutes(services));
      await admin.register(accountAdminRoutes(services));
      await admin.register(ledgerAdminRoutes(services));
      await admin.register(fraudMarkAdminRoutes(services));
      await admin.register(recipientAdminRoutes(services));
      await admin.register(withdrawalAdminRoutes(services));
      await admin.register(alertAdminRoutes(services));
      await admin.register(providerSendAdminRoutes(services));
      await admin.register(webhookAdminRoutes(services));
      await admin.register(transactionAdminRoutes(services));
      await admin.register(chargeAdminRoutes(services));
      await admin.register(infractionAdminRoutes(services));
      await admin.register(holdAdminRoutes(services));
      await admin.register(userAdminRoutes(services));
      await admin.register(operatorAdminRoutes(services));
      await admin.register(routingAdminRoutes(services));
      await admin.register(reconciliationAdminRoutes(services));
      await admin.register(treasuryAdminRoutes(services));
    },
    { prefix: '/admin/v1' },
  );
  return app;
}
