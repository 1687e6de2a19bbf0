import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Clients that pipeline requests and never read the answers must not grow a `serve` process
 * without bound nor slow down other clients. A real compiled process, its RSS read from /proc.
 */
const start = join(process.cwd(), 'scripts/start.mjs');
let child: ChildProcess;
let port = 0;
let apiKey = '';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const rssMiB = (): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Opens `sockets` connections that each write `requests` pipelined requests at once and never read. */
function abuse(sockets: number, requests: number, request: string): Socket[] {
  return Array.from({ length: sockets }, () => {
    const socket = connect(port, '127.0.0.1');
    socket.pause(); // never read a byte of the answers
    socket.on('error', () => undefined); // the server is expected to close these
    socket.write(request.repeat(requests));
    return socket;
  });
}

/** The server closed these connections: once the client finally reads, each ends. */
async function closedByServer(sockets: Socket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise((resolve) => {
          socket.once('close', resolve);
          socket.resume();
        }),
    ),
  );
}

/** Another client's request, answered in full while the abusers hold their connections. */
async function health(): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`);
  return { status: response.status, body: await response.text() };
}

const stillOpen = (sockets: Socket[]) => sockets.filter((socket) => !socket.destroyed && !socket.closed).length;

beforeAll(async () => {
  port = await freePort();
  child = spawn(process.execPath, [start, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: 'memory://', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  while (!/API key \(shown once\): (svck_[0-9a-f]{64})/.test(output)) {
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  apiKey = /API key \(shown once\): (svck_[0-9a-f]{64})/.exec(output)?.[1] ?? '';
}, 90_000);

afterAll(() => {
  child.kill('SIGKILL');
});

describe.runIf(process.platform === 'linux')('pipelining clients that never read', { timeout: 60_000 }, () => {
  it('ten sockets × 2,000 GET /openapi.json: RSS bounded, others answered while the abusers hold on, abusers closed', async () => {
    const before = rssMiB();
    const sockets = abuse(10, 2_000, 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n');
    let peak = before;
    // What happened, not how fast (that is the benchmark's to judge): every other client's
    // request is answered in full while all ten abusers are still connected, never reading.
    for (let probe = 0; probe < 10; probe++) {
      expect(await health()).toEqual({ status: 200, body: '{"status":"ok"}' });
      expect(stillOpen(sockets)).toBe(10);
      peak = Math.max(peak, rssMiB());
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    peak = Math.max(peak, rssMiB());
    expect(peak - before).toBeLessThan(256);
    await closedByServer(sockets);
  });

  it('with a merchant key, pipelined GET /v1/transactions?limit=100 is bounded the same way', async () => {
    const before = rssMiB();
    const sockets = abuse(4, 2_000, `GET /v1/transactions?limit=100 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(rssMiB() - before).toBeLessThan(256);
    expect(await health()).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(stillOpen(sockets)).toBe(4);
    await closedByServer(sockets);
  });

  it('a client that pipelines a few requests and reads them gets every answer', async () => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(8) + 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await new Promise((resolve) => socket.once('close', resolve));
    expect(received.match(/HTTP\/1\.1 200 /g)).toHaveLength(9);
  });
});
