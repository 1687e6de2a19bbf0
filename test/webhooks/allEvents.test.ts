import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CANONICAL_EVENTS, TRANSACTION_EXTENSION_EVENTS } from '../../src/webhooks/events.js';
import { createCharge, fund, paidCharge, registerEndpoint, settleWithdrawal, withdraw } from '../helpers/api.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import type { JsonSchema, OpenApiDocument } from '../helpers/contract.js';

/**
 * One endpoint subscribed to every event receives all 21 canonical names: the charge's whole life
 * (paid, expired, cancelled, failed, refunds, a MED case from opening to chargeback) and the
 * withdrawals' (automatic, manual approved and rejected, failed, returned in part and in full).
 * Every body verifies with the endpoint's secret and fits the OpenAPI `webhooks` schema of its
 * event: the required fields present, no field the schema does not list.
 */
let gateway: Gateway;
let receiver: Receiver;

beforeAll(async () => {
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true', SANDBOX_SETTLE_MS: 'manual' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await gateway.services.webhookDispatcher.stop();
  await gateway.close();
  await receiver.close();
});

const NO_LIMITS = { limits: { withdrawPerSecond: 1000, withdrawPerMinute: 1000, withdrawPerHour: 1000 } };

async function post<P extends string>(merchant: Merchant, path: P, body?: unknown) {
  const reply = await gateway.call('POST', path, { key: merchant.apiKey, ...(body === undefined ? {} : { body }) });
  expect(reply.status, `${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body;
}

async function paidWithdrawal(merchant: Merchant) {
  const created = await withdraw(gateway, merchant, withdrawalToHolder());
  expect(created.status).toBe(201);
  expect((await settleWithdrawal(gateway, merchant, created.body.transactionId, { outcome: 'paid' })).status).toBe(200);
  return created.body.transactionId;
}

describe('every canonical event has a real trigger', () => {
  it('one endpoint receives all 21 events and transaction.hold_released, each verified and shaped as the OpenAPI document says', async () => {
    const merchant = await gateway.createMerchant(NO_LIMITS);
    const manual = await gateway.createMerchant({ ...NO_LIMITS, withdrawalMode: 'manual' });
    const endpoints = [
      await registerEndpoint(gateway, merchant, { url: receiver.url('/all') }),
      await registerEndpoint(gateway, manual, { url: receiver.url('/all') }),
    ];
    await fund(gateway, merchant, 100_000);
    await fund(gateway, manual, 100_000);

    // Charges: paid, expired, cancelled, failed.
    const refundable = await paidCharge(gateway, merchant);
    await post(merchant, `/sandbox/v1/pix/${await createCharge(gateway, merchant)}/expire`);
    await post(merchant, `/v1/pix/${await createCharge(gateway, merchant)}/cancel`);
    await post(merchant, `/sandbox/v1/pix/${await createCharge(gateway, merchant)}/fail`);
    // A partial refund, settled.
    const refund = await post(merchant, `/v1/transactions/${refundable}/refunds`, { amountCents: 300 });
    await post(merchant, `/sandbox/v1/refunds/${refund.refundId}/settle`, { outcome: 'refunded' });
    // A MED case: opened and blocked, defended, analysed, accepted (chargeback, then refunded).
    const contested = await paidCharge(gateway, merchant);
    const infraction = await post(merchant, `/sandbox/v1/pix/${contested}/infraction`, { reason: 'fraud' });
    await post(merchant, `/v1/infractions/${infraction.infractionId}/defense`, { text: 'Produto entregue.' });
    expect((await gateway.admin('POST', `/admin/v1/infractions/${infraction.infractionId}/analysis`)).status).toBe(200);
    await post(merchant, `/sandbox/v1/infractions/${infraction.infractionId}/close`, { outcome: 'accepted' });
    // The cautionary block: a PIX held then released (transaction.hold_released), another held then returned.
    const released = await createCharge(gateway, merchant);
    await post(merchant, `/sandbox/v1/pix/${released}/pay`, { held: true });
    await post(merchant, `/sandbox/v1/pix/${released}/hold/release`);
    const returned = await createCharge(gateway, merchant);
    await post(merchant, `/sandbox/v1/pix/${returned}/pay`, { held: true });
    await post(merchant, `/sandbox/v1/pix/${returned}/hold/return`);

    // Withdrawals: paid then returned in part, paid then returned in full, failed.
    await settleWithdrawal(gateway, merchant, await paidWithdrawal(merchant), { outcome: 'returned', amountCents: 400 });
    await settleWithdrawal(gateway, merchant, await paidWithdrawal(merchant), { outcome: 'returned' });
    const failing = await withdraw(gateway, merchant, withdrawalToHolder());
    await settleWithdrawal(gateway, merchant, failing.body.transactionId, { outcome: 'failed' });
    // Manual mode: one approved, one rejected.
    const approved = await withdraw(gateway, manual, withdrawalToHolder());
    const rejected = await withdraw(gateway, manual, withdrawalToHolder());
    expect((await gateway.admin('POST', `/admin/v1/transactions/${approved.body.transactionId}/approve`)).status).toBe(200);
    expect((await gateway.admin('POST', `/admin/v1/transactions/${rejected.body.transactionId}/reject`)).status).toBe(200);

    const written = await gateway.database.db.selectFrom('events').select('id').where('accountId', 'in', [merchant.accountId, manual.accountId]).execute();
    gateway.services.webhookDispatcher.start({ error: () => undefined, warn: () => undefined });
    await receiver.waitFor(written.length, 20_000);

    const names = new Set(receiver.received.map((request) => request.headers['x-svc-event']));
    // transaction.dispute_deadline's delivery and OpenAPI shape: test/infractions/reminders.test.ts.
    expect([...names].sort()).toEqual([...CANONICAL_EVENTS, ...TRANSACTION_EXTENSION_EVENTS.filter((name) => name !== 'transaction.dispute_deadline')].sort());

    const document = (await gateway.call<OpenApiDocument>('GET', '/openapi.json')).body;
    const { schemas } = document.components;
    const resolve = (schema: JsonSchema | undefined) => (schema?.$ref ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema);
    const secretOf = new Map([
      [merchant.accountId, endpoints[0]!.secret],
      [manual.accountId, endpoints[1]!.secret],
    ]);
    const now = vi.spyOn(Date, 'now').mockReturnValue(gateway.clock.now().getTime());
    try {
      for (const request of receiver.received) {
        const name = String(request.headers['x-svc-event']);
        const parsed = JSON.parse(request.body) as Record<string, unknown>;
        const account = await gateway.database.db.selectFrom('events').select('accountId').where('id', '=', String(parsed.eventId)).executeTakeFirstOrThrow();
        const body = new Webhook(secretOf.get(account.accountId)!).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;
        const schema = resolve(document.webhooks[name]?.post.requestBody?.content['application/json']?.schema);
        const allowed = Object.keys(schema?.properties ?? {});
        expect(
          Object.keys(body).filter((field) => !allowed.includes(field)),
          name,
        ).toEqual([]);
        expect(
          (schema?.required ?? []).filter((field) => !(field in body)),
          name,
        ).toEqual([]);
        expect(body.event, name).toBe(name);
      }
    } finally {
      now.mockRestore();
    }
  });
});
