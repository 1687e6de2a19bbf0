import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { signPayload, secretKeyBytes } from '../../src/webhooks/signature.js';
import { paidCharge, registerEndpoint, settleWithdrawal, startNextHour, withdraw } from '../helpers/api.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type ReceivedWebhook, type Receiver } from '../helpers/receiver.js';
import type { WebhookAttemptPage } from '../helpers/admin.js';

const SCHEDULE = [60, 300, 1800, 7200, 21600];
let gateway: Gateway;
let receiver: Receiver;
const loggedErrors: unknown[] = [];
const logger = { error: (...args: unknown[]) => loggedErrors.push(args), warn: () => undefined };

beforeAll(async () => {
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '400', SANDBOX_SETTLE_MS: 'manual' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await gateway.close();
  await receiver.close();
});
afterEach(async () => {
  await gateway.services.webhookDispatcher.stop();
  receiver.answerWith(() => ({ status: 200 }));
  expect(loggedErrors).toEqual([]);
  expect(await gateway.ledgerProblems()).toEqual([]);
});

const dispatcher = () => gateway.services.webhookDispatcher;
const attemptsOf = async (merchant: Merchant, query = '') => {
  const reply = await gateway.admin<WebhookAttemptPage>('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-deliveries${query}`);
  expect(reply.status).toBe(200);
  return reply.body.attempts;
};
/** Requests the receiver got on one path since the test started. */
const receivedOn = (path: string) => receiver.received.filter((request) => request.path === path);
const headersOf = (request: ReceivedWebhook) => request.headers as Record<string, string>;
/** Verifies as a receiver whose clock agrees with the gateway's (tests move the gateway's clock). */
function verify(secret: string, request: ReceivedWebhook): Record<string, unknown> {
  const now = vi.spyOn(Date, 'now').mockReturnValue(gateway.clock.now().getTime());
  try {
    return new Webhook(secret).verify(request.body, headersOf(request)) as Record<string, unknown>;
  } finally {
    now.mockRestore();
  }
}
let pathCounter = 0;
const freshPath = () => `/hook-${++pathCounter}`;

describe('signature (Standard Webhooks)', () => {
  it('matches the published test vector', () => {
    const key = secretKeyBytes('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(signPayload(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('a merchant registers an endpoint and receives transaction.paid', () => {
  it('delivers a body the standardwebhooks library verifies, with the X-Svc headers', async () => {
    const merchant = await gateway.createMerchant();
    const path = freshPath();
    const endpoint = await registerEndpoint(gateway, merchant, { url: receiver.url(path) });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(endpoint.secret.slice(6), 'base64')).toHaveLength(32);

    dispatcher().start(logger);
    const transactionId = await paidCharge(gateway, merchant);
    await expect.poll(() => receivedOn(path).length, { timeout: 5000 }).toBe(1);
    const [delivery] = receivedOn(path) as [ReceivedWebhook];
    const headers = headersOf(delivery);

    const body = verify(endpoint.secret, delivery);
    expect(body).toMatchObject({ event: 'transaction.paid', transactionId, type: 'pix_in', status: 'paid', amountCents: 1000, feeCents: 50, netCents: 950 });
    expect(body).toHaveProperty('endToEndId');
    expect(body.payer).toMatchObject({ documentType: expect.any(String) });
    expect(body).not.toHaveProperty('pixPayload');
    expect(body).not.toHaveProperty('beneficiary');
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-svc-event']).toBe('transaction.paid');
    expect(headers['x-svc-event-id']).toBe(body.eventId);
    expect(headers['webhook-id']).toBe(body.eventId);
    const timestamp = Number(headers['webhook-timestamp']);
    expect(Math.abs(timestamp - gateway.clock.now().getTime() / 1000)).toBeLessThan(5);
    const signature = headers['webhook-signature']!.replace(/^v1,/, '');
    expect(headers['x-svc-signature']).toBe(`t=${timestamp},v1=${signature}`);
    // The signature is over the exact bytes received: one changed byte fails verification.
    expect(() => verify(endpoint.secret, { ...delivery, body: delivery.body.replace('paid', 'pago') })).toThrow('No matching signature found');

    // The history shows the attempt with the exact payload.
    await expect.poll(async () => (await attemptsOf(merchant))[0]?.deliveryStatus, { timeout: 3000 }).toBe('succeeded');
    const attempt = (await attemptsOf(merchant))[0]!;
    expect(attempt).toMatchObject({
      eventId: body.eventId,
      event: 'transaction.paid',
      transactionId,
      endpointId: endpoint.endpointId,
      attemptNumber: 1,
      httpStatus: 200,
      error: null,
      url: receiver.url(path),
      payload: delivery.body,
      resendOf: null,
    });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
  });
});

describe('fan-out and filters', () => {
  it('sends each event to every endpoint whose filter selects it, with one event id', async () => {
    const merchant = await gateway.createMerchant({ limits: { withdrawPerSecond: 100, withdrawPerMinute: 100 } });
    const [cashin, formerName, everything, refunds] = [freshPath(), freshPath(), freshPath(), freshPath()];
    expect((await registerEndpoint(gateway, merchant, { url: receiver.url(cashin), events: ['cashin'] })).events).toEqual(['cashin']);
    expect((await registerEndpoint(gateway, merchant, { url: receiver.url(formerName), events: ['TRANSFER_PAID', 'transfer.paid'] })).events).toEqual([
      'transfer.paid',
    ]);
    await registerEndpoint(gateway, merchant, { url: receiver.url(everything) });
    await registerEndpoint(gateway, merchant, { url: receiver.url(refunds), events: ['refund', 'transfer.refunded.partial'] });

    const chargeId = await paidCharge(gateway, merchant);
    const withdrawal = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 500 }));
    expect(withdrawal.status).toBe(201);
    const withdrawalId = withdrawal.body.transactionId;
    expect((await settleWithdrawal(gateway, merchant, withdrawalId, { outcome: 'paid' })).status).toBe(200);
    await dispatcher().deliverDue();

    const names = (path: string) =>
      receivedOn(path)
        .map((request) => `${headersOf(request)['x-svc-event']}:${JSON.parse(request.body).transactionId}`)
        .sort();
    expect(names(cashin)).toEqual([`transaction.paid:${chargeId}`]);
    expect(names(formerName)).toEqual([`transfer.paid:${withdrawalId}`]);
    expect(names(everything)).toEqual(
      [`transaction.paid:${chargeId}`, `transfer.created:${withdrawalId}`, `transfer.paid:${withdrawalId}`, `transfer.processing:${withdrawalId}`].sort(),
    );
    expect(names(refunds)).toEqual([]);
    const paidIds = [...receivedOn(cashin), ...receivedOn(everything)]
      .filter((request) => headersOf(request)['x-svc-event'] === 'transaction.paid')
      .map((request) => headersOf(request)['x-svc-event-id']);
    expect(new Set(paidIds).size).toBe(1);

    // transfer.paid carries the beneficiary, not a payer.
    const transferPaid = JSON.parse(receivedOn(formerName)[0]!.body);
    expect(transferPaid).toMatchObject({ event: 'transfer.paid', type: 'withdrawal', status: 'paid', beneficiary: { document: '52998224725' } });
    expect(transferPaid).toHaveProperty('endToEndId');
    expect(transferPaid).not.toHaveProperty('payer');
    const created = JSON.parse(receivedOn(everything).find((request) => headersOf(request)['x-svc-event'] === 'transfer.created')!.body);
    expect(created).not.toHaveProperty('endToEndId');
    expect(created).not.toHaveProperty('beneficiary');

    // A return reaches the refund filter (category plus a former name) with refundEndToEndId.
    expect((await settleWithdrawal(gateway, merchant, withdrawalId, { outcome: 'returned', amountCents: 200 })).status).toBe(200);
    await dispatcher().deliverDue();
    expect(names(refunds)).toEqual([`transfer.partially_refunded:${withdrawalId}`]);
    expect(JSON.parse(receivedOn(refunds)[0]!.body)).toMatchObject({
      status: 'partially_refunded',
      refundEndToEndId: expect.stringMatching(/^D/),
      beneficiary: expect.any(Object),
    });
  });

  it('an endpoint of another account receives nothing', async () => {
    const [owner, other] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const path = freshPath();
    await registerEndpoint(gateway, other, { url: receiver.url(path) });
    await paidCharge(gateway, owner);
    await dispatcher().deliverDue();
    expect(receivedOn(path)).toEqual([]);
    expect(await attemptsOf(other)).toEqual([]);
  });
});

describe('retries', () => {
  /** One delivery answered by `answer` on every attempt; returns the attempts the history shows. */
  async function deliverWithAnswer(answer: Parameters<Receiver['answerWith']>[0], stepThroughSchedule: boolean) {
    const merchant = await gateway.createMerchant();
    const path = freshPath();
    await registerEndpoint(gateway, merchant, { url: receiver.url(path) });
    receiver.answerWith((request) => (request.path === path ? answer(request) : { status: 200 }));
    await paidCharge(gateway, merchant);
    await dispatcher().deliverDue();
    if (stepThroughSchedule) {
      for (const seconds of SCHEDULE) {
        // Not due a second early; due at its time.
        gateway.clock.advance(seconds * 1000 - 1000);
        await dispatcher().deliverDue();
        gateway.clock.advance(1000);
        await dispatcher().deliverDue();
      }
    } else {
      gateway.clock.advance(SCHEDULE[0]! * 1000);
      await dispatcher().deliverDue();
    }
    return { attempts: (await attemptsOf(merchant)).reverse(), received: receivedOn(path) };
  }

  it('follows 1 min, 5 min, 30 min, 2 h, 6 h: 6 attempts in all, then the delivery fails', async () => {
    const { attempts, received } = await deliverWithAnswer(() => ({ status: 503 }), true);
    expect(attempts.map((attempt) => attempt.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(received).toHaveLength(6);
    const gaps = attempts.slice(1).map((attempt, index) => Math.round((attempt.attemptedAt - attempts[index]!.attemptedAt) / 1000));
    gaps.forEach((gap, index) => expect(Math.abs(gap - SCHEDULE[index]!)).toBeLessThanOrEqual(1));
    expect(attempts.every((attempt) => attempt.httpStatus === 503 && attempt.deliveryStatus === 'failed')).toBe(true);
    // Same event id on every attempt; timestamp and signature regenerated each time.
    expect(new Set(received.map((request) => headersOf(request)['x-svc-event-id'])).size).toBe(1);
    expect(new Set(received.map((request) => headersOf(request)['webhook-timestamp'])).size).toBe(6);
    expect(new Set(received.map((request) => headersOf(request)['webhook-signature'])).size).toBe(6);
    gateway.clock.advance(86_400_000);
    await dispatcher().deliverDue();
    expect(receivedOn(received[0]!.path)).toHaveLength(6);
  });

  for (const status of [500, 502, 503, 504, 408, 429]) {
    it(`retries HTTP ${status}`, async () => {
      const { attempts } = await deliverWithAnswer(() => ({ status }), false);
      expect(attempts.map((attempt) => [attempt.attemptNumber, attempt.httpStatus, attempt.deliveryStatus])).toEqual([
        [1, status, 'pending'],
        [2, status, 'pending'],
      ]);
    });
  }

  for (const status of [400, 401, 403, 404, 410, 422, 301, 302]) {
    it(`does not retry HTTP ${status}`, async () => {
      const { attempts, received } = await deliverWithAnswer(() => ({ status, headers: { location: receiver.url('/elsewhere') } }), false);
      expect(attempts.map((attempt) => [attempt.attemptNumber, attempt.httpStatus, attempt.deliveryStatus])).toEqual([[1, status, 'failed']]);
      expect(received).toHaveLength(1);
      expect(receivedOn('/elsewhere')).toEqual([]); // redirects are not followed
    });
  }

  it('retries a timeout (no answer within WEBHOOK_TIMEOUT_MS)', async () => {
    const { attempts } = await deliverWithAnswer(() => 'hang', false);
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ httpStatus: null, error: 'timeout after 400 ms' });
      expect(attempt.durationMs).toBeGreaterThanOrEqual(350);
    }
    expect(attempts[1]?.deliveryStatus).toBe('pending');
  });

  it('retries a network error (nothing listening) and then succeeds', async () => {
    const merchant = await gateway.createMerchant();
    const closed = await startReceiver();
    const url = closed.url('/gone');
    await closed.close();
    const endpoint = await registerEndpoint(gateway, merchant, { url });
    await paidCharge(gateway, merchant);
    await dispatcher().deliverDue();
    const [first] = await attemptsOf(merchant);
    expect(first).toMatchObject({ attemptNumber: 1, httpStatus: null, error: 'network error: ECONNREFUSED', deliveryStatus: 'pending' });
    expect(endpoint.url).toBe(url);
  });

  it('a delivery that fails then succeeds stops there', async () => {
    let calls = 0;
    const { attempts } = await deliverWithAnswer(() => ({ status: ++calls === 1 ? 500 : 204 }), true);
    expect(attempts.map((attempt) => attempt.httpStatus)).toEqual([500, 204]);
    expect(attempts[1]?.deliveryStatus).toBe('succeeded');
  });
});

describe('manual resend', () => {
  it('re-fires a past delivery with the same event id and body, a new timestamp and signature', async () => {
    const merchant = await gateway.createMerchant();
    const path = freshPath();
    const endpoint = await registerEndpoint(gateway, merchant, { url: receiver.url(path) });
    receiver.answerWith((request) => (request.path === path ? { status: 400 } : { status: 200 }));
    const transactionId = await paidCharge(gateway, merchant);
    await dispatcher().deliverDue();
    const failed = (await attemptsOf(merchant, `?transactionId=${transactionId}`))[0]!;
    expect(failed).toMatchObject({ httpStatus: 400, deliveryStatus: 'failed' });

    receiver.answerWith(() => ({ status: 200 }));
    gateway.clock.advance(5000);
    const resend = await gateway.admin('POST', `/admin/v1/webhook-deliveries/${failed.deliveryId}/resend`);
    expect(resend.status).toBe(202);
    expect(resend.body).toMatchObject({ resendOf: failed.deliveryId, eventId: failed.eventId, status: 'pending' });
    await dispatcher().deliverDue();

    const [original, again] = receivedOn(path) as [ReceivedWebhook, ReceivedWebhook];
    expect(headersOf(again)['x-svc-event-id']).toBe(headersOf(original)['x-svc-event-id']);
    expect(again.body).toBe(original.body);
    expect(Number(headersOf(again)['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(headersOf(original)['webhook-timestamp']) + 5);
    expect(headersOf(again)['webhook-signature']).not.toBe(headersOf(original)['webhook-signature']);
    expect(verify(endpoint.secret, again)).toMatchObject({ eventId: failed.eventId });

    const byEvent = await attemptsOf(merchant, `?eventId=${failed.eventId}`);
    expect(byEvent.map((attempt) => [attempt.deliveryId, attempt.resendOf, attempt.httpStatus])).toEqual([
      [resend.body.deliveryId, failed.deliveryId, 200],
      [failed.deliveryId, null, 400],
    ]);
  });

  it('allows 10 per hour per account, then 429', async () => {
    const merchant = await gateway.createMerchant();
    await registerEndpoint(gateway, merchant, { url: receiver.url(freshPath()) });
    await paidCharge(gateway, merchant);
    await dispatcher().deliverDue();
    const attempt = (await attemptsOf(merchant))[0]!;
    startNextHour(gateway); // start of a UTC hour
    for (let index = 0; index < 10; index += 1) {
      expect((await gateway.admin('POST', `/admin/v1/webhook-deliveries/${attempt.deliveryId}/resend`)).status).toBe(202);
    }
    const refused = await gateway.admin('POST', `/admin/v1/webhook-deliveries/${attempt.deliveryId}/resend`);
    expect(refused).toMatchObject({ status: 429, body: { error: 'Limite de 10 reenvios por hora atingido.' } });
    // Another account has its own allowance.
    const other = await gateway.createMerchant();
    await registerEndpoint(gateway, other, { url: receiver.url(freshPath()) });
    await paidCharge(gateway, other);
    await dispatcher().deliverDue();
    const otherAttempt = (await attemptsOf(other))[0]!;
    expect((await gateway.admin('POST', `/admin/v1/webhook-deliveries/${otherAttempt.deliveryId}/resend`)).status).toBe(202);
    // The next hour allows again.
    gateway.clock.advance(3_600_000);
    expect((await gateway.admin('POST', `/admin/v1/webhook-deliveries/${attempt.deliveryId}/resend`)).status).toBe(202);
    await dispatcher().deliverDue();
  });

  it('answers 400 for a malformed id, 404 for an unknown one, 422 when the endpoint was removed', async () => {
    expect(await gateway.admin('POST', '/admin/v1/webhook-deliveries/nope/resend')).toMatchObject({ status: 400, body: { error: 'deliveryId inválido.' } });
    expect(await gateway.admin('POST', '/admin/v1/webhook-deliveries/01966b8e-7c5a-7000-8000-000000000000/resend')).toMatchObject({
      status: 404,
      body: { error: 'Entrega de webhook não encontrada.' },
    });
    const merchant = await gateway.createMerchant();
    const endpoint = await registerEndpoint(gateway, merchant, { url: receiver.url(freshPath()) });
    await paidCharge(gateway, merchant);
    await dispatcher().deliverDue();
    const attempt = (await attemptsOf(merchant))[0]!;
    expect((await gateway.admin('DELETE', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints/${endpoint.endpointId}`)).status).toBe(204);
    expect(await gateway.admin('POST', `/admin/v1/webhook-deliveries/${attempt.deliveryId}/resend`)).toMatchObject({
      status: 422,
      body: { error: 'Endpoint de webhook removido; não é possível reenviar.' },
    });
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the overlap, then with the new one only', async () => {
    const merchant = await gateway.createMerchant();
    const path = freshPath();
    const endpoint = await registerEndpoint(gateway, merchant, { url: receiver.url(path) });
    const before = gateway.clock.now().getTime();
    const rotated = await gateway.admin('POST', `/admin/v1/webhook-endpoints/${endpoint.endpointId}/rotate-secret`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(201);
    const newSecret = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(endpoint.secret);
    expect(rotated.body.previousSecretExpiresAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(rotated.body.previousSecretExpiresAt).toBeLessThanOrEqual(gateway.clock.now().getTime() + 3_600_000);

    await paidCharge(gateway, merchant);
    await dispatcher().deliverDue();
    const during = receivedOn(path)[0]!;
    expect(headersOf(during)['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(headersOf(during)['x-svc-signature']).toMatch(/^t=\d+,v1=[^,]+,v1=[^,]+$/);
    expect(verify(newSecret, during)).toHaveProperty('event', 'transaction.paid');
    expect(verify(endpoint.secret, during)).toHaveProperty('event', 'transaction.paid');

    gateway.clock.advance(3_601_000);
    await paidCharge(gateway, merchant);
    await dispatcher().deliverDue();
    const after = receivedOn(path)[1]!;
    expect(headersOf(after)['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(newSecret, after)).toHaveProperty('event', 'transaction.paid');
    expect(() => verify(endpoint.secret, after)).toThrow('No matching signature found');

    const listed = await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints/${endpoint.endpointId}`);
    expect(listed.body.previousSecretExpiresAt).toBeNull();
  });

  it('overlapSeconds 0 replaces the secret at once; bad values are refused', async () => {
    const merchant = await gateway.createMerchant();
    const endpoint = await registerEndpoint(gateway, merchant, { url: receiver.url(freshPath()) });
    const rotated = await gateway.admin('POST', `/admin/v1/webhook-endpoints/${endpoint.endpointId}/rotate-secret`, { overlapSeconds: 0 });
    expect(rotated).toMatchObject({ status: 201, body: { previousSecretExpiresAt: null } });
    for (const overlapSeconds of [-1, 604_801, 1.5, '60']) {
      expect(await gateway.admin('POST', `/admin/v1/webhook-endpoints/${endpoint.endpointId}/rotate-secret`, { overlapSeconds })).toMatchObject({
        status: 400,
        body: { error: 'overlapSeconds deve ser um inteiro entre 0 e 604800 (7 dias).' },
      });
    }
    expect(await gateway.admin('POST', '/admin/v1/webhook-endpoints/01966b8e-7c5a-7000-8000-000000000000/rotate-secret')).toMatchObject({
      status: 404,
      body: { error: 'Endpoint de webhook não encontrado.' },
    });
  });
});

describe('deliveries that cannot go out', () => {
  it('a delivery to an endpoint deleted after the fan-out is never sent', async () => {
    const merchant = await gateway.createMerchant();
    const path = freshPath();
    const endpoint = await registerEndpoint(gateway, merchant, { url: receiver.url(path) });
    await paidCharge(gateway, merchant);
    // The race: the endpoint is soft-deleted while its delivery is still pending (the delete's own
    // sweep has not seen it yet).
    await gateway.database.db.updateTable('webhookEndpoints').set({ deletedAt: gateway.clock.now() }).where('id', '=', endpoint.endpointId).execute();
    await dispatcher().deliverDue();
    expect(receivedOn(path)).toEqual([]);
  });

  it('a secret that no longer decrypts fails the delivery visibly instead of retrying forever', async () => {
    const merchant = await gateway.createMerchant();
    const path = freshPath();
    const endpoint = await registerEndpoint(gateway, merchant, { url: receiver.url(path) });
    await gateway.database.db
      .updateTable('webhookEndpoints')
      .set({ secretEncrypted: 'v1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA==:AAAA' })
      .where('id', '=', endpoint.endpointId)
      .execute();
    await paidCharge(gateway, merchant);
    await dispatcher().deliverDue();
    expect(receivedOn(path)).toEqual([]);
    expect(await attemptsOf(merchant)).toMatchObject([
      { attemptNumber: 1, httpStatus: null, error: 'signing failed: the endpoint secret cannot be read', deliveryStatus: 'failed' },
    ]);
  });
});
