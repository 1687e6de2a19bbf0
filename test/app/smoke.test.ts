import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf } from '../helpers/api.js';
import { chargeBody, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

let gateway: Gateway;
let merchant: Merchant;
beforeAll(async () => {
  gateway = await startGateway();
  merchant = await gateway.createMerchant();
});
afterAll(() => gateway.close());

describe('smoke', () => {
  it('creates and pays a charge', async () => {
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect(created.status).toBe(201);
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, { key: merchant.apiKey });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('paid');
    expect(await balanceOf(gateway, merchant)).toBe(950);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
