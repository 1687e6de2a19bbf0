import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type PixGateway, type WebhookEvent, type WebhookEventOf } from '../../packages/sdk/src/index.js';
import { secretKeyBytes, signatureHeaders } from '../../src/webhooks/signature.js';
import { registerEndpoint } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type ReceivedWebhook, type Receiver } from '../helpers/receiver.js';
import { clientFor, customer } from './helpers.js';

// verifyWebhook (Standard Webhooks, docs/webhooks.md) on the deliveries a real gateway sends to a
// real receiver: the typed event, a secret rotation's two signatures, and every refusal.

let gateway: Gateway;
let receiver: Receiver;
let merchant: Merchant;
let pix: PixGateway;
const logger = { error: () => undefined, warn: () => undefined };

beforeAll(async () => {
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  receiver = await startReceiver();
  merchant = await gateway.createMerchant();
  pix = clientFor(gateway, merchant);
  gateway.services.webhookDispatcher.start(logger);
});
afterEach(() => receiver.answerWith(() => ({ status: 200 })));
afterAll(async () => {
  await gateway.services.webhookDispatcher.stop();
  await receiver.close();
  await gateway.close();
});

let paths = 0;
/** A new endpoint of the merchant on its own receiver path. */
async function newEndpoint() {
  const path = `/sdk-${++paths}`;
  const endpoint = await registerEndpoint(gateway, merchant, { url: receiver.url(path), events: ['transaction.paid'] });
  return { ...endpoint, path };
}

/** Pays a new charge and answers the delivery its transaction.paid made to `path`. */
async function paidDelivery(path: string): Promise<{ delivery: ReceivedWebhook; transactionId: string }> {
  const before = receiver.received.filter((request) => request.path === path).length;
  const { transactionId } = await pix.charges.create({ amountCents: 1234, customer: customer() });
  await pix.sandbox.payCharge(transactionId);
  await expect.poll(() => receiver.received.filter((request) => request.path === path).length, { timeout: 10_000 }).toBe(before + 1);
  const delivery = receiver.received.filter((request) => request.path === path).at(-1);
  if (!delivery) throw new Error('no delivery');
  return { delivery, transactionId };
}

const rotate = async (endpointId: string, overlapSeconds: number): Promise<string> => {
  const reply = await gateway.admin('POST', `/admin/v1/webhook-endpoints/${endpointId}/rotate-secret`, { overlapSeconds });
  expect(reply.status).toBe(201);
  return reply.body.secret;
};

const refusal = (verify: () => unknown) => {
  try {
    verify();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('verified');
};

describe('a delivery from the gateway', () => {
  it('verifies and returns the typed event (as the standardwebhooks library reads it)', async () => {
    const endpoint = await newEndpoint();
    const { delivery, transactionId } = await paidDelivery(endpoint.path);
    const event: WebhookEvent = verifyWebhook(delivery.body, delivery.headers, endpoint.secret);
    expect(event).toEqual(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>));
    expect(event.event).toBe('transaction.paid');
    if (event.event !== 'transaction.paid') throw new Error('narrowing');
    // Narrowed by `event`: the settlement fields of transaction.paid are there, typed.
    const paid: WebhookEventOf<'transaction.paid'> = event;
    expect(paid).toMatchObject({ transactionId, status: 'paid', amountCents: 1234, eventId: delivery.headers['webhook-id'] });
    expect(paid.payer.documentType).toMatch(/^(cpf|cnpj)$/);
    expect(paid.endToEndId).toMatch(/^E/);
  });

  it('takes the body as text, Buffer or Uint8Array, and the headers as a plain object or a fetch Headers', async () => {
    const endpoint = await newEndpoint();
    const { delivery } = await paidDelivery(endpoint.path);
    const bytes = Buffer.from(delivery.body, 'utf8');
    const headers = new Headers(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]));
    const upper = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name.toUpperCase(), value]));
    for (const [body, given] of [
      [bytes, delivery.headers],
      [new Uint8Array(bytes), headers],
      [delivery.body, upper],
    ] as const) {
      expect(verifyWebhook(body, given, endpoint.secret).event).toBe('transaction.paid');
    }
  });
});

describe('secret rotation', () => {
  it('during the overlap a delivery carries two signatures: the new secret, the old one, or both given, each verify it', async () => {
    const endpoint = await newEndpoint();
    const newSecret = await rotate(endpoint.endpointId, 3600);
    const { delivery } = await paidDelivery(endpoint.path);
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const stranger = `whsec_${randomBytes(32).toString('base64')}`;
    for (const secrets of [newSecret, endpoint.secret, [endpoint.secret, newSecret], [stranger, newSecret]]) {
      expect(verifyWebhook(delivery.body, delivery.headers, secrets).event).toBe('transaction.paid');
    }
    expect(refusal(() => verifyWebhook(delivery.body, delivery.headers, stranger))).toEqual({
      reason: 'invalid_signature',
      message: 'Assinatura do webhook inválida para os segredos informados.',
    });
  });

  it('after a rotation without overlap only the new secret verifies; a receiver that keeps both still accepts', async () => {
    const endpoint = await newEndpoint();
    const newSecret = await rotate(endpoint.endpointId, 0);
    const { delivery } = await paidDelivery(endpoint.path);
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(refusal(() => verifyWebhook(delivery.body, delivery.headers, endpoint.secret)).reason).toBe('invalid_signature');
    expect(verifyWebhook(delivery.body, delivery.headers, [endpoint.secret, newSecret]).event).toBe('transaction.paid');
  });
});

describe('refusals', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  /** A delivery signed as the gateway signs (src/webhooks/signature.ts), at `timestamp` (Unix seconds). */
  const signed = (body: string, timestamp = Math.floor(Date.now() / 1000), id = 'evt-1') => signatureHeaders([secretKeyBytes(secret)], id, timestamp, body);
  const body = JSON.stringify({ eventId: 'evt-1', event: 'transaction.expired', transactionId: 't', status: 'expired' });

  it('a body changed after signing, or a header changed', () => {
    const headers = signed(body);
    expect(verifyWebhook(body, headers, secret).event).toBe('transaction.expired');
    expect(refusal(() => verifyWebhook(body.replace('expired', 'paid'), headers, secret)).reason).toBe('invalid_signature');
    expect(refusal(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt-2' }, secret)).reason).toBe('invalid_signature');
    expect(refusal(() => verifyWebhook(body, { ...headers, 'webhook-signature': 'v1,' }, secret)).reason).toBe('invalid_signature');
    expect(refusal(() => verifyWebhook(body, { ...headers, 'webhook-signature': headers['webhook-signature']?.replace('v1,', 'v2,') }, secret)).reason).toBe(
      'invalid_signature',
    );
  });

  it('a missing header', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers: Record<string, string | undefined> = { ...signed(body), [name]: undefined };
      expect(refusal(() => verifyWebhook(body, headers, secret))).toEqual({
        reason: 'missing_headers',
        message: 'Webhook sem os cabeçalhos webhook-id, webhook-timestamp e webhook-signature.',
      });
    }
  });

  it('an old timestamp (a replay), one from the future, a malformed one; the tolerance and the clock are options', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(refusal(() => verifyWebhook(body, signed(body, now - 301), secret)).reason).toBe('timestamp_too_old');
    expect(refusal(() => verifyWebhook(body, signed(body, now + 301), secret)).reason).toBe('timestamp_too_new');
    expect(refusal(() => verifyWebhook(body, { ...signed(body), 'webhook-timestamp': '12a' }, secret)).reason).toBe('invalid_timestamp');
    expect(verifyWebhook(body, signed(body, now - 290), secret).event).toBe('transaction.expired');
    expect(refusal(() => verifyWebhook(body, signed(body, now - 60), secret, { toleranceSeconds: 30 }))).toEqual({
      reason: 'timestamp_too_old',
      message: 'Webhook com webhook-timestamp fora da tolerância (mais de 30 s no passado).',
    });
    expect(verifyWebhook(body, signed(body, now - 3600), secret, { now: new Date((now - 3600) * 1000) }).event).toBe('transaction.expired');
    expect(verifyWebhook(body, signed(body, now - 3600), secret, { now: (now - 3500) * 1000 }).event).toBe('transaction.expired');
  });

  it('a signed body that is not an event', () => {
    for (const text of ['not json', '[1]', JSON.stringify({ event: 'transaction.paid' })]) {
      expect(refusal(() => verifyWebhook(text, signed(text), secret)).reason).toBe('invalid_body');
    }
  });

  it('no secret, or one that is not a whsec_ secret, is a programming error (TypeError)', () => {
    expect(() => verifyWebhook(body, signed(body), [])).toThrow(TypeError);
    expect(() => verifyWebhook(body, signed(body), 'whsec_não é base64!')).toThrow('Segredo de webhook inválido');
    // The base64 alone (without whsec_) is accepted, as the Standard Webhooks libraries do.
    expect(verifyWebhook(body, signed(body), secret.slice('whsec_'.length)).event).toBe('transaction.expired');
  });
});
