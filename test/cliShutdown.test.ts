import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chargeBody } from './helpers/gateway.js';

/** SIGTERM on a real compiled `serve`: new connections refused, the request in flight answered, exit 0. */
const start = join(process.cwd(), 'scripts/start.mjs');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('graceful shutdown of serve', { timeout: 90_000 }, () => {
  it('finishes a request in flight after SIGTERM, refuses new connections, exits 0', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [start, 'serve'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: 'memory://', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await expect.poll(() => /API key \(shown once\): (svck_[0-9a-f]{64})/.test(output), { timeout: 60_000, interval: 100 }).toBe(true);
    const apiKey = /API key \(shown once\): (svck_[0-9a-f]{64})/.exec(output)?.[1] ?? '';

    // A charge request whose body is still arriving when the signal comes.
    const body = JSON.stringify(chargeBody());
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /v1/pix HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Not accepting any more.
    const refused = await new Promise<string>((resolve) => {
      const probe = connect(port, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve('connected');
      });
      probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');

    socket.write(body.slice(10));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer).toMatch(/"status":"pending"/);
    expect(await exited).toBe(0);
  });
});
