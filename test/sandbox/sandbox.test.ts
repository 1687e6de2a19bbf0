import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf, createCharge, eventNames, fund, paidCharge, readTransaction, settleWithdrawal, withdraw } from '../helpers/api.js';
import { startGateway, withdrawalToHolder, type Gateway } from '../helpers/gateway.js';

/** The sandbox's answers where several rules meet (the order of checks, a network that lost a withdrawal). */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(async () => {
  await gateway.close();
});

describe('paying a charge that is no longer pending', () => {
  it('answers 422 with its status before looking at the amount', async () => {
    const merchant = await gateway.createMerchant();
    const paid = await paidCharge(gateway, merchant);
    const again = await gateway.call('POST', `/sandbox/v1/pix/${paid}/pay`, { key: merchant.apiKey, body: { amountCents: 1 } });
    expect(again).toMatchObject({ status: 422, body: { error: messages.chargeNotPending('paid') } });

    const expired = await createCharge(gateway, merchant);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${expired}/expire`, { key: merchant.apiKey })).status).toBe(200);
    const late = await gateway.call('POST', `/sandbox/v1/pix/${expired}/pay`, { key: merchant.apiKey, body: { amountCents: 1 } });
    expect(late).toMatchObject({ status: 422, body: { error: messages.chargeNotPending('expired') } });
  });

  it('a pending charge with the wrong amount is still 400', async () => {
    const merchant = await gateway.createMerchant();
    const pending = await createCharge(gateway, merchant);
    const wrong = await gateway.call('POST', `/sandbox/v1/pix/${pending}/pay`, { key: merchant.apiKey, body: { amountCents: 1 } });
    expect(wrong).toMatchObject({ status: 400, body: { error: messages.sandboxAmountMismatch } });
    expect((await readTransaction(gateway, merchant, pending)).status).toBe('pending');
  });
});

describe('a processing withdrawal the network never received', () => {
  it('settles as failed (debit reversed, transfer.failed); "paid" leaves it processing', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 5_000);
    const created = await withdraw(gateway, merchant, withdrawalToHolder());
    expect(created.status).toBe(201);
    const id = created.body.transactionId;
    // As if the process died between the commit and the provider call.
    await gateway.database.db.deleteFrom('sandboxWithdrawals').where('transactionId', '=', id).execute();

    const paid = await settleWithdrawal(gateway, merchant, id, { outcome: 'paid' });
    expect(paid).toMatchObject({ status: 200, body: { status: 'processing' } });
    const failed = await settleWithdrawal(gateway, merchant, id, { outcome: 'failed' });
    expect(failed).toMatchObject({ status: 200, body: { status: 'failed' } });
    expect(await balanceOf(gateway, merchant)).toBe(5_000);
    expect(await eventNames(gateway, id)).toEqual(['transfer.created', 'transfer.processing', 'transfer.failed']);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('a second settlement of a settled withdrawal is 422, whatever it asks', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 5_000);
    const id = (await withdraw(gateway, merchant, withdrawalToHolder())).body.transactionId;
    expect((await settleWithdrawal(gateway, merchant, id, { outcome: 'paid' })).body.status).toBe('paid');
    expect(await settleWithdrawal(gateway, merchant, id, { outcome: 'failed' })).toMatchObject({
      status: 422,
      body: { error: messages.withdrawalWrongStatus('paid') },
    });
    expect((await readTransaction(gateway, merchant, id)).status).toBe('paid');
  });
});
