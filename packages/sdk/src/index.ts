// @pix-gateway/sdk: the PIX gateway's merchant API for Node.js ≥ 20.19 (DESIGN.md §18, docs/sdk.md).
export {
  PixGateway,
  Charges,
  DueCharges,
  StaticQrCodes,
  Transactions,
  Statements,
  Withdrawals,
  Recipients,
  BalanceResource,
  Refunds,
  Infractions,
  Recurrences,
  Sandbox,
  type PixGatewayOptions,
  type RequestOptions,
  type TransactionList,
  type RecurrenceList,
} from './client.js';
export {
  PixGatewayError,
  PixGatewayDisputeOpenError,
  PixGatewayConnectionError,
  PixGatewayTimeoutError,
  PixGatewayAbortError,
  WebhookVerificationError,
  type PixGatewayErrorInit,
  type WebhookVerificationReason,
} from './errors.js';
export { generateExternalRef, externalRefFrom, EXTERNAL_REF_MAX_LENGTH } from './externalRef.js';
export { CursorList } from './paging.js';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from './webhooks.js';
export { VERSION } from './version.js';
export type * from './types.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
