import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { createCharge } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { endToEndIdOf, insertTransactions, seeded, type SeededTransaction } from '../helpers/history.js';

// DESIGN.md §15: GET /v1/transactions with a cursor (startingAfter), filters and hasMore.

const DAY_MS = 86_400_000;
const MESSAGES = {
  cursor: 'startingAfter deve ser o transactionId de uma transação desta conta.',
  from: 'createdFrom deve ser um instante em milissegundos Unix (inteiro ≥ 0).',
  to: 'createdTo deve ser um instante em milissegundos Unix (inteiro ≥ 0).',
  range: 'createdFrom deve ser anterior a createdTo.',
  status: (received: string) => `status deve ser um dos status de transação da documentação. Recebido: '${received}'.`,
  endToEndId: 'endToEndId deve ter 32 letras e dígitos.',
  externalRef: 'externalRef deve ser um texto de 1 a 100 caracteres.',
  limit: 'limit deve ser um inteiro entre 1 e 100.',
};

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

type Listed = { transactionId: string; type: string; status: string; createdAt: number; externalRef: string | null; endToEndId?: string };
type ListAnswer = { transactions: Listed[]; count: number; hasMore: boolean };

const list = (merchant: Merchant, query: Record<string, string | number | undefined> = {}) =>
  gateway.call<ListAnswer>(
    'GET',
    `/v1/transactions?${new URLSearchParams(Object.entries(query).flatMap(([name, value]): [string, string][] => (value === undefined ? [] : [[name, String(value)]]))).toString()}`,
    {
      key: merchant.apiKey,
    },
  );

/** The list's order: creation time, newest first; within one millisecond, the greater id first. */
const newestFirst = (a: SeededTransaction, b: SeededTransaction) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Every page of a query, following hasMore and startingAfter. */
async function allPages(merchant: Merchant, query: Record<string, string | number | undefined>, onPage: () => Promise<void> = async () => {}) {
  const ids: string[] = [];
  let startingAfter: string | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const response = await list(merchant, { ...query, ...(startingAfter ? { startingAfter } : {}) });
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(response.body.transactions.length);
    ids.push(...response.body.transactions.map((row) => row.transactionId));
    await onPage();
    if (!response.body.hasMore) return ids;
    expect(response.body.transactions.length).toBe(Number(query.limit ?? 50));
    startingAfter = ids.at(-1);
  }
  throw new Error('paging did not end');
}

describe('paging by cursor while rows arrive', () => {
  let merchant: Merchant;
  let seededIds: string[];

  beforeAll(async () => {
    merchant = await gateway.createMerchant({ limits: { pixPerHour: 10_000 } });
    const now = gateway.clock.now().getTime();
    // 2,500 rows over the last 25 hours; every 5th shares its millisecond with the one before (the id breaks the tie).
    const rows: SeededTransaction[] = [];
    for (let i = 0; i < 2_500; i++) {
      const at = new Date(now - 25 * 3_600_000 + (i - (i % 5 === 4 ? 1 : 0)) * 36_000);
      rows.push(seeded(merchant.accountId, { createdAt: at, type: i % 3 === 0 ? 'withdrawal' : 'pix_in' }));
    }
    await insertTransactions(gateway, rows);
    seededIds = [...rows].sort(newestFirst).map((row) => row.id);
  });

  it('pages of 100 while another client creates charges: every row that existed is listed once, none twice, in order', async () => {
    const created: string[] = [];
    const ids = await allPages(merchant, { limit: 100 }, async () => {
      // Another client, between our pages: three charges through the API, as concurrent requests.
      created.push(...(await Promise.all([0, 1, 2].map(() => createCharge(gateway, merchant)))));
    });
    expect(new Set(ids).size).toBe(ids.length);
    // The charges created meanwhile are newer than every page already read, so no page after the first can hold them.
    expect(ids).toEqual(seededIds);
    expect(created).toHaveLength(75);

    // Read again from the top: the new charges come first, then the same rows.
    const again = await allPages(merchant, { limit: 100 });
    expect(again.slice(created.length)).toEqual(seededIds);
    expect(new Set(again.slice(0, created.length))).toEqual(new Set(created));
  });

  it('hasMore is false on the last page, and on a page that holds exactly the rest', async () => {
    const everything = await allPages(merchant, { limit: 100 });
    const lastButHundred = everything.at(-101);
    if (!lastButHundred) throw new Error('fewer than 101 rows');
    const response = await list(merchant, { limit: 100, startingAfter: lastButHundred });
    expect(response.body).toMatchObject({ count: 100, hasMore: false });
    expect(response.body.transactions.map((row) => row.transactionId)).toEqual(everything.slice(-100));
    const afterLast = await list(merchant, { startingAfter: everything.at(-1) ?? '' });
    expect(afterLast.body).toEqual({ transactions: [], count: 0, hasMore: false });
  });

  it("without the new parameters the spec's answer is unchanged but for hasMore: 50 newest, newest first", async () => {
    const everything = await allPages(merchant, { limit: 100 });
    const response = await list(merchant);
    expect(Object.keys(response.body).sort()).toEqual(['count', 'hasMore', 'transactions']);
    expect(response.body.count).toBe(50);
    expect(response.body.hasMore).toBe(true);
    expect(response.body.transactions.map((row) => row.transactionId)).toEqual(everything.slice(0, 50));
  });
});

describe('filters', () => {
  let merchant: Merchant;
  let other: Merchant;
  let rows: SeededTransaction[];
  let start: number;

  beforeAll(async () => {
    merchant = await gateway.createMerchant();
    other = await gateway.createMerchant();
    start = gateway.clock.now().getTime() - 10 * DAY_MS;
    const statuses = { pix_in: ['pending', 'paid', 'expired', 'refunded'], withdrawal: ['processing', 'paid', 'failed'] } as const;
    rows = [];
    for (let i = 0; i < 300; i++) {
      const type = i % 4 === 0 ? 'withdrawal' : 'pix_in';
      const choices = statuses[type];
      const status = choices[i % choices.length] ?? 'paid';
      const createdAt = new Date(start + i * 2_880_000); // 30 per day over 10 days
      const settled = status === 'paid' || status === 'refunded';
      rows.push(
        seeded(merchant.accountId, {
          createdAt,
          type,
          status,
          externalRef: i % 7 === 0 ? `pedido-${i % 21}` : null, // some externalRefs shared by a charge and a withdrawal
          endToEndId: settled ? endToEndIdOf(createdAt, i) : null,
        }),
      );
    }
    await insertTransactions(gateway, rows);
    // Another account's rows on the same days, with the same externalRefs: never listed.
    await insertTransactions(
      gateway,
      Array.from({ length: 40 }, (_, i) => seeded(other.accountId, { createdAt: new Date(start + (i * DAY_MS) / 4), externalRef: `pedido-${i % 21}` })),
    );
  });

  it('every combination of type, status, period, externalRef and endToEndId lists exactly the matching rows, newest first', async () => {
    const sample = rows[150];
    const paid = rows.find((row) => row.endToEndId && row.type === 'withdrawal');
    if (!sample || !paid?.endToEndId) throw new Error('dataset');
    const types = [undefined, 'pix_in', 'withdrawal'] as const;
    const statuses = [undefined, 'paid', 'pending', 'processing', 'failed'] as const;
    const periods = [
      {},
      { createdFrom: start + 3 * DAY_MS },
      { createdTo: start + 5 * DAY_MS },
      { createdFrom: start + 2 * DAY_MS + 1, createdTo: start + 4 * DAY_MS },
    ];
    const refs = [undefined, 'pedido-0', 'pedido-7'];
    const ends = [undefined, paid.endToEndId];
    let combinations = 0;
    for (const type of types)
      for (const status of statuses)
        for (const period of periods)
          for (const externalRef of refs)
            for (const endToEndId of ends) {
              const query: Record<string, string | number | undefined> = { limit: 100, ...period };
              if (type) query.type = type;
              if (status) query.status = status;
              if (externalRef) query.externalRef = externalRef;
              if (endToEndId) query.endToEndId = endToEndId;
              const expected = rows
                .filter(
                  (row) =>
                    (!type || row.type === type) &&
                    (!status || row.status === status) &&
                    (period.createdFrom === undefined || row.createdAt.getTime() >= period.createdFrom) &&
                    (period.createdTo === undefined || row.createdAt.getTime() < period.createdTo) &&
                    (!externalRef || row.externalRef === externalRef) &&
                    (!endToEndId || row.endToEndId === endToEndId),
                )
                .sort(newestFirst)
                .map((row) => row.id);
              expect({ query, ids: await allPages(merchant, query) }).toEqual({ query, ids: expected });
              combinations++;
            }
    expect(combinations).toBe(3 * 5 * 4 * 3 * 2);
  });

  it('filters and the cursor together: pages of 7 of one status within a period cover exactly its rows', async () => {
    const query = { limit: 7, status: 'paid', createdFrom: start + DAY_MS, createdTo: start + 8 * DAY_MS };
    const expected = rows
      .filter((row) => row.status === 'paid' && row.createdAt.getTime() >= query.createdFrom && row.createdAt.getTime() < query.createdTo)
      .sort(newestFirst)
      .map((row) => row.id);
    expect(expected.length).toBeGreaterThan(50);
    expect(await allPages(merchant, query)).toEqual(expected);
  });

  it('the cursor may be any row of the account, even one the filters leave out: the page starts after its place', async () => {
    const sorted = [...rows].sort(newestFirst);
    const cursor = sorted.find((row) => row.type === 'withdrawal');
    if (!cursor) throw new Error('dataset');
    const response = await list(merchant, { type: 'pix_in', startingAfter: cursor.id, limit: 5 });
    const position = sorted.indexOf(cursor);
    expect(response.body.transactions.map((row) => row.transactionId)).toEqual(
      sorted
        .slice(position + 1)
        .filter((row) => row.type === 'pix_in')
        .slice(0, 5)
        .map((row) => row.id),
    );
  });

  it('createdFrom is inclusive and createdTo exclusive, to the millisecond', async () => {
    const row = rows[100];
    if (!row) throw new Error('dataset');
    const at = row.createdAt.getTime();
    const from = await list(merchant, { createdFrom: at, createdTo: at + 1 });
    expect(from.body.transactions.map((listed) => listed.transactionId)).toEqual([row.id]);
    const to = await list(merchant, { createdFrom: at - 1, createdTo: at });
    expect(to.body).toEqual({ transactions: [], count: 0, hasMore: false });
  });

  it('a type with a status it never takes lists nothing, on the first page and after a cursor', async () => {
    const cursor = rows[10]?.id ?? '';
    for (const query of [
      { type: 'withdrawal', status: 'expired' },
      { type: 'pix_in', status: 'processing', startingAfter: cursor },
    ]) {
      const response = await list(merchant, query);
      expect({ query, status: response.status, body: response.body }).toEqual({ query, status: 200, body: { transactions: [], count: 0, hasMore: false } });
    }
  });

  it("another account's externalRef and endToEndId find nothing here", async () => {
    const response = await list(merchant, { externalRef: 'pedido-1' });
    expect(response.body.count).toBe(0);
    const foreign = await list(other, { externalRef: 'pedido-0', limit: 100 });
    expect(foreign.body.transactions.every((row) => row.externalRef === 'pedido-0')).toBe(true);
    expect(foreign.body.count).toBe(2);
  });
});

describe('bad values: 400 with the catalog message, nothing listed', () => {
  let merchant: Merchant;
  let other: Merchant;
  let othersCharge: string;

  beforeAll(async () => {
    merchant = await gateway.createMerchant();
    other = await gateway.createMerchant();
    othersCharge = await createCharge(gateway, other);
    await createCharge(gateway, merchant);
  });

  const cases: [string, Record<string, string>, () => string][] = [
    ['a cursor that is not an id', { startingAfter: 'abc' }, () => MESSAGES.cursor],
    ['a cursor that does not exist', { startingAfter: '' }, () => MESSAGES.cursor],
    ['createdFrom not a number', { createdFrom: 'ontem' }, () => MESSAGES.from],
    ['createdFrom negative', { createdFrom: '-1' }, () => MESSAGES.from],
    ['createdFrom with a fraction', { createdFrom: '1.5' }, () => MESSAGES.from],
    ['createdFrom as a date', { createdFrom: '2026-11-01' }, () => MESSAGES.from],
    ['createdTo not a number', { createdTo: '1e12' }, () => MESSAGES.to],
    ['createdFrom equal to createdTo', { createdFrom: '1000', createdTo: '1000' }, () => MESSAGES.range],
    ['createdFrom after createdTo', { createdFrom: '2000', createdTo: '1000' }, () => MESSAGES.range],
    ['an unknown status', { status: 'pago' }, () => MESSAGES.status('pago')],
    ['an empty status', { status: '' }, () => MESSAGES.status('')],
    ['an endToEndId too short', { endToEndId: 'E123' }, () => MESSAGES.endToEndId],
    ['an endToEndId with a symbol', { endToEndId: `E${'1'.repeat(30)}-` }, () => MESSAGES.endToEndId],
    ['an empty externalRef', { externalRef: '' }, () => MESSAGES.externalRef],
    ['an externalRef of 101 characters', { externalRef: 'x'.repeat(101) }, () => MESSAGES.externalRef],
    ['a limit of 0 with a cursor', { limit: '0', startingAfter: newId() }, () => MESSAGES.limit],
    // A type with a status it never takes lists nothing without reading, but the cursor is still checked.
    ['a cursor that does not exist, with a status the type never takes', { type: 'withdrawal', status: 'expired', startingAfter: '' }, () => MESSAGES.cursor],
  ];

  it.each(cases)('%s', async (_name, query, message) => {
    const response = await list(merchant, query.startingAfter === '' ? { ...query, startingAfter: newId() } : query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: message() });
  });

  it("another account's transaction as cursor: the same 400 as one that does not exist (nothing told about it)", async () => {
    const response = await list(merchant, { startingAfter: othersCharge });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: MESSAGES.cursor });
  });

  it('a repeated parameter is refused, not picked from', async () => {
    const response = await gateway.call('GET', '/v1/transactions?status=paid&status=pending', { key: merchant.apiKey });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: MESSAGES.status('paid,pending') });
  });
});
