import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, WebhookClient, type Lookup } from '../../src/webhooks/outbound.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** Outbound webhook calls with private receivers NOT allowed (the production default). */
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const strict = (lookup?: Lookup) => new WebhookClient({ timeoutMs: 2000, allowPrivate: false, ...(lookup ? { lookup } : {}) });
const post = (client: WebhookClient, url: string) => client.post(url, { 'x-svc-event': 'transaction.paid' }, '{}');

describe('address rules', () => {
  const cases: [string, boolean][] = [
    ['8.8.8.8', true],
    ['2001:4860:4860::8888', true],
    ['127.0.0.1', false],
    ['127.8.9.10', false],
    ['0.0.0.0', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false], // cloud metadata
    ['100.64.0.1', false], // CGNAT
    ['192.0.0.1', false],
    ['198.18.0.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00:ec2::254', false], // cloud metadata (IPv6)
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['64:ff9b::a00:1', false], // NAT64 of a private address
    ['2002:a00:1::', false], // 6to4
    ['not an address', false],
  ];
  for (const [address, allowed] of cases) {
    it(`${address} is ${allowed ? 'public' : 'refused'}`, () => expect(isPublicAddress(address)).toBe(allowed));
  }
});

describe('delivery refuses what is not public, at connect time', () => {
  it('refuses http:// without dialling', async () => {
    const before = receiver.received.length;
    expect(await post(strict(), receiver.url())).toMatchObject({ status: null, error: 'only https:// URLs are delivered', refused: true });
    expect(receiver.received.length).toBe(before);
  });

  for (const url of [
    'https://127.0.0.1:1/hook',
    'https://[::1]:1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/hook',
    'https://[::ffff:7f00:1]/hook',
  ]) {
    it(`refuses the literal address of ${url}`, async () => {
      const response = await post(strict(), url);
      expect(response.status).toBeNull();
      expect(response.error).toBe('blocked: destination address not allowed');
    });
  }

  it('refuses a name that resolves to loopback (localhost)', async () => {
    const response = await post(strict(), `https://localhost:${receiver.port}/hook`);
    expect(response).toMatchObject({ status: null, error: 'blocked: destination address not allowed' });
  });

  it('refuses a name with any private address among its answers', async () => {
    const lookup: Lookup = (_hostname, _options, callback) =>
      callback(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '10.1.1.1', family: 4 },
      ]);
    expect((await post(strict(lookup), 'https://hooks.example.com/pix')).error).toBe('blocked: destination address not allowed');
  });

  it('resolves again on every attempt: a name that turns private (DNS rebinding) is caught', async () => {
    // The name answers a public address first (dialled: this closed network then fails it, but not
    // as "blocked"), then loopback.
    const answers = ['8.8.8.8', '127.0.0.1'];
    let lookups = 0;
    const lookup: Lookup = (_hostname, _options, callback) => callback(null, [{ address: answers[lookups++]!, family: 4 }]);
    const client = new WebhookClient({ timeoutMs: 1000, allowPrivate: false, lookup });
    const first = await post(client, 'https://rebind.example.com/hook');
    const second = await post(client, 'https://rebind.example.com/hook');
    expect(first.status).toBeNull();
    expect(first.error).not.toMatch(/^blocked/);
    expect(second.error).toBe('blocked: destination address not allowed');
    expect(lookups).toBe(2);
  });
});

describe('responses', () => {
  it('does not follow redirects', async () => {
    const relaxed = new WebhookClient({ timeoutMs: 2000, allowPrivate: true });
    receiver.answerWith((request) => (request.path === '/moved' ? { status: 307, headers: { location: receiver.url('/target') } } : { status: 200 }));
    const response = await relaxed.post(receiver.url('/moved'), {}, '{}');
    expect(response.status).toBe(307);
    expect(receiver.received.filter((request) => request.path === '/target')).toEqual([]);
    receiver.answerWith(() => ({ status: 200 }));
  });

  it('reads only a few KB of a large answer', async () => {
    const big = createServerWithBody(50 * 1024 * 1024);
    const { url, close } = await big;
    const relaxed = new WebhookClient({ timeoutMs: 5000, allowPrivate: true });
    const started = Date.now();
    const response = await relaxed.post(url, {}, '{}');
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);
    await close();
  });
});

async function createServerWithBody(bytes: number) {
  const { createServer } = await import('node:http');
  let sent = 0;
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const write = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', write);
      }
      response.end();
    };
    write();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/big`,
    sentBytes: () => sent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
