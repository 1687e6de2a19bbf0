import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf } from '../helpers/api.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/contract.js';

/** Cents stay exact: no balance may leave ±(2^53 − 1), and a refused movement writes nothing. */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway.close();
});

const adjust = (accountId: string, amountCents: number) =>
  gateway.admin('POST', `/admin/v1/accounts/${accountId}/adjustments`, { amountCents, reason: 'teste de limite' });

describe('an adjustment past the safe integer range', () => {
  it('answers 422 with a clear message; the balance and the ledger stay as they were', async () => {
    const merchant = await gateway.createMerchant();
    expect((await adjust(merchant.accountId, Number.MAX_SAFE_INTEGER - 10)).status).toBe(201);
    const refused = await adjust(merchant.accountId, 11);
    expect(refused).toMatchObject({ status: 422, body: { error: messages.balanceOutOfRange(Number.MAX_SAFE_INTEGER) } });
    expect(errorOf(refused.body)).toBe('Operação levaria o saldo além do limite (R$ 90.071.992.547.409,91).');
    expect(await balanceOf(gateway, merchant)).toBe(Number.MAX_SAFE_INTEGER - 10);
    expect(await gateway.ledgerProblems()).toEqual([]);
    // Up to the limit itself is fine.
    expect((await adjust(merchant.accountId, 10)).body.available).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('two adjustments that each fit but not together: the second is refused', async () => {
    const merchant = await gateway.createMerchant();
    const half = Math.floor(Number.MAX_SAFE_INTEGER / 2) + 1;
    expect((await adjust(merchant.accountId, half)).status).toBe(201);
    expect(await adjust(merchant.accountId, half)).toMatchObject({ status: 422, body: { error: messages.balanceOutOfRange(Number.MAX_SAFE_INTEGER) } });
    expect(await balanceOf(gateway, merchant)).toBe(half);
  });

  it('a negative adjustment below zero keeps its own message', async () => {
    const merchant = await gateway.createMerchant();
    expect(await adjust(merchant.accountId, -1)).toMatchObject({ status: 422, body: { error: messages.adjustmentWouldGoNegative } });
  });
});
