import type { z } from 'zod';
import type { accountResponse } from '../../src/accounts/adminSchemas.js';
import type { fraudMarkSchema } from '../../src/fraudmarks/schemas.js';
import type { infractionSchema } from '../../src/infractions/schemas.js';
import type { operatorRecipientListResponse, operatorRecipientSchema } from '../../src/recipients/schemas.js';
import type { differenceSchema, reconciliationRunSchema } from '../../src/reconciliation/schemas.js';
import type { providerHealthSchema, routingRulesSchema } from '../../src/routing/schemas.js';
import type { treasurySchema } from '../../src/treasury/adminRoutes.js';
import type { operatorTransactionSchema, transactionSchema } from '../../src/transactions/schemas.js';
import type { invitedOperatorResponse } from '../../src/operators/schemas.js';
import type { invitedUserResponse } from '../../src/users/schemas.js';
import type {
  attemptListResponse,
  createdEndpointSchema,
  endpointListResponse,
  endpointSchema,
  resendResponse,
  rotateSecretResponse,
} from '../../src/webhooks/schemas.js';
import type { Method, SuccessBody, TemplateIn } from './contract.js';

/**
 * Bodies of the operator API (/admin/v1), which the merchant document (and so the SDK's types)
 * leaves out: read from the routes' zod response schemas where they are exported, written here as
 * the route declares them where they are inline. `gateway.admin` types a reply by this table.
 */

export type Account = z.infer<typeof accountResponse>;
/** POST /admin/v1/accounts/{id}/api-keys (the key is shown once). */
export type CreatedApiKey = { keyId: string; apiKey: string; prefix: string };
/** PATCH /admin/v1/api-keys/{id}: the key's own IP allowlist (null: the account's applies). */
export type ApiKeySettings = { keyId: string; accountId: string; prefix: string; ipAllowlist: string[] | null; revoked: boolean };
export type FraudMark = z.infer<typeof fraudMarkSchema>;
export type FraudMarkPage = { marks: FraudMark[]; count: number; hasMore: boolean };
/** One entry of GET /admin/v1/audit (documents masked, secrets redacted in `changes`). */
export type AuditEntry = {
  auditId: string;
  at: number;
  actor: string;
  action: string;
  accountId: string | null;
  objectId: string | null;
  changes: { input?: unknown; before?: unknown; after?: unknown };
};
export type AuditPage = { entries: AuditEntry[]; count: number };
export type OperatorTransaction = z.infer<typeof operatorTransactionSchema>;
type TransactionBody = z.infer<typeof transactionSchema>;
export type Adjustment = { adjustmentId: string; accountId: string; amountCents: number; reason: string; available: number; createdAt: number };
export type Block = { blockId: string; accountId: string; amountCents: number; reason: string; status: 'active'; createdAt: number };
export type AdminBalance = { available: number; blocked: number; withdrawable: number };
export type ReconciliationRun = z.infer<typeof reconciliationRunSchema>;
export type ProviderHealth = z.infer<typeof providerHealthSchema>;
export type RoutingRules = z.infer<typeof routingRulesSchema>;
/** GET /admin/v1/treasury: per PSP, the ledger's figures against the PSP's own balance. */
export type ProviderTreasury = z.infer<typeof treasurySchema>;
/** GET /admin/v1/provider-sends/{id}: a send to the PSP whose outcome needs a person. */
export type ProviderSend = {
  sendId: string;
  kind: 'withdrawal' | 'refund';
  accountId: string;
  state: 'unsent' | 'sent' | 'watching' | 'owed' | 'closed';
  acknowledged: boolean;
  attempts: number;
  checks: number;
  nextCheckAt: number | null;
  deadlineAt: number;
  escalatedAt: number | null;
  blockId: string | null;
  createdAt: number;
  history: { at: string; step: 'send' | 'check' | 'decision'; answer: string; detail?: string }[];
};
export type Alert = {
  alertId: string;
  accountId: string | null;
  kind: string;
  severity: 'normal' | 'high';
  transactionId: string | null;
  details: Record<string, unknown>;
  createdAt: number;
};
type Infraction = z.infer<typeof infractionSchema>;
/** GET /admin/v1/accounts/{id}/webhook-deliveries: delivery attempts, newest first. */
export type WebhookAttemptPage = z.infer<typeof attemptListResponse>;

/** The success body of each operator route, by path template and method. */
export type AdminRoutes = {
  '/admin/v1/accounts': { POST: Account };
  '/admin/v1/accounts/{accountId}': { GET: Account; PATCH: Account };
  '/admin/v1/accounts/{accountId}/api-keys': { POST: CreatedApiKey };
  '/admin/v1/api-keys/{keyId}': { PATCH: ApiKeySettings };
  '/admin/v1/accounts/{accountId}/adjustments': { POST: Adjustment };
  '/admin/v1/accounts/{accountId}/balance': { GET: AdminBalance };
  '/admin/v1/accounts/{accountId}/blocks': { POST: Block };
  '/admin/v1/accounts/{accountId}/users': { POST: z.infer<typeof invitedUserResponse> };
  '/admin/v1/accounts/{accountId}/webhook-endpoints': { POST: z.infer<typeof createdEndpointSchema>; GET: z.infer<typeof endpointListResponse> };
  '/admin/v1/accounts/{accountId}/webhook-endpoints/{endpointId}': { GET: z.infer<typeof endpointSchema> };
  '/admin/v1/accounts/{accountId}/webhook-deliveries': { GET: WebhookAttemptPage };
  '/admin/v1/webhook-endpoints/{endpointId}/rotate-secret': { POST: z.infer<typeof rotateSecretResponse> };
  '/admin/v1/webhook-deliveries/{deliveryId}/resend': { POST: z.infer<typeof resendResponse> };
  '/admin/v1/accounts/{accountId}/recipients/{recipientId}/approve': { POST: z.infer<typeof operatorRecipientSchema> };
  '/admin/v1/accounts/{accountId}/recipients/{recipientId}/reject': { POST: z.infer<typeof operatorRecipientSchema> };
  '/admin/v1/accounts/{accountId}/recipients/{recipientId}/deactivate': { POST: z.infer<typeof operatorRecipientSchema> };
  '/admin/v1/recipients': { GET: z.infer<typeof operatorRecipientListResponse> };
  '/admin/v1/fraud-marks': { GET: FraudMarkPage; POST: FraudMark };
  '/admin/v1/audit': { GET: AuditPage };
  '/admin/v1/transactions/{id}': { GET: OperatorTransaction };
  '/admin/v1/transactions/{id}/approve': { POST: TransactionBody };
  '/admin/v1/transactions/{id}/reject': { POST: TransactionBody };
  '/admin/v1/transactions/{id}/cancel': { POST: TransactionBody };
  '/admin/v1/transactions/{id}/infractions': { POST: Infraction };
  '/admin/v1/infractions/{id}/analysis': { POST: Infraction };
  '/admin/v1/infractions/{id}/reject': { POST: Infraction };
  '/admin/v1/infractions/{id}/accept': { POST: Infraction };
  '/admin/v1/reconciliation': { POST: { runs: ReconciliationRun[] }; GET: { runs: ReconciliationRun[] } };
  '/admin/v1/reconciliation/{runId}': { GET: ReconciliationRun & { differences: z.infer<typeof differenceSchema>[] } };
  '/admin/v1/providers': { GET: { providers: ProviderHealth[] } };
  '/admin/v1/routing': { GET: RoutingRules; PUT: RoutingRules };
  '/admin/v1/treasury': { GET: { providers: ProviderTreasury[] } };
  '/admin/v1/treasury/refresh': { POST: { providers: ProviderTreasury[] } };
  '/admin/v1/provider-sends': { GET: { sends: ProviderSend[] } };
  '/admin/v1/provider-sends/{id}': { GET: ProviderSend };
  '/admin/v1/alerts': { GET: { alerts: Alert[] } };
  '/admin/v1/operators': { POST: z.infer<typeof invitedOperatorResponse> };
};

/** The success body of an operator call by its method and path; `unknown` off the table (and for 204s). */
export type AdminBody<M extends Method, Path extends string> = [TemplateIn<keyof AdminRoutes, Path>] extends [never]
  ? unknown
  : AdminRoutes[TemplateIn<keyof AdminRoutes, Path>] extends infer Route
    ? M extends keyof Route
      ? Route[M]
      : unknown
    : unknown;

/** The success body of any call to the gateway: the operator table for /admin, the merchant document otherwise. */
export type BodyOf<M extends Method, Path extends string> = Path extends `/admin/${string}` ? AdminBody<M, Path> : SuccessBody<M, Path>;
