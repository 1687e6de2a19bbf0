import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { chargeBody, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/** JSON bodies: UTF-8 only (RFC 8259), refused rather than repaired, and of a sane depth. */
let gateway: Gateway;
let merchant: Merchant;

beforeAll(async () => {
  gateway = await startGateway();
  merchant = await gateway.createMerchant();
});
afterAll(async () => {
  await gateway.close();
});

const post = (body: string | Uint8Array, contentType: string) =>
  fetch(`${gateway.url}/v1/pix`, { method: 'POST', headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': contentType }, body }).then(
    async (response) => ({ status: response.status, body: await response.json() }),
  );

describe('charset and encoding', () => {
  it.each([
    'application/json; charset=iso-8859-1',
    'application/json; charset=latin1',
    'application/json;charset="windows-1252"',
    'application/json; charset=utf-16',
  ])('%s: 400', async (contentType) => {
    expect(await post(JSON.stringify(chargeBody()), contentType)).toEqual({ status: 400, body: { error: messages.bodyCharsetInvalid } });
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset="utf8"'])(
    '%s is accepted',
    async (contentType) => {
      expect((await post(JSON.stringify(chargeBody()), contentType)).status).toBe(201);
    },
  );

  it('bytes that are not UTF-8 are refused, not replaced by U+FFFD, and nothing is stored', async () => {
    const json = Buffer.from(JSON.stringify(chargeBody({ customer: { ...chargeBody().customer, name: 'Jos__' } })), 'utf8');
    const at = json.indexOf('__');
    json[at] = 0xc3; // a lead byte…
    json[at + 1] = 0x28; // …followed by a byte that cannot continue it
    expect(await post(json, 'application/json')).toEqual({ status: 400, body: { error: messages.bodyNotUtf8 } });
    const lone = Buffer.concat([Buffer.from('{"amountCents": 1000, "x": "'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect(await post(lone, 'application/json')).toEqual({ status: 400, body: { error: messages.bodyNotUtf8 } });
    const list = await gateway.call('GET', '/v1/transactions', { key: merchant.apiKey });
    expect(list.body.transactions.every((transaction: { status: string }) => transaction.status === 'pending')).toBe(true);
    expect(JSON.stringify(list.body)).not.toContain('\uFFFD');
  });

  it('valid UTF-8 beyond ASCII is kept as sent', async () => {
    const created = await post(JSON.stringify(chargeBody({ customer: { ...chargeBody().customer, name: 'João Ñandú 😀' } })), 'application/json');
    expect(created.status).toBe(201);
  });
});

describe('nesting', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('valid JSON nested thousands deep: 400 saying it is too deep, not "not JSON"', async () => {
    expect(await post(`{"amountCents": 1000, "deep": ${nested(5_000)}}`, 'application/json')).toEqual({
      status: 400,
      body: { error: messages.bodyTooDeep(32) },
    });
    expect(await post(nested(30_000), 'application/json')).toEqual({ status: 400, body: { error: messages.bodyTooDeep(32) } });
  });

  it('up to 32 levels the body goes on to validation', async () => {
    const reply = await post(`{"amountCents": 1000, "customer": ${'{"a":'.repeat(30)}1${'}'.repeat(30)}}`, 'application/json');
    expect(reply.status).toBe(400);
    expect(reply.body).not.toEqual({ error: messages.bodyTooDeep(32) });
  });
});
