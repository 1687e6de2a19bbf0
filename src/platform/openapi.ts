// The served OpenAPI document (/openapi.json; docs/openapi.md): which routes it lists, the
// operationId of each, and the answers every route can give besides the ones it declares. The
// routes' own schemas (zod) stay what Fastify validates and serializes with; everything here
// changes only the document.
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import type { OpenAPIV3_1 } from 'openapi-types';
import { messages } from '../messages.js';
import { OPERATION_EXAMPLES } from './openapiExamples.js';

/**
 * The APIs the document describes: the merchant API, the sandbox, the operator API and the
 * probes. Everything else is hidden: the dashboard's and the back-office's pages and forms
 * (HTML, cookie sessions), their assets, /docs, /openapi.json itself and `/health` (the older name
 * of /healthz). A route outside these prefixes is a page until it is added here.
 */
const API_PATHS = /^\/(v1|sandbox\/v1|admin\/v1)\//;
export const PROBE_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

const isApiPath = (path: string): boolean => API_PATHS.test(path);
const isDocumentedPath = (path: string): boolean => isApiPath(path) || PROBE_PATHS.includes(path);

/**
 * The document's tags in the order a reader meets them (Swagger UI and the reference pages follow
 * it): the merchant API first, in the order a merchant uses it, then the sandbox, the operator
 * API and last the probes. A route's `tags` name one of these.
 */
export const DOCUMENT_TAGS: readonly OpenAPIV3_1.TagObject[] = [
  { name: 'Cobranças', description: 'Cobranças PIX dinâmicas (cob) e com vencimento (cobv), seus QR Codes e cancelamento.' },
  { name: 'QR Codes estáticos', description: 'QR Codes de valor fixo ou livre, pagos quantas vezes o pagador quiser.' },
  { name: 'Pix Automático', description: 'Recorrências autorizadas pelo pagador e seus ciclos.' },
  { name: 'Saques', description: 'Envio do saldo por PIX para uma chave ou um destinatário aprovado.' },
  { name: 'Destinatários', description: 'Contas de terceiros para saques, aprovadas pela equipe do gateway.' },
  { name: 'Saldo', description: 'Saldo disponível, bloqueado e sacável.' },
  { name: 'Transações', description: 'Consulta, filtros, exportação e extratos diários.' },
  { name: 'Devoluções', description: 'Devoluções totais ou parciais de cobranças pagas.' },
  { name: 'Disputas MED', description: 'Casos do Mecanismo Especial de Devolução: consulta, defesa e evidências.' },
  { name: 'Webhooks', description: 'Eventos que o gateway envia à URL cadastrada, assinados.' },
  { name: 'Sandbox', description: 'Controles do provedor simulado.' },
  { name: 'Operador: contas', description: 'Contas de lojistas e chaves de API.' },
  { name: 'Operador: usuários do painel', description: 'Convites de usuários do painel do lojista.' },
  { name: 'Operador: usuários do back-office', description: 'Convites de operadores do back-office.' },
  { name: 'Operador: razão', description: 'Saldo, ajustes e bloqueios cautelares.' },
  { name: 'Operador: destinatários', description: 'Análise de destinatários: aprovação, recusa e desativação.' },
  { name: 'Operador: saques', description: 'Saques em modo manual: aprovação e recusa.' },
  { name: 'Operador: cobranças', description: 'Cancelamento de cobranças e PIX retidos em bloqueio cautelar.' },
  { name: 'Operador: transações', description: 'Qualquer transação, com a conta e o provedor.' },
  { name: 'Operador: disputas MED', description: 'Casos MED: abertura, análise e encerramento.' },
  { name: 'Operador: marcações de fraude', description: 'Chaves e documentos marcados por fraude.' },
  { name: 'Operador: webhooks', description: 'URLs de webhook das contas, segredos e histórico de entregas.' },
  { name: 'Operador: envios aos PSPs', description: 'Envios de saques e devoluções aos PSPs e suas tentativas.' },
  { name: 'Operador: provedores', description: 'Provedores, roteamento, conciliação e tesouraria.' },
  { name: 'Operador: alertas', description: 'Alertas internos da equipe.' },
  { name: 'Operador: auditoria', description: 'Registro das ações dos operadores.' },
  { name: 'Operação', description: 'Sondas de saúde e métricas, sem autenticação.' },
];

/**
 * Every documented operation's operationId, keyed `METHOD /path` as in the document: a verb and
 * the resource in camelCase, the name an SDK method takes (`pix.charges.create` → createCharge);
 * the operator API's start with `admin`, the sandbox's with `sandbox`. Stable: an SDK is generated
 * from them, so a name never changes once published; a new route adds its line here (the OpenAPI
 * lint and test/app/openapi.test.ts fail without it).
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  // Merchant API (/v1)
  'POST /v1/pix': 'createCharge',
  'POST /v1/pix/due': 'createDueCharge',
  'POST /v1/pix/due/batch': 'createDueChargeBatch',
  'GET /v1/pix/due/{id}/amount': 'getDueChargeAmount',
  'POST /v1/pix/{id}/cancel': 'cancelCharge',
  'GET /v1/pix/{id}/qrcode': 'getChargeQrCode',
  'POST /v1/pix/static': 'createStaticQrCode',
  'GET /v1/pix/static': 'listStaticQrCodes',
  'GET /v1/pix/static/{id}': 'getStaticQrCode',
  'POST /v1/pix/static/{id}/deactivate': 'deactivateStaticQrCode',
  'GET /v1/pix/static/{id}/qrcode': 'getStaticQrCodeImage',
  'POST /v1/recurrences': 'createRecurrence',
  'GET /v1/recurrences': 'listRecurrences',
  'GET /v1/recurrences/{id}': 'getRecurrence',
  'PATCH /v1/recurrences/{id}': 'changeRecurrenceAmount',
  'POST /v1/recurrences/{id}/cancel': 'cancelRecurrence',
  'POST /v1/recurrences/{id}/cycles/{cycle}/cancel': 'cancelRecurrenceCycle',
  'GET /v1/transactions': 'listTransactions',
  'GET /v1/transactions/{id}': 'getTransaction',
  'GET /v1/transactions/export': 'exportTransactions',
  'GET /v1/statements/{date}': 'getStatement',
  'GET /v1/balance': 'getBalance',
  'POST /v1/recipients': 'createRecipient',
  'GET /v1/recipients': 'listRecipients',
  'POST /v1/withdraw': 'createWithdrawal',
  'POST /v1/transactions/{id}/refunds': 'createRefund',
  'GET /v1/transactions/{id}/refunds': 'listRefunds',
  'GET /v1/infractions': 'listInfractions',
  'GET /v1/infractions/{id}': 'getInfraction',
  'POST /v1/infractions/{id}/defense': 'defendInfraction',
  'POST /v1/infractions/{id}/evidence': 'uploadEvidence',
  'GET /v1/infractions/{id}/evidence': 'listEvidence',
  'GET /v1/infractions/{id}/evidence/{evidenceId}': 'downloadEvidence',
  // Sandbox (/sandbox/v1)
  'POST /sandbox/v1/pix/{id}/pay': 'sandboxPayCharge',
  'POST /sandbox/v1/pix/static/{id}/pay': 'sandboxPayStaticQrCode',
  'POST /sandbox/v1/pix/{id}/expire': 'sandboxExpireCharge',
  'POST /sandbox/v1/recurrences/{id}/authorize': 'sandboxAuthorizeRecurrence',
  'POST /sandbox/v1/recurrences/{id}/refuse': 'sandboxRefuseRecurrence',
  'POST /sandbox/v1/recurrences/{id}/cancel': 'sandboxCancelRecurrence',
  'POST /sandbox/v1/recurrences/{id}/cycles/next/debit': 'sandboxDebitNextRecurrenceCycle',
  'POST /sandbox/v1/recurrences/{id}/cycles/{cycle}/debit': 'sandboxDebitRecurrenceCycle',
  'POST /sandbox/v1/recurrences/{id}/cycles/{cycle}/cancel': 'sandboxCancelRecurrenceCycle',
  'POST /sandbox/v1/pix/{id}/fail': 'sandboxFailCharge',
  'POST /sandbox/v1/pix/{id}/late-payment': 'sandboxPayChargeLate',
  'POST /sandbox/v1/pix/{id}/infraction': 'sandboxOpenInfraction',
  'POST /sandbox/v1/infractions/{id}/close': 'sandboxCloseInfraction',
  'POST /sandbox/v1/pix/{id}/hold/release': 'sandboxReleaseHeldCharge',
  'POST /sandbox/v1/pix/{id}/hold/return': 'sandboxReturnHeldCharge',
  'POST /sandbox/v1/withdrawals/{id}/settle': 'sandboxSettleWithdrawal',
  'POST /sandbox/v1/refunds/{refundId}/settle': 'sandboxSettleRefund',
  'POST /sandbox/v1/provider/next-charge': 'sandboxFailNextCharge',
  'POST /sandbox/v1/provider/next-withdrawal': 'sandboxFailNextWithdrawal',
  'POST /sandbox/v1/provider/next-refund': 'sandboxFailNextRefund',
  'POST /sandbox/v1/dict/keys': 'sandboxRegisterDictKey',
  'POST /sandbox/v1/providers/{providerId}/outage': 'sandboxSetProviderOutage',
  // Operator API (/admin/v1)
  'GET /admin/v1/audit': 'adminListAuditEntries',
  'POST /admin/v1/accounts': 'adminCreateAccount',
  'GET /admin/v1/accounts/{accountId}': 'adminGetAccount',
  'PATCH /admin/v1/accounts/{accountId}': 'adminUpdateAccount',
  'POST /admin/v1/accounts/{accountId}/api-keys': 'adminCreateApiKey',
  'PATCH /admin/v1/api-keys/{keyId}': 'adminUpdateApiKey',
  'DELETE /admin/v1/api-keys/{keyId}': 'adminRevokeApiKey',
  'POST /admin/v1/accounts/{accountId}/adjustments': 'adminCreateAdjustment',
  'GET /admin/v1/accounts/{accountId}/balance': 'adminGetBalance',
  'POST /admin/v1/accounts/{accountId}/blocks': 'adminCreateBlock',
  'DELETE /admin/v1/blocks/{blockId}': 'adminReleaseBlock',
  'POST /admin/v1/fraud-marks': 'adminCreateFraudMark',
  'GET /admin/v1/fraud-marks': 'adminListFraudMarks',
  'DELETE /admin/v1/fraud-marks/{id}': 'adminRemoveFraudMark',
  'GET /admin/v1/recipients': 'adminListRecipients',
  'POST /admin/v1/accounts/{accountId}/recipients/{recipientId}/approve': 'adminApproveRecipient',
  'POST /admin/v1/accounts/{accountId}/recipients/{recipientId}/reject': 'adminRejectRecipient',
  'POST /admin/v1/accounts/{accountId}/recipients/{recipientId}/deactivate': 'adminDeactivateRecipient',
  'GET /admin/v1/transactions/{id}': 'adminGetTransaction',
  'POST /admin/v1/transactions/{id}/approve': 'adminApproveWithdrawal',
  'POST /admin/v1/transactions/{id}/reject': 'adminRejectWithdrawal',
  'POST /admin/v1/transactions/{id}/cancel': 'adminCancelCharge',
  'POST /admin/v1/transactions/{id}/infractions': 'adminOpenInfraction',
  'POST /admin/v1/transactions/{id}/hold/release': 'adminReleaseHeldCharge',
  'POST /admin/v1/transactions/{id}/hold/return': 'adminReturnHeldCharge',
  'POST /admin/v1/infractions/{id}/analysis': 'adminStartInfractionAnalysis',
  'POST /admin/v1/infractions/{id}/reject': 'adminRejectInfraction',
  'POST /admin/v1/infractions/{id}/accept': 'adminAcceptInfraction',
  'GET /admin/v1/alerts': 'adminListAlerts',
  'GET /admin/v1/provider-sends': 'adminListProviderSends',
  'GET /admin/v1/provider-sends/{id}': 'adminGetProviderSend',
  'POST /admin/v1/accounts/{accountId}/webhook-endpoints': 'adminCreateWebhookEndpoint',
  'GET /admin/v1/accounts/{accountId}/webhook-endpoints': 'adminListWebhookEndpoints',
  'GET /admin/v1/accounts/{accountId}/webhook-endpoints/{endpointId}': 'adminGetWebhookEndpoint',
  'DELETE /admin/v1/accounts/{accountId}/webhook-endpoints/{endpointId}': 'adminDeleteWebhookEndpoint',
  'POST /admin/v1/webhook-endpoints/{endpointId}/rotate-secret': 'adminRotateWebhookSecret',
  'GET /admin/v1/accounts/{accountId}/webhook-deliveries': 'adminListWebhookDeliveries',
  'POST /admin/v1/webhook-deliveries/{deliveryId}/resend': 'adminResendWebhookDelivery',
  'POST /admin/v1/accounts/{accountId}/users': 'adminInviteUser',
  'POST /admin/v1/operators': 'adminInviteOperator',
  'GET /admin/v1/providers': 'adminListProviders',
  'GET /admin/v1/routing': 'adminGetRoutingRules',
  'PUT /admin/v1/routing': 'adminReplaceRoutingRules',
  'POST /admin/v1/reconciliation': 'adminRunReconciliation',
  'GET /admin/v1/reconciliation': 'adminListReconciliationRuns',
  'GET /admin/v1/reconciliation/{runId}': 'adminGetReconciliationRun',
  'GET /admin/v1/reconciliation/{runId}/report.csv': 'adminGetReconciliationReport',
  'GET /admin/v1/treasury': 'adminGetTreasury',
  'POST /admin/v1/treasury/refresh': 'adminRefreshTreasury',
  // Probes
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'GET /metrics': 'getMetrics',
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A body that is not JSON (an image, a CSV file): its media type's schema. */
const mediaSchema = (mediaType: string): OpenAPIV3_1.SchemaObject =>
  mediaType === 'application/json'
    ? { type: 'object' }
    : mediaType.startsWith('text/') || mediaType === 'image/svg+xml'
      ? { type: 'string' }
      : { type: 'string', format: 'binary' };

/**
 * Fastify-swagger's `transform`: hides every route outside the APIs and probes, then runs `inner`
 * (the zod → JSON Schema conversion). A route that answers a file declares `produces` (QR
 * images, exports, CSV reports): OpenAPI 3 has no `produces`, and fastify-swagger would give its
 * media types to every answer, errors included; here they go to the 2xx answers only (a 200 is
 * described when the route has no 2xx schema) and the errors stay JSON. Only the document
 * changes: Fastify serializes with the route's own schema.
 */
export function documentedRoutes(inner: SwaggerTransform): SwaggerTransform {
  return (input) => {
    if (!isDocumentedPath(input.url)) return { schema: { hide: true }, url: input.url };
    const { schema, url } = inner(input);
    const { produces, ...rest } = schema;
    if (produces === undefined) return { schema, url };
    const mediaTypes = (body: (mediaType: string) => unknown) => Object.fromEntries(produces.map((mediaType) => [mediaType, { schema: body(mediaType) }]));
    const declared = Object.entries(isRecord(rest.response) ? rest.response : {});
    const response: Record<string, { description?: string; content: Record<string, { schema: unknown }> }> = Object.fromEntries(
      declared.map(([status, body]) => [status, { content: status.startsWith('2') ? mediaTypes(() => body) : { 'application/json': { schema: body } } }]),
    );
    if (!declared.some(([status]) => status.startsWith('2'))) response[200] = { description: 'OK', content: mediaTypes(mediaSchema) };
    return { schema: { ...rest, response }, url };
  };
}

const STATUS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Invalid request: the message names the field or the rule (docs/errors.md).',
  401: 'Missing or invalid credentials.',
  403: 'The account may not do this (KYC, block, IP allowlist, key type or holder rules).',
  404: 'Not found (another account’s resources are not found either).',
  413: 'Request body too large: a JSON body over 64 KB, an evidence file over 10 MB.',
  415: 'A file whose bytes are not of a type the operation takes.',
  422: 'Valid request that the current state refuses.',
  429: 'Rate limit reached: retry after waiting.',
  500: 'Unexpected failure.',
  502: 'The PSP failed; the operation’s description says whether a retry is safe.',
  503: 'The database is unavailable for a moment: retry (idempotency keys make it safe).',
};

const errorContent = (example?: string) => ({
  'application/json': { schema: { $ref: '#/components/schemas/Error' }, ...(example ? { example: { error: example } } : {}) },
});

type Security = OpenAPIV3_1.SecurityRequirementObject[];
const MERCHANT: Security = [{ apiKey: [] }];
const OPERATOR: Security = [{ adminToken: [] }];
const PUBLIC: Security = [];

/** Who may call a path when its route does not say (the onRequest hooks of app.ts): the API key, the operator token, or anyone (probes). */
const securityOf = (path: string): Security => (!isApiPath(path) ? PUBLIC : path.startsWith('/admin/') ? OPERATOR : MERCHANT);

/**
 * The error answers an operation can give besides the ones its route declares, all `{ error }`
 * (docs/errors.md): 401 (and 403 for the API key) from authentication; 400 when it takes input
 * (validation, and `URL inválida.` for a path parameter with malformed percent-encoding); 413
 * with a body (over 64 KB); 404 with path parameters; 500 always; 503 on the API paths, which all
 * use the database (authentication included).
 */
function implicitErrors(path: string, operation: OpenAPIV3_1.OperationObject, security: Security): [string, string | undefined][] {
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  const errors: [string, string | undefined][] = [];
  if (schemes.includes('apiKey')) errors.push(['401', messages.apiKeyMissing], ['403', messages.accountNotApproved]);
  if (schemes.includes('adminToken')) errors.push(['401', messages.adminTokenMissing]);
  if ((operation.parameters ?? []).length > 0 || operation.requestBody) errors.push(['400', undefined]);
  if (operation.requestBody) errors.push(['413', messages.bodyTooLarge]);
  if (path.includes('{')) errors.push(['404', undefined]);
  errors.push(['500', messages.internalError]);
  if (isApiPath(path)) errors.push(['503', messages.serviceUnavailable]);
  return errors;
}

/** What an operation gains: its operationId (unless its route names one), its security and every error answer, with descriptions. */
function completion(method: string, path: string, operation: OpenAPIV3_1.OperationObject): OpenAPIV3_1.OperationObject {
  const security = operation.security ?? securityOf(path);
  const responses: OpenAPIV3_1.ResponsesObject = {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const described = 'description' in response && response.description === 'Default Response' ? STATUS_DESCRIPTIONS[status] : undefined;
    responses[status] = described ? { ...response, description: described } : response;
  }
  for (const [status, example] of implicitErrors(path, operation, security)) {
    const declared = responses[status];
    if (declared === undefined) {
      responses[status] = { description: STATUS_DESCRIPTIONS[status] ?? 'Error', content: errorContent(example) };
      continue;
    }
    // A declared error answer without an example gets this one.
    const json = example && 'content' in declared ? declared.content?.['application/json'] : undefined;
    if ('content' in declared && json && json.example === undefined) {
      responses[status] = { ...declared, content: { ...declared.content, 'application/json': { ...json, example: { error: example } } } };
    }
  }
  const operationId = operation.operationId ?? OPERATION_IDS[`${method.toUpperCase()} ${path}`];
  return { ...(operationId ? { operationId } : {}), security, responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))) };
}

/** A JSON body (request or answer) with its example, when it has a JSON schema. */
function exampled<T extends OpenAPIV3_1.RequestBodyObject | OpenAPIV3_1.ResponseObject | OpenAPIV3_1.ReferenceObject>(body: T, example: unknown): T {
  if (!('content' in body) || !body.content?.['application/json']) return body;
  return { ...body, content: { ...body.content, 'application/json': { ...body.content['application/json'], example } } };
}

/** The operation with its examples (openapiExamples.ts), if it has some. */
function withExamples(key: string, operation: OpenAPIV3_1.OperationObject): OpenAPIV3_1.OperationObject {
  const examples = OPERATION_EXAMPLES[key];
  if (!examples) return operation;
  const responses = Object.fromEntries(
    Object.entries(operation.responses ?? {}).map(([status, response]) => {
      const example = examples.responses[status];
      return [status, example === undefined ? response : exampled(response, example)];
    }),
  );
  const requestBody = operation.requestBody && examples.request !== undefined ? exampled(operation.requestBody, examples.request) : operation.requestBody;
  return { ...operation, ...(requestBody ? { requestBody } : {}), responses };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Names of the component schemas a part of the document refers to. */
const referencedSchemas = (part: unknown): string[] =>
  [...JSON.stringify(part ?? null).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].flatMap((match) =>
    match[1] === undefined ? [] : [decodeURIComponent(match[1])],
  );

/**
 * The component schemas the document uses, and the ones it is given (`extra`, e.g. webhook
 * payloads), without the ones nothing refers to (the zod provider emits an `…Input` twin of every
 * registered schema, used or not).
 */
function usedSchemas(document: OpenAPIV3_1.Document, extra: Record<string, OpenAPIV3_1.SchemaObject>): Record<string, OpenAPIV3_1.SchemaObject> {
  const all = { ...document.components?.schemas, ...extra };
  const used = new Set([...referencedSchemas(document.paths), ...referencedSchemas(document.webhooks), ...Object.keys(extra)]);
  for (let pending = [...used]; pending.length > 0;) {
    pending = referencedSchemas(pending.map((name) => all[name])).filter((name) => !used.has(name));
    for (const name of pending) used.add(name);
  }
  return Object.fromEntries(Object.entries(all).filter(([name]) => used.has(name)));
}

const isOpenApi31 = (document: ReturnType<SwaggerTransformObject>): document is OpenAPIV3_1.Document =>
  'openapi' in document && typeof document.openapi === 'string' && document.openapi.startsWith('3.1') && isRecord(document.info);

/**
 * Fastify-swagger's `transformObject`: runs `inner` (the zod components), then gives every
 * operation its operationId, its security (explicitly none for the probes) and the error
 * answers it can give, adds `schemas` (webhook payloads) and drops unused components.
 */
export function completeDocument(inner: SwaggerTransformObject, schemas: Record<string, OpenAPIV3_1.SchemaObject> = {}): SwaggerTransformObject {
  return (documentObject) => {
    const document = inner(documentObject);
    if (!isOpenApi31(document)) return document;
    // The operations are this generation's own objects (fastify-swagger builds them anew for each document).
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS) {
        const operation = item?.[method];
        if (operation) Object.assign(operation, withExamples(`${method.toUpperCase()} ${path}`, { ...operation, ...completion(method, path, operation) }));
      }
    }
    return { ...document, components: { ...document.components, schemas: usedSchemas(document, schemas) } };
  };
}
