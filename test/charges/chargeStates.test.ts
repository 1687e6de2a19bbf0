import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { allows, CHARGE, type Transition } from '../../src/transactions/states.js';
import type { ChargeStatus } from '../../src/platform/schema.js';
import { createCharge, eventNames, paidCharge, readTransaction } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant, NO_CHARGE_FEES } from '../helpers/gateway.js';

/**
 * Every operation on a charge against every status a charge can reach through the API: allowed
 * exactly where the transition table says, with the table's status and events; refused with the
 * operation's own 422 message everywhere else, nothing changed.
 */
let gateway: Gateway;
let merchant: Merchant;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
  merchant = await gateway.createMerchant(NO_CHARGE_FEES);
  await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: 1_000_000, reason: 'fundos' });
});
afterAll(async () => {
  await gateway.close();
});

const post = <P extends string>(path: P, body?: unknown) => gateway.call('POST', path, { key: merchant.apiKey, ...(body === undefined ? {} : { body }) });

async function settledRefund(id: string, amountCents?: number) {
  const created = await post(`/v1/transactions/${id}/refunds`, amountCents === undefined ? {} : { amountCents });
  expect(created.status).toBe(201);
  expect((await post(`/sandbox/v1/refunds/${created.body.refundId}/settle`, { outcome: 'refunded' })).status).toBe(200);
}

/** A charge of 1000 cents brought to each status through the API. */
const reach: Record<ChargeStatus, () => Promise<string>> = {
  pending: () => createCharge(gateway, merchant),
  paid: () => paidCharge(gateway, merchant),
  expired: async () => {
    const id = await createCharge(gateway, merchant);
    expect((await post(`/sandbox/v1/pix/${id}/expire`)).status).toBe(200);
    return id;
  },
  cancelled: async () => {
    const id = await createCharge(gateway, merchant);
    expect((await post(`/v1/pix/${id}/cancel`)).status).toBe(200);
    return id;
  },
  failed: async () => {
    const id = await createCharge(gateway, merchant);
    expect((await post(`/sandbox/v1/pix/${id}/fail`)).status).toBe(200);
    return id;
  },
  partially_refunded: async () => {
    const id = await paidCharge(gateway, merchant);
    await settledRefund(id, 300);
    return id;
  },
  refunded: async () => {
    const id = await paidCharge(gateway, merchant);
    await settledRefund(id);
    return id;
  },
};

type Operation = {
  transition: Transition;
  call: (id: string) => ReturnType<typeof post>;
  okStatus: number;
  refusal: (status: string) => string;
  settles: boolean;
};

const operations: Record<string, Operation> = {
  pay: { transition: CHARGE.pay, call: (id) => post(`/sandbox/v1/pix/${id}/pay`), okStatus: 200, refusal: messages.chargeNotPending, settles: true },
  expire: { transition: CHARGE.expire, call: (id) => post(`/sandbox/v1/pix/${id}/expire`), okStatus: 200, refusal: messages.chargeNotPending, settles: true },
  fail: { transition: CHARGE.fail, call: (id) => post(`/sandbox/v1/pix/${id}/fail`), okStatus: 200, refusal: messages.chargeNotPending, settles: true },
  cancel: { transition: CHARGE.cancel, call: (id) => post(`/v1/pix/${id}/cancel`), okStatus: 200, refusal: messages.chargeNotCancellable, settles: true },
  refund: {
    transition: CHARGE.refundInPart,
    call: (id) => post(`/v1/transactions/${id}/refunds`, { amountCents: 100 }),
    okStatus: 201,
    refusal: messages.refundChargeNotPaid,
    // The status moves when the refund settles, not at its creation.
    settles: false,
  },
  infraction: {
    transition: CHARGE.refundInPart,
    call: (id) => post(`/sandbox/v1/pix/${id}/infraction`, { reason: 'fraud', amountCents: 100 }),
    okStatus: 201,
    refusal: () => messages.infractionChargeNotPaid,
    settles: false,
  },
};

const cases = (Object.keys(reach) as ChargeStatus[]).flatMap((status) => Object.entries(operations).map(([name, operation]) => ({ status, name, operation })));

describe('charge operations against every reachable status', () => {
  it.each(cases)('$name on a $status charge', async ({ status, operation }) => {
    const id = await reach[status]();
    expect((await readTransaction(gateway, merchant, id)).status).toBe(status);
    const eventsBefore = await eventNames(gateway, id);
    const answer = await operation.call(id);
    if (allows(operation.transition, status)) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(operation.okStatus);
      const after = (await readTransaction(gateway, merchant, id)).status;
      expect(after).toBe(operation.settles ? operation.transition.to : status);
      if (operation.settles) expect(await eventNames(gateway, id)).toEqual([...eventsBefore, ...operation.transition.events]);
    } else {
      expect(answer).toMatchObject({ status: 422, body: { error: operation.refusal(status) } });
      expect((await readTransaction(gateway, merchant, id)).status).toBe(status);
      expect(await eventNames(gateway, id)).toEqual(eventsBefore);
    }
  });

  it('covers every charge transition that leaves a status', () => {
    const covered = new Set<Transition>(Object.values(operations).map((operation) => operation.transition));
    // In full or in part is decided by the settled amount (refunds and MED tests).
    covered.add(CHARGE.refundInFull);
    const leaving = Object.values(CHARGE).filter((transition) => transition.from.length > 0);
    expect(leaving.filter((transition) => !covered.has(transition))).toEqual([]);
  });
});
