import { expect } from 'vitest';
import { chargeBody, type Gateway, type Merchant } from './gateway.js';

/**
 * Merchant and operator API shortcuts over a started `Gateway` (test/helpers/gateway.ts), and the
 * readers of what they wrote. Each takes the gateway first, so it serves any gateway of a test file.
 */

const HOUR = 3_600_000;

/** Moves the gateway's clock to one second past the next UTC hour, so a test's requests share one hourly window. */
export function startNextHour(gateway: Gateway): void {
  const now = gateway.clock.now().getTime();
  gateway.clock.advance(HOUR - (now % HOUR) + 1000);
}

/** How many times each value occurs (HTTP statuses, event names…), e.g. `{ 201: 1, 200: 39 }`. */
export const countBy = (values: readonly (string | number)[]) =>
  values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});

/** The merchant's `available` balance (GET /v1/balance). */
export const balanceOf = async (gateway: Gateway, merchant: Merchant) => (await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body.available;

/** Credits the merchant's balance with an operator adjustment (expects 201). */
export async function fund(gateway: Gateway, merchant: Merchant, amountCents: number): Promise<void> {
  const credit = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents, reason: 'fundos de teste' });
  expect(credit.status).toBe(201);
}

/** Creates a charge from `chargeBody(overrides)` (expects 201) and returns its transactionId. */
export async function createCharge(gateway: Gateway, merchant: Merchant, overrides: Record<string, unknown> = {}): Promise<string> {
  const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody(overrides) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.transactionId;
}

/** Creates a charge and pays it through the sandbox (expects 201, then 200); returns its transactionId. */
export async function paidCharge(gateway: Gateway, merchant: Merchant): Promise<string> {
  const transactionId = await createCharge(gateway, merchant);
  const paid = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey });
  expect(paid.status).toBe(200);
  return transactionId;
}

/** The transaction as the merchant reads it (the body of GET /v1/transactions/{id}). */
export const readTransaction = async (gateway: Gateway, merchant: Merchant, transactionId: string) =>
  (await gateway.call('GET', `/v1/transactions/${transactionId}`, { key: merchant.apiKey })).body;

/** The events written for a transaction, oldest first, with their payloads parsed. */
export async function eventsOf(gateway: Gateway, transactionId: string) {
  const rows = await gateway.database.db
    .selectFrom('events')
    .select(['name', 'payload'])
    .where('transactionId', '=', transactionId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ name: row.name, payload: JSON.parse(row.payload) as Record<string, unknown> }));
}

/** The names of the events written for a transaction, oldest first. */
export const eventNames = async (gateway: Gateway, transactionId: string) => (await eventsOf(gateway, transactionId)).map((event) => event.name);

/** POST /v1/withdraw with the merchant's key. */
export const withdraw = (gateway: Gateway, merchant: Merchant, body: Record<string, unknown>) =>
  gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body });

/** Settles a withdrawal through the sandbox: `{ outcome: 'paid' | 'failed' | 'returned', amountCents? }`. */
export const settleWithdrawal = (gateway: Gateway, merchant: Merchant, transactionId: string, body: Record<string, unknown>) =>
  gateway.call('POST', `/sandbox/v1/withdrawals/${transactionId}/settle`, { key: merchant.apiKey, body });

/** POST /v1/recipients with the merchant's key. */
export const registerRecipient = (gateway: Gateway, merchant: Merchant, body: unknown) =>
  gateway.call('POST', '/v1/recipients', { key: merchant.apiKey, body });

/** The operator approves, rejects or deactivates one of the merchant's recipients. */
export const reviewRecipient = (gateway: Gateway, merchant: Merchant, recipientId: string, action: 'approve' | 'reject' | 'deactivate', body?: unknown) =>
  gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/recipients/${recipientId}/${action}`, body);

/** Registers a webhook endpoint of the merchant through the operator API (expects 201); the endpoint with its secret. */
export async function registerEndpoint(gateway: Gateway, merchant: Merchant, body: Record<string, unknown>) {
  const reply = await gateway.admin<{ endpointId: string; secret: string; url: string; events: string[] }>(
    'POST',
    `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints`,
    body,
  );
  expect(reply.status).toBe(201);
  return reply.body;
}

/** Waits until `check` passes (a PSP's notifications are applied after the PSP is answered). */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
