import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { presentedReader } from '../../src/transactions/repository.js';
import { createCharge } from '../helpers/api.js';
import type { TransactionPage } from '../helpers/contract.js';
import { chargeBody, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

const DAY_SECONDS = 86_400;
const END_TO_END_ID = /^E[0-9A-Z]{8}\d{12}[a-zA-Z0-9]{11}$/;
const SETTLEMENT_FIELDS = ['endToEndId', 'payer', 'beneficiary', 'refundEndToEndId'] as const;
const TRANSACTION_FIELDS = [
  'transactionId',
  'type',
  'amountCents',
  'feeCents',
  'netCents',
  'status',
  'externalRef',
  'pixPayload',
  'expiresAt',
  'paidAt',
  'createdAt',
  'updatedAt',
] as const;

const TYPE_INVALID = (received: string) => `type deve ser 'pix_in' ou 'withdrawal'. Recebido: '${received}'.`;
const LIMIT_INVALID = 'limit deve ser um inteiro entre 1 e 100.';
const ID_INVALID = 'transactionId inválido.';
const NOT_FOUND = 'Transação não encontrada.';

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

/** Creates a charge and returns its transactionId; the clock moves 1 s afterwards so creation times differ. */
async function createChargeThenTick(merchant: Merchant, overrides: Record<string, unknown> = {}): Promise<string> {
  const transactionId = await createCharge(gateway, merchant, overrides);
  gateway.clock.advance(1000);
  return transactionId;
}

const list = (merchant: Merchant, query = '') => gateway.call<TransactionPage>('GET', `/v1/transactions${query}`, { key: merchant.apiKey });
const getOne = (merchant: Merchant, id: string) => gateway.call('GET', `/v1/transactions/${id}`, { key: merchant.apiKey });

/** The 12 digits of an end-to-end id: the UTC minute yyyyMMddHHmm. */
const utcMinute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, '');

describe('GET /v1/transactions', () => {
  let merchant: Merchant;
  const ids: string[] = []; // in creation order

  beforeAll(async () => {
    merchant = await gateway.createMerchant();
    // 55 charges exceed nothing at 1000 per hour (the default is 200, but be explicit).
    const patched = await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { limits: { pixPerHour: 1000 } });
    expect(patched.status).toBe(200);
    for (let i = 0; i < 55; i++) ids.push(await createChargeThenTick(merchant, { externalRef: `order-${i}` }));
  });

  it('lists the 50 most recent by default, newest first, with count = array length', async () => {
    const response = await list(merchant);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['count', 'hasMore', 'transactions']);
    expect(response.body.hasMore).toBe(true);
    const listed = response.body.transactions.map((t: { transactionId: string }) => t.transactionId);
    expect(listed).toEqual([...ids].reverse().slice(0, 50));
    expect(response.body.count).toBe(50);
    expect(response.body.count).toBe(response.body.transactions.length);
    const createdAts = response.body.transactions.map((t: { createdAt: number }) => t.createdAt);
    expect(createdAts).toEqual([...createdAts].sort((a, b) => b - a));
    expect(new Set(createdAts).size).toBe(createdAts.length);
  });

  it('limit=100 returns everything (55), newest first', async () => {
    const response = await list(merchant, '?limit=100');
    expect(response.status).toBe(200);
    expect(response.body.transactions.map((t: { transactionId: string }) => t.transactionId)).toEqual([...ids].reverse());
    expect(response.body.count).toBe(55);
  });

  it('limit=1 returns only the most recent', async () => {
    const response = await list(merchant, '?limit=1');
    expect(response.status).toBe(200);
    expect(response.body.transactions).toHaveLength(1);
    expect(response.body.transactions[0]?.transactionId).toBe(ids[ids.length - 1]);
    expect(response.body.count).toBe(1);
  });

  it('limit=7 returns the 7 most recent', async () => {
    const response = await list(merchant, '?limit=7');
    expect(response.status).toBe(200);
    expect(response.body.transactions.map((t: { transactionId: string }) => t.transactionId)).toEqual([...ids].reverse().slice(0, 7));
    expect(response.body.count).toBe(7);
  });

  it('type=pix_in returns only charges', async () => {
    const response = await list(merchant, '?type=pix_in&limit=100');
    expect(response.status).toBe(200);
    expect(response.body.transactions).toHaveLength(55);
    expect(response.body.count).toBe(55);
    for (const transaction of response.body.transactions) expect(transaction.type).toBe('pix_in');
    expect(response.body.transactions.map((t: { transactionId: string }) => t.transactionId)).toEqual([...ids].reverse());
  });

  it('type=pix_in without limit also defaults to 50', async () => {
    const response = await list(merchant, '?type=pix_in');
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(50);
    expect(response.body.transactions).toHaveLength(50);
  });

  it('type=withdrawal returns an empty list (no withdrawals yet) with count 0', async () => {
    const response = await list(merchant, '?type=withdrawal');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ transactions: [], count: 0, hasMore: false });
  });

  it('a merchant without transactions gets an empty list', async () => {
    const fresh = await gateway.createMerchant();
    const response = await list(fresh);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ transactions: [], count: 0, hasMore: false });
  });

  it.each([
    ['type=foo', TYPE_INVALID('foo')],
    ['type=', TYPE_INVALID('')],
    ['type=PIX_IN', TYPE_INVALID('PIX_IN')],
    ['limit=0', LIMIT_INVALID],
    ['limit=101', LIMIT_INVALID],
    ['limit=abc', LIMIT_INVALID],
    ['limit=1.5', LIMIT_INVALID],
    ['limit=-1', LIMIT_INVALID],
    ['limit=', LIMIT_INVALID],
    ['limit=1e2', LIMIT_INVALID],
    ['limit=1&limit=2', LIMIT_INVALID],
  ])('?%s → 400 with the exact message', async (query, message) => {
    const response = await list(merchant, `?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: message });
  });

  it('repeated type (type=pix_in&type=withdrawal) → 400, not 5xx', async () => {
    const response = await list(merchant, '?type=pix_in&type=withdrawal');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.stringMatching(/^type deve ser 'pix_in' ou 'withdrawal'\. Recebido: /) });
  });

  it('requires an API key', async () => {
    const response = await gateway.call('GET', '/v1/transactions', { key: null });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'API key obrigatória. Use: Authorization: Bearer <key>' });
  });
});

describe('GET /v1/transactions/{id}', () => {
  let merchant: Merchant;
  let other: Merchant;
  let ownId: string;
  let othersId: string;

  beforeAll(async () => {
    merchant = await gateway.createMerchant();
    other = await gateway.createMerchant();
    ownId = await createChargeThenTick(merchant);
    othersId = await createChargeThenTick(other);
  });

  it('reads an own transaction', async () => {
    const response = await getOne(merchant, ownId);
    expect(response.status).toBe(200);
    expect(response.body.transactionId).toBe(ownId);
  });

  it.each([
    ['abc', () => 'abc'],
    ['a UUID v4', () => '9d36b84f-c70b-478f-b95c-12729b90ca25'],
    ['the uppercase of a real id', () => ownId.toUpperCase()],
    ['a real id with a trailing space', () => `${ownId}%20`],
    ['a real id with a leading space', () => `%20${ownId}`],
    ['a real id without dashes', () => ownId.replace(/-/g, '')],
    ['a real id in braces', () => `%7B${ownId}%7D`],
    ['a real id plus one character', () => `${ownId}0`],
    ['the nil UUID', () => '00000000-0000-0000-0000-000000000000'],
  ])('%s → 400 transactionId inválido.', async (_label, id) => {
    const response = await getOne(merchant, id());
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: ID_INVALID });
  });

  it('a well-formed unknown UUID v7 → 404', async () => {
    const response = await getOne(merchant, newId());
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: NOT_FOUND });
  });

  it("another merchant's real transaction → 404 with the same message (not 403)", async () => {
    const response = await getOne(merchant, othersId);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: NOT_FOUND });
    // ... while its owner reads it.
    expect((await getOne(other, othersId)).status).toBe(200);
  });

  it('reads read together keep to their own accounts', async () => {
    // A lone read runs at once; the ones asked meanwhile run together in one statement
    // (presentedReader): both merchants ask for both charges in that one batch.
    const read = presentedReader(gateway.database.db);
    const [first, ...together] = await Promise.all([
      read({ accountId: merchant.accountId, transactionId: ownId }),
      read({ accountId: other.accountId, transactionId: othersId }),
      read({ accountId: merchant.accountId, transactionId: othersId }),
      read({ accountId: other.accountId, transactionId: ownId }),
      read({ accountId: merchant.accountId, transactionId: ownId }),
      read({ accountId: merchant.accountId, transactionId: newId() }),
      read({ accountId: merchant.accountId, transactionId: 'abc' }), // not read: it would fail the others' statement
    ]);
    expect(first?.id).toBe(ownId);
    expect(together.map((row) => row?.id)).toEqual([othersId, undefined, undefined, ownId, undefined, undefined]);
    expect(together[3]).toEqual(first);
  });

  it('concurrent requests of two merchants each read only their own', async () => {
    const pairs: { reader: Merchant; id: string; owner: boolean }[] = [
      { reader: merchant, id: ownId, owner: true },
      { reader: other, id: othersId, owner: true },
      { reader: merchant, id: othersId, owner: false },
      { reader: other, id: ownId, owner: false },
    ];
    const asked = Array.from({ length: 6 }, () => pairs.map(({ reader, id, owner }) => ({ owner, answer: getOne(reader, id) }))).flat();
    for (const { owner, answer } of asked) {
      const response = await answer;
      expect(response.status).toBe(owner ? 200 : 404);
      if (!owner) expect(response.body).toEqual({ error: NOT_FOUND });
    }
  });

  it("another merchant's transaction is not in the list either", async () => {
    const mine = await list(merchant, '?limit=100');
    expect(mine.status).toBe(200);
    const listed = mine.body.transactions.map((t: { transactionId: string }) => t.transactionId);
    expect(listed).toContain(ownId);
    expect(listed).not.toContain(othersId);
    const theirs = await list(other, '?limit=100');
    const theirIds = theirs.body.transactions.map((t: { transactionId: string }) => t.transactionId);
    expect(theirIds).toEqual([othersId]);
  });

  it("the sandbox cannot pay or expire another merchant's charge (404)", async () => {
    const pay = await gateway.call('POST', `/sandbox/v1/pix/${othersId}/pay`, { key: merchant.apiKey });
    expect(pay.status).toBe(404);
    expect(pay.body).toEqual({ error: NOT_FOUND });
    const expire = await gateway.call('POST', `/sandbox/v1/pix/${othersId}/expire`, { key: merchant.apiKey });
    expect(expire.status).toBe(404);
    expect(expire.body).toEqual({ error: NOT_FOUND });
    expect((await getOne(other, othersId)).body.status).toBe('pending');
  });
});

describe('Transaction object fields', () => {
  let merchant: Merchant;

  beforeAll(async () => {
    merchant = await gateway.createMerchant();
  });

  it('POST /v1/pix 201 has exactly transactionId, status, pixPayload, expiresAt, amountCents', async () => {
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 2500, externalRef: 'keys-1' }) });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['amountCents', 'expiresAt', 'pixPayload', 'status', 'transactionId']);
    expect(created.body.status).toBe('pending');
    expect(created.body.amountCents).toBe(2500);
    expect(typeof created.body.pixPayload).toBe('string');
    expect(Number.isInteger(created.body.expiresAt)).toBe(true);
    expect(created.body.transactionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The transaction read back carries the same values.
    const read = await getOne(merchant, created.body.transactionId);
    expect(read.body.expiresAt).toBe(created.body.expiresAt);
    expect(read.body.pixPayload).toBe(created.body.pixPayload);
    expect(read.body.amountCents).toBe(2500);
  });

  it('a pending charge: every field, settlement fields absent', async () => {
    const before = gateway.clock.now().getTime();
    const id = await createChargeThenTick(merchant, { amountCents: 12_345, externalRef: 'pedido-42' });
    const after = gateway.clock.now().getTime();
    const response = await getOne(merchant, id);
    expect(response.status).toBe(200);
    const body = response.body;
    expect(Object.keys(body).sort()).toEqual([...TRANSACTION_FIELDS].sort());
    expect(body.transactionId).toBe(id);
    expect(body.type).toBe('pix_in');
    expect(body.amountCents).toBe(12_345);
    expect(Number.isInteger(body.feeCents)).toBe(true);
    expect(body.feeCents).toBeGreaterThanOrEqual(0);
    expect(body.netCents).toBe(body.amountCents - body.feeCents);
    expect(body.status).toBe('pending');
    expect(body.externalRef).toBe('pedido-42');
    expect(typeof body.pixPayload).toBe('string');
    expect(body.pixPayload?.length).toBeGreaterThan(0);
    expect(body.paidAt).toBeNull();
    // createdAt / updatedAt in milliseconds.
    expect(Number.isInteger(body.createdAt)).toBe(true);
    expect(body.createdAt).toBeGreaterThanOrEqual(before);
    expect(body.createdAt).toBeLessThanOrEqual(after);
    expect(body.updatedAt).toBe(body.createdAt);
    // expiresAt in SECONDS: creation + 2 days by default.
    expect(Number.isInteger(body.expiresAt)).toBe(true);
    expect(body.expiresAt).toBeLessThan(1e11);
    expect(Math.abs(body.expiresAt! - (Math.floor(body.createdAt / 1000) + 2 * DAY_SECONDS))).toBeLessThanOrEqual(1);
    expect(Math.abs(body.expiresAt! - (before / 1000 + 2 * DAY_SECONDS))).toBeLessThan(5);
    for (const field of SETTLEMENT_FIELDS) expect(body).not.toHaveProperty(field);
  });

  it('externalRef is null when none was given', async () => {
    const id = await createChargeThenTick(merchant);
    const response = await getOne(merchant, id);
    expect(response.body).toHaveProperty('externalRef', null);
  });

  it('expiresInDays sets expiresAt (seconds)', async () => {
    const id = await createChargeThenTick(merchant, { expiresInDays: 30 });
    const body = (await getOne(merchant, id)).body;
    expect(Math.abs(body.expiresAt! - (Math.floor(body.createdAt / 1000) + 30 * DAY_SECONDS))).toBeLessThanOrEqual(1);
  });

  it('a paid charge (default sandbox payer): paidAt, endToEndId, payer', async () => {
    const id = await createChargeThenTick(merchant, { amountCents: 5000 });
    const created = (await getOne(merchant, id)).body;
    gateway.clock.advance(90_000);
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey });
    expect(paid.status).toBe(200);
    const response = await getOne(merchant, id);
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body.status).toBe('paid');
    expect(body.transactionId).toBe(id);
    expect(body.amountCents).toBe(5000);
    expect(body.feeCents).toBe(created.feeCents);
    expect(body.netCents).toBe(body.amountCents - body.feeCents);
    expect(body.createdAt).toBe(created.createdAt);
    expect(body.expiresAt).toBe(created.expiresAt);
    expect(body.pixPayload).toBe(created.pixPayload);
    // paidAt in milliseconds, after creation.
    expect(Number.isInteger(body.paidAt)).toBe(true);
    expect(body.paidAt).toBeGreaterThanOrEqual(body.createdAt + 90_000);
    expect(body.paidAt).toBeGreaterThan(1e12);
    expect(body.updatedAt).toBeGreaterThanOrEqual(body.paidAt!);
    // Settlement fields present for pix_in: endToEndId and payer only.
    expect(body.endToEndId).toMatch(END_TO_END_ID);
    expect(body.endToEndId?.slice(9, 21)).toBe(utcMinute(body.paidAt!));
    expect(body.payer).toEqual({
      name: expect.any(String),
      document: expect.stringMatching(/^\d+$/),
      documentType: expect.stringMatching(/^(cpf|cnpj)$/),
      bankAccount: { ispb: expect.any(String), branch: expect.any(String), account: expect.any(String) },
    });
    expect(body.payer?.document).toHaveLength(body.payer?.documentType === 'cpf' ? 11 : 14);
    expect(body).not.toHaveProperty('beneficiary');
    expect(body).not.toHaveProperty('refundEndToEndId');
    // The sandbox answers with the same object.
    expect(paid.body).toEqual(body);
  });

  it('a custom payer in the pay body appears as given', async () => {
    const payer = {
      name: 'Empresa Pagadora LTDA',
      document: '11222333000181',
      documentType: 'cnpj',
      bankAccount: { ispb: '00000000', branch: '1234', account: '98765-4' },
    };
    const id = await createChargeThenTick(merchant);
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey, body: { payer } });
    expect(paid.status).toBe(200);
    const body = (await getOne(merchant, id)).body;
    expect(body.status).toBe('paid');
    expect(body.payer).toEqual(payer);
    expect(body.endToEndId).toMatch(END_TO_END_ID);
    // The end-to-end id is generated by the payer's institution: it carries the payer's ISPB.
    expect(body.endToEndId?.slice(1, 9)).toBe(payer.bankAccount.ispb);
    expect(body.endToEndId?.slice(9, 21)).toBe(utcMinute(body.paidAt!));
  });

  it('an expired charge: status expired, settlement fields absent, paidAt null', async () => {
    const id = await createChargeThenTick(merchant, { externalRef: 'expira-1' });
    const created = (await getOne(merchant, id)).body;
    gateway.clock.advance(5000);
    const expired = await gateway.call('POST', `/sandbox/v1/pix/${id}/expire`, { key: merchant.apiKey });
    expect(expired.status).toBe(200);
    const response = await getOne(merchant, id);
    const body = response.body;
    expect(body.status).toBe('expired');
    expect(body.paidAt).toBeNull();
    expect(body.externalRef).toBe('expira-1');
    expect(body.createdAt).toBe(created.createdAt);
    expect(body.updatedAt).toBeGreaterThan(created.updatedAt);
    expect(Object.keys(body).sort()).toEqual([...TRANSACTION_FIELDS].sort());
    for (const field of SETTLEMENT_FIELDS) expect(body).not.toHaveProperty(field);
    expect(expired.body).toEqual(body);
    // An expired charge cannot be paid any more.
    const pay = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey });
    expect(pay.status).toBe(422);
    expect((await getOne(merchant, id)).body).toEqual(body);
  });

  it('the list returns the same objects as the single GET (pending, paid, expired)', async () => {
    const fresh = await gateway.createMerchant();
    const pending = await createChargeThenTick(fresh, { externalRef: 'lista-1' });
    const paid = await createChargeThenTick(fresh);
    const expired = await createChargeThenTick(fresh);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${paid}/pay`, { key: fresh.apiKey })).status).toBe(200);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${expired}/expire`, { key: fresh.apiKey })).status).toBe(200);
    const listed = await list(fresh);
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(3);
    expect(listed.body.transactions.map((t: { transactionId: string }) => t.transactionId)).toEqual([expired, paid, pending]);
    for (const transaction of listed.body.transactions) {
      const single = await getOne(fresh, transaction.transactionId);
      expect(single.status).toBe(200);
      expect(transaction).toEqual(single.body);
      // Same keys, not only equal values (toEqual ignores undefined-valued keys).
      expect(Object.keys(transaction).sort()).toEqual(Object.keys(single.body).sort());
    }
    const statuses = listed.body.transactions.map((t: { status: string }) => t.status);
    expect(statuses).toEqual(['expired', 'paid', 'pending']);
  });
});
