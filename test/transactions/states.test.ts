import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allows, CHARGE, WITHDRAWAL } from '../../src/transactions/states.js';
import { CHARGE_STATUSES, WITHDRAWAL_STATUSES, type TransactionStatus } from '../../src/platform/schema.js';
import { CANONICAL_EVENTS } from '../../src/webhooks/events.js';
import { backend, chargeBody, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

const chargeTransitions = Object.entries(CHARGE);
const withdrawalTransitions = Object.entries(WITHDRAWAL);
const ALL_STATUSES = [...new Set<TransactionStatus>([...CHARGE_STATUSES, ...WITHDRAWAL_STATUSES])];

describe('the transition tables', () => {
  it("every charge transition goes from and to charge statuses, with type 'pix_in'", () => {
    for (const [name, transition] of chargeTransitions) {
      expect(transition.type, name).toBe('pix_in');
      expect(CHARGE_STATUSES, name).toContain(transition.to);
      for (const from of transition.from) expect(CHARGE_STATUSES, name).toContain(from);
    }
  });

  it("every withdrawal transition goes from and to withdrawal statuses, with type 'withdrawal'", () => {
    for (const [name, transition] of withdrawalTransitions) {
      expect(transition.type, name).toBe('withdrawal');
      expect(WITHDRAWAL_STATUSES, name).toContain(transition.to);
      for (const from of transition.from) expect(WITHDRAWAL_STATUSES, name).toContain(from);
    }
  });

  it('the creating transitions (no from) are exactly CHARGE.create, CHARGE.receive (a static QR code paid), WITHDRAWAL.submit and WITHDRAWAL.hold', () => {
    const creating = [
      ...chargeTransitions.map(([name, t]) => [`CHARGE.${name}`, t] as const),
      ...withdrawalTransitions.map(([name, t]) => [`WITHDRAWAL.${name}`, t] as const),
    ]
      .filter(([, transition]) => transition.from.length === 0)
      .map(([name]) => name);
    expect(creating.sort()).toEqual(['CHARGE.create', 'CHARGE.receive', 'WITHDRAWAL.hold', 'WITHDRAWAL.submit']);
    expect(CHARGE.create.to).toBe('pending');
    expect(CHARGE.receive.to).toBe('paid');
    expect(CHARGE.receive.events).toEqual(['transaction.paid']);
    expect(WITHDRAWAL.submit.to).toBe('processing');
    expect(WITHDRAWAL.hold.to).toBe('pending_approval');
  });

  it('every event name is canonical', () => {
    for (const [name, transition] of [...chargeTransitions, ...withdrawalTransitions]) {
      for (const event of transition.events) expect(CANONICAL_EVENTS, name).toContain(event);
    }
  });

  it('charge transitions name only transaction.* events and withdrawal ones only transfer.*', () => {
    const chargeEvents = chargeTransitions.flatMap(([, transition]) => transition.events);
    const withdrawalEvents = withdrawalTransitions.flatMap(([, transition]) => transition.events);
    expect(chargeEvents.filter((event) => !event.startsWith('transaction.'))).toEqual([]);
    expect(withdrawalEvents.filter((event) => !event.startsWith('transfer.'))).toEqual([]);
  });

  it('the tables and their transitions are frozen', () => {
    expect(Object.isFrozen(CHARGE)).toBe(true);
    expect(Object.isFrozen(WITHDRAWAL)).toBe(true);
    for (const [name, transition] of [...chargeTransitions, ...withdrawalTransitions]) expect(Object.isFrozen(transition), name).toBe(true);
    // An assignment to a frozen object has no effect (and throws in strict code).
    expect(Reflect.set(CHARGE, 'pay', { type: 'pix_in', from: ['expired'], to: 'paid', events: [] })).toBe(false);
    expect(Reflect.set(CHARGE, 'refund', { type: 'pix_in', from: ['paid'], to: 'refunded', events: [] })).toBe(false);
    expect(Reflect.set(WITHDRAWAL.settle, 'to', 'refunded')).toBe(false);
    expect('refund' in CHARGE).toBe(false);
    expect(CHARGE.pay.from).toEqual(['pending']);
    expect(WITHDRAWAL.settle.to).toBe('paid');
  });

  it('allows is true exactly for the from statuses', () => {
    for (const [name, transition] of [...chargeTransitions, ...withdrawalTransitions]) {
      const allowed = ALL_STATUSES.filter((status) => allows(transition, status));
      expect(allowed.sort(), name).toEqual([...transition.from].sort());
    }
  });

  it.each([
    ['CHARGE.pay', CHARGE.pay, 'pending', true],
    ['CHARGE.pay', CHARGE.pay, 'paid', false],
    ['CHARGE.expire', CHARGE.expire, 'expired', false],
    ['CHARGE.create', CHARGE.create, 'pending', false],
    ['WITHDRAWAL.submit', WITHDRAWAL.submit, 'processing', false],
    ['WITHDRAWAL.approve', WITHDRAWAL.approve, 'pending_approval', true],
    ['WITHDRAWAL.approve', WITHDRAWAL.approve, 'processing', false],
    ['WITHDRAWAL.settle', WITHDRAWAL.settle, 'failed_unknown', true],
    ['WITHDRAWAL.fail', WITHDRAWAL.fail, 'paid', false],
    ['WITHDRAWAL.returnInPart', WITHDRAWAL.returnInPart, 'partially_refunded', false],
  ] as const)('allows(%s, %s) is %s', (_name, transition, status, expected) => {
    expect(allows(transition, status)).toBe(expected);
  });
});

describe('migration 005: the CHECK lists the statuses of the tables', () => {
  const migration = readFileSync(new URL('../../src/migrations/005_states_and_provider.sql', import.meta.url), 'utf8');
  const statusesOf = (type: string): string[] => {
    const list = new RegExp(`type = '${type}' AND status IN \\(([^)]*)\\)`).exec(migration)?.[1];
    if (list === undefined) throw new Error(`no status list for ${type} in migration 005`);
    return list.split(',').map((item) => {
      const quoted = /^'([a-z_]+)'$/.exec(item.trim());
      if (!quoted?.[1]) throw new Error(`unexpected item in the ${type} list: ${item}`);
      return quoted[1];
    });
  };

  it('pix_in: exactly CHARGE_STATUSES', () => {
    const listed = statusesOf('pix_in');
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.sort()).toEqual([...CHARGE_STATUSES].sort());
  });

  it('withdrawal: exactly WITHDRAWAL_STATUSES', () => {
    const listed = statusesOf('withdrawal');
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.sort()).toEqual([...WITHDRAWAL_STATUSES].sort());
  });
});

describe(`the database CHECK on transaction statuses (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;
  let chargeId: string;
  let withdrawalId: string;

  beforeAll(async () => {
    gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
    merchant = await gateway.createMerchant();
    const charge = await gateway.call<{ transactionId: string }>('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect(charge.status).toBe(201);
    chargeId = charge.body.transactionId;
    const credit = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: 5000, reason: 'x' });
    expect(credit.status).toBe(201);
    const withdrawal = await gateway.call<{ transactionId: string; status: string }>('POST', '/v1/withdraw', {
      key: merchant.apiKey,
      body: { amountCents: 500, pixKey: '529.982.247-25', pixKeyType: 'cpf' },
    });
    expect(withdrawal.status).toBe(201);
    expect(withdrawal.body.status).toBe('processing');
    withdrawalId = withdrawal.body.transactionId;
  });
  afterAll(() => gateway.close());

  /** Raw SQL: the point is to write what the code never would. */
  const setStatus = (id: string, status: string) => sql`UPDATE transactions SET status = ${status} WHERE id = ${id}`.execute(gateway.database.db);
  const statusOf = async (id: string) =>
    (await gateway.database.db.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const refusalOf = async (id: string, status: string): Promise<unknown> => {
    try {
      await setStatus(id, status);
    } catch (error) {
      return error;
    }
    throw new Error(`status ${status} was accepted`);
  };

  it.each(CHARGE_STATUSES)('a charge may be %s', async (status) => {
    const result = await setStatus(chargeId, status);
    expect(result.numAffectedRows).toBe(1n);
    expect(await statusOf(chargeId)).toBe(status);
  });

  it.each(['processing', 'pending_approval', 'failed_unknown', 'bogus'])('a charge may not be %s (23514 check_violation)', async (status) => {
    const before = await statusOf(chargeId);
    const error = await refusalOf(chargeId, status);
    expect(error).toMatchObject({ code: '23514', constraint: 'transactions_status_valid' });
    expect(await statusOf(chargeId)).toBe(before);
  });

  it.each(WITHDRAWAL_STATUSES)('a withdrawal may be %s', async (status) => {
    const result = await setStatus(withdrawalId, status);
    expect(result.numAffectedRows).toBe(1n);
    expect(await statusOf(withdrawalId)).toBe(status);
  });

  it.each(['pending', 'expired', 'bogus'])('a withdrawal may not be %s (23514 check_violation)', async (status) => {
    const before = await statusOf(withdrawalId);
    const error = await refusalOf(withdrawalId, status);
    expect(error).toMatchObject({ code: '23514', constraint: 'transactions_status_valid' });
    expect(await statusOf(withdrawalId)).toBe(before);
  });
});
