import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertChargesWithinRateLimit, type ChargeWrite } from '../../src/charges/repository.js';
import { newId } from '../../src/platform/ids.js';
import type { ChargeCustomer } from '../../src/platform/schema.js';
import { backend, startGateway, type Gateway } from '../helpers/gateway.js';

/**
 * The new charges of many requests in one statement (ChargeService groups them): each account's
 * window is counted once for all its charges, and only those that fit are written, in order.
 */
let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

const HOUR_MS = 3_600_000;
const customer: ChargeCustomer = { name: 'Ana Pagadora', email: 'ana@example.com', document: { number: '52998224725', type: 'cpf' } };

function writeOf(accountId: string, limit: number, at: Date): ChargeWrite {
  const id = newId();
  return {
    charge: {
      id,
      accountId,
      amountCents: 1_000,
      feeCents: 10,
      externalRef: null,
      customer,
      pixPayload: `payload-${id}`,
      location: `pix.example/v2/${id}`,
      expiresAt: new Date(at.getTime() + HOUR_MS),
      providerId: 'default',
      due: null,
      createdAt: at,
    },
    window: { bucket: 'pix:hour', windowMs: HOUR_MS, limit },
  };
}

describe(`charges written together (${backend})`, () => {
  it('counts each account once per statement, writes the first that fit and refuses the rest, across statements too', async () => {
    const [first, second] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const at = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 60_000);
    const db = gateway.database.db;
    // Interleaved: 5 of the first account (limit 3), 2 of the second (limit 3).
    const batch = [first, second, first, first, second, first, first].map((merchant) => writeOf(merchant.accountId, 3, at));
    expect(await insertChargesWithinRateLimit(db, batch)).toEqual([true, true, true, true, true, false, false]);
    // The first account's window is full; the second has room for one more.
    const next = [writeOf(first.accountId, 3, at), writeOf(second.accountId, 3, at), writeOf(second.accountId, 3, at)];
    expect(await insertChargesWithinRateLimit(db, next)).toEqual([false, true, false]);
    // A limit raised within the hour gives room at once: refusals were not counted.
    const raised = [writeOf(first.accountId, 4, at), writeOf(first.accountId, 4, at)];
    expect(await insertChargesWithinRateLimit(db, raised)).toEqual([true, false]);

    const counters = await db.selectFrom('rateCounters').select(['accountId', 'count']).where('accountId', 'in', [first.accountId, second.accountId]).execute();
    expect(Object.fromEntries(counters.map((row) => [row.accountId, row.count]))).toEqual({ [first.accountId]: 4, [second.accountId]: 3 });
    const written = await db
      .selectFrom('transactions')
      .select(['id', 'status', 'netCents'])
      .where('accountId', 'in', [first.accountId, second.accountId])
      .execute();
    const fitted = [...batch.slice(0, 5), next[1], raised[0]].map((write) => write?.charge.id);
    expect(written.map((row) => row.id).sort()).toEqual(fitted.sort());
    expect(written.every((row) => row.status === 'pending' && row.netCents === 990)).toBe(true);
  });

  it('counts a statement that spans two windows in each', async () => {
    const merchant = await gateway.createMerchant();
    const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 2 * HOUR_MS;
    const [before, after] = [new Date(hour + HOUR_MS - 1), new Date(hour + HOUR_MS)];
    const batch = [before, after, before, after, before].map((at) => writeOf(merchant.accountId, 2, at));
    expect(await insertChargesWithinRateLimit(gateway.database.db, batch)).toEqual([true, true, true, true, false]);
  });
});
