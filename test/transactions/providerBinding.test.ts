import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { createCharge, fund, withdraw } from '../helpers/api.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

// DESIGN.md §14 "Binding": every transaction records the provider that issued or sent it; operators
// read it, merchants never do.

let gateway: Gateway;
let merchant: Merchant;
beforeAll(async () => {
  gateway = await startGateway();
  merchant = await gateway.createMerchant();
  await fund(gateway, merchant, 100_000);
});
afterAll(() => gateway.close());

describe('provider binding', () => {
  it('a charge and a withdrawal record the provider that took them: `default` without PROVIDERS_FILE', async () => {
    const chargeId = await createCharge(gateway, merchant);
    const sent = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_500 }));
    expect(sent.status).toBe(201);
    const withdrawalId: string = sent.body.transactionId;
    const rows = await gateway.database.db
      .selectFrom('transactions')
      .select(['id', 'providerId'])
      .where('id', 'in', [chargeId, withdrawalId])
      .orderBy('type')
      .execute();
    expect(rows).toEqual([
      { id: chargeId, providerId: 'default' },
      { id: withdrawalId, providerId: 'default' },
    ]);
  });

  it('the database refuses a transaction that names no provider (migration 013 keeps no default after filling the old rows)', async () => {
    const insert = sql`INSERT INTO transactions (id, account_id, type, status, amount_cents, fee_cents, net_cents, created_at, updated_at)
      VALUES (${newId()}::uuid, ${merchant.accountId}::uuid, 'pix_in', 'pending', 100, 0, 100, now(), now())`;
    await expect(insert.execute(gateway.database.db)).rejects.toThrow(/provider_id/);
  });

  it('GET /admin/v1/transactions/{id}: the Transaction object plus accountId and providerId; the merchant API shows neither', async () => {
    const chargeId = await createCharge(gateway, merchant, { amountCents: 4_321 });
    const merchantView = await gateway.call('GET', `/v1/transactions/${chargeId}`, { key: merchant.apiKey });
    expect(merchantView.status).toBe(200);
    expect(merchantView.body).not.toHaveProperty('providerId');
    expect(merchantView.body).not.toHaveProperty('accountId');

    const operatorView = await gateway.admin('GET', `/admin/v1/transactions/${chargeId}`);
    expect(operatorView.status).toBe(200);
    expect(operatorView.body).toEqual({ ...merchantView.body, accountId: merchant.accountId, providerId: 'default' });
  });

  it('GET /admin/v1/transactions/{id} refuses a malformed id (400), an unknown one (404) and a missing token (401)', async () => {
    expect(await gateway.admin('GET', '/admin/v1/transactions/abc')).toMatchObject({ status: 400, body: { error: 'transactionId inválido.' } });
    expect(await gateway.admin('GET', `/admin/v1/transactions/${newId()}`)).toMatchObject({ status: 404, body: { error: 'Transação não encontrada.' } });
    const chargeId = await createCharge(gateway, merchant);
    const anonymous = await gateway.call('GET', `/admin/v1/transactions/${chargeId}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: expect.any(String) });
  });
});
