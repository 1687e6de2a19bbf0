import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** One delivery as the receiver saw it. */
type Delivery = { transactionId: string; event: string; receivedAt: number; occurredAt: number | null };

export type WebhookReceiver = {
  url: string;
  /** First delivery per transactionId and event (`${event} ${transactionId}`). */
  deliveries: Map<string, Delivery>;
  /** Deliveries of an event already received (at-least-once delivery may repeat). */
  duplicates(): number;
  /** Bodies that were not JSON with a transactionId and an event. */
  malformed(): number;
  close(): Promise<void>;
};

/** Wall-clock milliseconds with sub-millisecond precision (comparable with the gateway's occurredAt). */
export const epochMillis = (): number => performance.timeOrigin + performance.now();

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

type Fields = { transactionId?: unknown; event?: unknown; type?: unknown; occurredAt?: unknown };
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A webhook body's fields, at the top level and under `data` (absent ones undefined). */
function envelope(parsed: unknown): Fields & { data: Fields } {
  const top: Fields = isObject(parsed) ? parsed : {};
  const data: Fields = isObject(parsed) && isObject(parsed.data) ? parsed.data : {};
  return { ...top, data };
}

/**
 * A merchant's webhook endpoint on 127.0.0.1 that answers 200 at once and records when each
 * event arrived. It does not verify signatures: the webhook tests do; here only timing counts.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries = new Map<string, Delivery>();
  let duplicates = 0;
  let malformed = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const receivedAt = epochMillis();
      response.writeHead(200).end();
      try {
        const body = envelope(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        // Lenient about the envelope: the fields at the top level or under `data`.
        const transactionId = body.transactionId ?? body.data.transactionId;
        const event = body.event ?? body.type ?? body.data.event;
        if (typeof transactionId !== 'string' || typeof event !== 'string') {
          malformed++;
          return;
        }
        const key = `${event} ${transactionId}`;
        if (deliveries.has(key)) duplicates++;
        else deliveries.set(key, { transactionId, event, receivedAt, occurredAt: numberOrNull(body.occurredAt ?? body.data.occurredAt) });
      } catch {
        malformed++;
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a TCP server listening on a port has an AddressInfo
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    duplicates: () => duplicates,
    malformed: () => malformed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
