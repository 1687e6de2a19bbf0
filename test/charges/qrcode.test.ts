// A CommonJS package: its default export is the module object, whose `default` is the decoder.
import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { createCharge, fund, readTransaction } from '../helpers/api.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/** GET /v1/pix/{id}/qrcode (DESIGN.md §10): images decoded by an independent QR reader back to the exact pixPayload. */
let gateway: Gateway;
let merchant: Merchant;

beforeAll(async () => {
  gateway = await startGateway();
  merchant = await gateway.createMerchant();
});
afterAll(() => gateway.close());

async function image(transactionId: string, query = '', key = merchant.apiKey) {
  const response = await fetch(`${gateway.url}/v1/pix/${transactionId}/qrcode${query}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

function decodePng(bytes: Buffer): { text: string | undefined; width: number } {
  const png = PNG.sync.read(bytes);
  return { text: jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height)?.data, width: png.width };
}

describe('GET /v1/pix/{id}/qrcode', () => {
  it('a PNG of 256 px by default that decodes to the exact pixPayload', async () => {
    const id = await createCharge(gateway, merchant);
    const payload = (await readTransaction(gateway, merchant, id)).pixPayload;
    const reply = await image(id);
    expect(reply.status).toBe(200);
    expect(reply.type).toBe('image/png');
    expect(decodePng(reply.bytes)).toEqual({ text: payload, width: 256 });
  });

  it.each([128, 512, 1024])('size %i px', async (size) => {
    const id = await createCharge(gateway, merchant, { amountCents: 123_456 });
    const decoded = decodePng((await image(id, `?size=${size}`)).bytes);
    expect(decoded).toEqual({ text: (await readTransaction(gateway, merchant, id)).pixPayload, width: size });
  });

  it('an SVG of the same code', async () => {
    const id = await createCharge(gateway, merchant);
    const reply = await image(id, '?format=svg');
    expect(reply.status).toBe(200);
    expect(reply.type).toMatch(/^image\/svg\+xml/);
    const svg = reply.bytes.toString('utf8');
    expect(svg).toMatch(/^<svg [^>]*width="256"[^>]*>/);
    expect(svg).not.toMatch(/<script/i);
  });

  it.each([
    ['?format=jpg', messages.qrFormatInvalid('jpg')],
    ['?size=127', messages.qrSizeInvalid],
    ['?size=1025', messages.qrSizeInvalid],
    ['?size=abc', messages.qrSizeInvalid],
    ['?size=256.5', messages.qrSizeInvalid],
  ])('%s is 400', async (query, error) => {
    const id = await createCharge(gateway, merchant);
    const reply = await image(id, query);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.bytes.toString('utf8'))).toEqual({ error });
  });

  it("a withdrawal, another merchant's charge and a malformed id are refused like GET /v1/transactions/{id}", async () => {
    const other = await gateway.createMerchant();
    const id = await createCharge(gateway, merchant);
    const foreign = await image(id, '', other.apiKey);
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.bytes.toString('utf8'))).toEqual({ error: messages.transactionNotFound });
    await fund(gateway, merchant, 5_000);
    const withdrawal = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect((await image(withdrawal.body.transactionId)).status).toBe(404);
    const malformed = await image('x');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.bytes.toString('utf8'))).toEqual({ error: messages.transactionIdInvalid });
    expect((await image(id, '', 'svck_' + '0'.repeat(64))).status).toBe(401);
  });
});
