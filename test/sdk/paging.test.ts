import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PixGateway, Transaction } from '../../packages/sdk/src/index.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';
import { clientFor, customer, recordingFetch, type SentRequest } from './helpers.js';

// Auto-paging over DESIGN.md §15's cursor: 250 transactions walked in pages, in the list's order
// (createdAt desc, transactionId desc), none skipped or repeated.

const ROWS = 250;
let gateway: Gateway;
let created: string[];
let pix: PixGateway;
let sent: SentRequest[];

beforeAll(async () => {
  gateway = await startGateway();
  const merchant = await gateway.createMerchant({ limits: { pixPerHour: 1000 } });
  const recorder = recordingFetch();
  pix = clientFor(gateway, merchant, { fetch: recorder.fetch });
  sent = recorder.sent;
  const writer = clientFor(gateway, merchant);
  created = [];
  for (let batch = 0; batch < ROWS / 25; batch++) {
    const charges = await Promise.all(
      Array.from({ length: 25 }, (_, index) => writer.charges.create({ amountCents: 100 + batch * 25 + index, customer: customer() })),
    );
    created.push(...charges.map((charge) => charge.transactionId));
  }
}, 120_000);
afterAll(() => gateway.close());

/** The list requests sent since `from`, with their query. */
const listRequests = (from: number) => sent.slice(from).map((request) => new URL(request.url).searchParams);
const newestFirst = (a: Transaction, b: Transaction) => b.createdAt - a.createdAt || (b.transactionId > a.transactionId ? 1 : -1);

describe('for await over transactions.list()', () => {
  it('walks all 250 rows in pages of 100, following the cursor, newest first', async () => {
    const from = sent.length;
    const seen: Transaction[] = [];
    for await (const transaction of pix.transactions.list()) seen.push(transaction);
    expect(seen).toHaveLength(ROWS);
    expect(new Set(seen.map((tx) => tx.transactionId))).toEqual(new Set(created));
    expect(seen).toEqual([...seen].sort(newestFirst));

    const pages = listRequests(from);
    expect(pages.map((query) => query.get('limit'))).toEqual(['100', '100', '100']);
    expect(pages.map((query) => query.get('startingAfter'))).toEqual([null, seen[99]?.transactionId, seen[199]?.transactionId]);
  });

  it('keeps the filters on every page, with the page size given', async () => {
    const from = sent.length;
    const amounts: number[] = [];
    for await (const tx of pix.transactions.list({ type: 'pix_in', status: 'pending', limit: 60 })) amounts.push(tx.amountCents);
    expect(amounts).toHaveLength(ROWS);
    const pages = listRequests(from);
    expect(pages).toHaveLength(5);
    for (const query of pages)
      expect(Object.fromEntries([...query].filter(([name]) => name !== 'startingAfter'))).toEqual({ type: 'pix_in', status: 'pending', limit: '60' });
  });

  it('fetches no further page than the loop reads', async () => {
    const from = sent.length;
    let read = 0;
    for await (const _tx of pix.transactions.list()) if (++read === 120) break;
    expect(listRequests(from)).toHaveLength(2);
  });

  it('starts after a given transaction', async () => {
    const all: string[] = [];
    for await (const tx of pix.transactions.list()) all.push(tx.transactionId);
    const rest: string[] = [];
    for await (const tx of pix.transactions.list({ startingAfter: all[199] })) rest.push(tx.transactionId);
    expect(rest).toEqual(all.slice(200));
  });
});

describe('one page, or whole pages', () => {
  it('page(): the first page only, of the gateway’s default 50, with hasMore', async () => {
    const from = sent.length;
    const page = await pix.transactions.list().page();
    expect(page).toMatchObject({ count: 50, hasMore: true });
    expect(page.transactions).toHaveLength(50);
    expect(listRequests(from)).toHaveLength(1);
    expect(listRequests(from)[0]?.has('limit')).toBe(false);
  });

  it('pages(): 100, 100, 50 — the last without hasMore', async () => {
    const pages = [];
    for await (const page of pix.transactions.list({ limit: 100 }).pages()) pages.push(page);
    expect(pages.map((page) => [page.count, page.hasMore])).toEqual([
      [100, true],
      [100, true],
      [50, false],
    ]);
  });

  it('a period (Date or Unix ms) bounds the walk', async () => {
    const all: Transaction[] = [];
    for await (const tx of pix.transactions.list()) all.push(tx);
    const pivot = all[125];
    if (!pivot) throw new Error('no pivot');
    const older: Transaction[] = [];
    for await (const tx of pix.transactions.list({ createdTo: new Date(pivot.createdAt) })) older.push(tx);
    expect(older.every((tx) => tx.createdAt < pivot.createdAt)).toBe(true);
    const newer: Transaction[] = [];
    for await (const tx of pix.transactions.list({ createdFrom: pivot.createdAt })) newer.push(tx);
    expect(older.length + newer.length).toBe(ROWS);
  });
});
