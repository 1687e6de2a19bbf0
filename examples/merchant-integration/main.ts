// A small merchant integration with @pix-gateway/sdk (README.md beside this file): a shop charges
// an order, learns it was paid from a verified webhook (confirmed by a read, as the spec
// recommends), and refunds it. Paying is done through the sandbox, as a payer's bank would.
// The test suite runs it against a real gateway (test/sdk/example.test.ts); run it yourself with
// `npm start` below.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import {
  PixGateway,
  PixGatewayError,
  WebhookVerificationError,
  externalRefFrom,
  verifyWebhook,
  type Refund,
  type Transaction,
  type WebhookEvent,
} from '@pix-gateway/sdk';

export type IntegrationOptions = {
  baseUrl: string;
  apiKey: string;
  /**
   * Registers the receiver's URL for the merchant's webhooks: the endpoint's secret (`whsec_…`),
   * and how to remove it at the end. A merchant does this once, on the dashboard's Webhooks page.
   */
  registerWebhook: (url: string) => Promise<{ secret: string; remove?: () => Promise<void> }>;
  /** The order being sold (default: a new one). */
  orderId?: string;
  log?: (line: string) => void;
};

export type IntegrationResult = {
  orderId: string;
  charge: Transaction;
  refund: Refund;
  /** Every verified event the receiver got, in arrival order (deduplicated on eventId). */
  events: WebhookEvent[];
  /** Deliveries refused (bad signature or stale timestamp): none from a real gateway. */
  refused: number;
};

/** The webhook receiver: verifies each delivery, keeps each event once, answers 204 at once. */
async function startReceiver(secret: () => string) {
  const events: WebhookEvent[] = [];
  const seen = new Set<string>();
  const waiters: { accept: (event: WebhookEvent) => boolean; resolve: (event: WebhookEvent) => void }[] = [];
  let refused = 0;

  const handle = (request: IncomingMessage, response: ServerResponse, rawBody: Buffer) => {
    let event: WebhookEvent;
    try {
      event = verifyWebhook(rawBody, request.headers, secret());
    } catch (error) {
      // Not ours, or replayed: refuse it (a 4xx is final; the gateway does not retry it).
      refused += 1;
      response.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
      return;
    }
    response.writeHead(204).end();
    if (seen.has(event.eventId)) return; // at-least-once delivery: the same event may come again
    seen.add(event.eventId);
    events.push(event);
    for (const waiter of waiters.filter((candidate) => candidate.accept(event))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(event);
    }
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the receiver has no port');

  return {
    url: `http://127.0.0.1:${address.port}/webhooks/pix`,
    events,
    refused: () => refused,
    /** The first event (already received or to come) `accept` takes; rejects after `timeoutMs`. */
    next(accept: (event: WebhookEvent) => boolean, timeoutMs = 15_000): Promise<WebhookEvent> {
      const known = events.find(accept);
      if (known) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no webhook in time')), timeoutMs);
        waiters.push({ accept, resolve: (event) => (clearTimeout(timer), resolve(event)) });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function runIntegration(options: IntegrationOptions): Promise<IntegrationResult> {
  const log = options.log ?? (() => undefined);
  const pix = new PixGateway({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  const orderId = options.orderId ?? `pedido-${Date.now()}`;
  let secret = '';
  const receiver = await startReceiver(() => secret);
  let remove: (() => Promise<void>) | undefined;
  try {
    ({ secret, remove } = await options.registerWebhook(receiver.url));
    log(`webhooks → ${receiver.url}`);

    // 1. Charge the order. The externalRef comes from the order: a retry (ours or the SDK's) never charges twice.
    const created = await pix.charges.create({
      amountCents: 2_500,
      customer: { name: 'Ana Pagadora', email: 'ana@example.com', phone: '11987654321', document: { number: '529.982.247-25', type: 'cpf' } },
      externalRef: externalRefFrom('order', orderId),
    });
    log(`charge ${created.transactionId}: PIX copia e cola ${created.pixPayload.slice(0, 24)}…`);

    // 2. The payer pays (the sandbox plays the payer's bank).
    await pix.sandbox.payCharge(created.transactionId);

    // 3. The verified webhook says it is paid; a read confirms it before the goods ship.
    const paid = await receiver.next((event) => event.event === 'transaction.paid' && event.transactionId === created.transactionId);
    if (paid.event !== 'transaction.paid') throw new Error('unexpected event');
    log(`paid by ${paid.payer.name} (endToEndId ${paid.endToEndId})`);
    const charge = await pix.transactions.get(created.transactionId);
    if (charge.status !== 'paid') throw new Error(`charge is ${charge.status}, not paid`);

    // 4. The customer gives the order back: refund it in full, then wait for the refund's webhook.
    const asked = await pix.refunds.create(created.transactionId, { reason: 'cliente desistiu', externalRef: externalRefFrom('refund', orderId) });
    log(`refund ${asked.refundId}: ${asked.status}`);
    // The simulated PSP settles refunds by itself after SANDBOX_SETTLE_MS; settling it now keeps the example quick.
    await pix.sandbox.settleRefund(asked.refundId, { outcome: 'refunded' }).catch((error: unknown) => {
      if (!(error instanceof PixGatewayError && error.status === 422)) throw error; // already settled by the simulator
    });
    await receiver.next((event) => event.event === 'transaction.refunded' && event.transactionId === created.transactionId);
    const [refund] = (await pix.refunds.list(created.transactionId)).refunds;
    if (!refund) throw new Error('no refund listed');
    log(`refunded: ${refund.amountCents} cents, ${refund.status}`);
    return { orderId, charge: await pix.transactions.get(created.transactionId), refund, events: receiver.events, refused: receiver.refused() };
  } finally {
    await remove?.();
    await receiver.close();
  }
}

// `npm start` (in this folder) against a local gateway started with WEBHOOK_ALLOW_PRIVATE=true: the
// operator API registers the receiver's URL, as the dashboard's Webhooks page would.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`set ${name} (README.md)`);
    return value;
  };
  const baseUrl = process.env.PIX_BASE_URL ?? 'http://localhost:3000';
  const endpoints = `${baseUrl}/admin/v1/accounts/${env('PIX_ACCOUNT_ID')}/webhook-endpoints`;
  const authorization = `Bearer ${env('PIX_ADMIN_TOKEN')}`;
  const result = await runIntegration({
    baseUrl,
    apiKey: env('PIX_API_KEY'),
    log: (line) => process.stdout.write(`${line}\n`),
    async registerWebhook(url) {
      const response = await fetch(endpoints, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ url, events: ['transaction.paid', 'transaction.refunded'] }),
      });
      const body: unknown = await response.json();
      if (response.status !== 201 || typeof body !== 'object' || body === null || !('secret' in body && 'endpointId' in body)) {
        throw new Error(`webhook registration failed: ${JSON.stringify(body)}`);
      }
      const { secret, endpointId } = body;
      if (typeof secret !== 'string' || typeof endpointId !== 'string') throw new Error('webhook registration: no secret');
      return { secret, remove: async () => void (await fetch(`${endpoints}/${endpointId}`, { method: 'DELETE', headers: { authorization } })) };
    },
  });
  process.stdout.write(`done: order ${result.orderId} charged, paid and refunded (${result.events.length} verified webhooks)\n`);
}
