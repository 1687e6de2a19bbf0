import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIntegration } from '../../examples/merchant-integration/main.js';
import { fund } from '../helpers/api.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';

// examples/merchant-integration, run as a merchant would against a real gateway: a charge, its
// verified webhook, payment through the sandbox, a refund and its webhook. A refund is paid from
// the balance and the charge's fee is kept (docs/refunds.md): each merchant has other money in.

let gateway: Gateway;
const logger = { error: () => undefined, warn: () => undefined };

beforeAll(async () => {
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true', SANDBOX_SETTLE_MS: 'manual' });
  gateway.services.webhookDispatcher.start(logger);
});
afterAll(async () => {
  await gateway.services.webhookDispatcher.stop();
  await gateway.close();
});

describe('examples/merchant-integration', () => {
  it('charges an order, sees it paid by a verified webhook, refunds it', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 10_000);
    const lines: string[] = [];
    let endpointId = '';
    const result = await runIntegration({
      baseUrl: gateway.url,
      apiKey: merchant.apiKey,
      orderId: '1001',
      log: (line) => lines.push(line),
      async registerWebhook(url) {
        const reply = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints`, {
          url,
          events: ['transaction.paid', 'transaction.refunded'],
        });
        expect(reply.status).toBe(201);
        endpointId = reply.body.endpointId;
        return {
          secret: reply.body.secret,
          remove: async () =>
            expect((await gateway.admin('DELETE', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints/${endpointId}`)).status).toBe(204),
        };
      },
    });

    expect(result.charge).toMatchObject({ status: 'refunded', amountCents: 2500, externalRef: 'order:1001', refundedCents: 2500 });
    expect(result.refund).toMatchObject({ kind: 'merchant', status: 'refunded', amountCents: 2500, externalRef: 'refund:1001' });
    expect(result.events.map((event) => event.event)).toEqual(['transaction.paid', 'transaction.refunded']);
    expect(result.events.every((event) => 'transactionId' in event && event.transactionId === result.charge.transactionId)).toBe(true);
    expect(result.refused).toBe(0);
    expect(lines.filter((line) => line.startsWith('paid by '))).toHaveLength(1);
    // The example removed its endpoint at the end.
    expect((await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints/${endpointId}`)).status).toBe(404);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('run again for the same order, it charges nothing new: the order’s externalRef answers the same charge', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 10_000);
    const register = async (url: string) => {
      const reply = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints`, { url });
      return { secret: reply.body.secret };
    };
    const first = await runIntegration({ baseUrl: gateway.url, apiKey: merchant.apiKey, orderId: '7', registerWebhook: register });
    const again = runIntegration({ baseUrl: gateway.url, apiKey: merchant.apiKey, orderId: '7', registerWebhook: register });
    // The same charge comes back (idempotent) already refunded: paying it again is refused.
    await expect(again).rejects.toMatchObject({ status: 422 });
    const list = await gateway.call('GET', '/v1/transactions?externalRef=order:7', { key: merchant.apiKey });
    expect(list.body.transactions.map((tx: { transactionId: string }) => tx.transactionId)).toEqual([first.charge.transactionId]);
  });
});
