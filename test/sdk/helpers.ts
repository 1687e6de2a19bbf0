import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { PixGateway, type PixGatewayOptions } from '../../packages/sdk/src/index.js';
import type { Gateway, Merchant } from '../helpers/gateway.js';

/** What the SDK sent: one entry per attempt, with its JSON body parsed. */
export type SentRequest = { method: string; url: string; body: { externalRef?: string; [field: string]: unknown }; headers: Record<string, string> };

/**
 * The real fetch, recording each attempt the SDK makes (how many, with which body and headers).
 * Nothing is answered in the gateway's place: every request reaches the gateway.
 */
export function recordingFetch(): { fetch: typeof fetch; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const recording: typeof fetch = (input, init) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    sent.push({ method: init?.method ?? 'GET', url, body, headers });
    return fetch(input, init);
  };
  return { fetch: recording, sent };
}

/** A client for the merchant, with quick retries (the backoff's waits are not what these tests measure). */
export const clientFor = (gateway: Gateway, merchant: Merchant, options: Partial<PixGatewayOptions> = {}) =>
  new PixGateway({ apiKey: merchant.apiKey, baseUrl: gateway.url, retryDelayMs: 10, maxRetryDelayMs: 50, ...options });

/** Withdrawal limits loose enough for a test to make several in a second. */
export const RELAXED_WITHDRAWALS = { limits: { withdrawPerSecond: 1000, withdrawPerMinute: 1000, withdrawPerHour: 1000 } };

export const customer = () => ({
  name: 'Ana Pagadora',
  email: 'ana@example.com',
  phone: '11987654321',
  document: { number: '529.982.247-25', type: 'cpf' },
});

/**
 * What the network does to one connection between the SDK and the gateway:
 * `pass` carries it both ways; `reset` resets it once the request arrived (a network error);
 * `withhold` carries the request to the gateway, which acts on it, but never brings the answer
 * back (a timeout after the fact); `truncate` brings back the answer's headers and one byte of its
 * body, then nothing (a body cut short); `hang` takes the request and never answers (the gateway never
 * sees it); a status answers in the gateway's place, as a load balancer in front of it would.
 */
export type Fault = 'pass' | 'reset' | 'withhold' | 'truncate' | 'hang' | { status: number; error: string };

/**
 * A TCP proxy in front of the gateway that applies one fault per new connection, in order, then
 * passes every later connection. The gateway behind it is the real one.
 */
export async function startFaultyNetwork(target: string, faults: Fault[]) {
  const { port, hostname } = new URL(target);
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const fault = faults.shift() ?? 'pass';
    if (fault === 'pass' || fault === 'withhold' || fault === 'truncate') {
      const upstream = connect(Number(port), hostname);
      sockets.add(upstream);
      upstream.on('close', () => (sockets.delete(upstream), socket.destroy()));
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      socket.pipe(upstream);
      if (fault === 'pass') upstream.pipe(socket);
      else if (fault === 'withhold') upstream.resume();
      else {
        let received = Buffer.alloc(0);
        let sent = false;
        upstream.on('data', (chunk: Buffer) => {
          received = Buffer.concat([received, chunk]);
          const headersEnd = received.indexOf('\r\n\r\n');
          if (sent || headersEnd < 0 || received.length < headersEnd + 5) return;
          sent = true;
          socket.write(received.subarray(0, headersEnd + 5));
        });
      }
      return;
    }
    socket.once('data', () => {
      if (fault === 'reset') socket.resetAndDestroy();
      else if (fault !== 'hang') {
        const body = JSON.stringify({ error: fault.error });
        socket.end(
          `HTTP/1.1 ${fault.status} Fault\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    connections: () => connections,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP server that is not the gateway: it answers every request with `status` and `body` as given. */
export async function startOtherServer(status: number, body: string, contentType = 'text/html') {
  const server = createHttpServer((_request, response) => response.writeHead(status, { 'content-type': contentType }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** A port nothing listens on (bound, then closed at once): connections to it are refused. */
export async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
