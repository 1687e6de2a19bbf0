import { sql } from 'kysely';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidCharge } from '../helpers/api.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { launchBrowser } from '../helpers/browser.js';
import { serverUrl, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * DATABASE_READ_URL (docs/operations.md "Read replicas"): exports and the back-office's history
 * read the replica, everything else the primary. The replica here is a copy of the gateway's
 * tables taken at one moment, in a schema of its own, on read-only connections: what it shows is
 * what a replica lagging behind since that moment would.
 */
describe.runIf(serverUrl)('a read replica for exports and the back-office history (PostgreSQL server)', { timeout: 60_000 }, () => {
  let gateway: Gateway;
  let merchant: Merchant;
  let peer: { url: string; close(): Promise<void> };
  let browser: Browser;
  let replica: string;
  const before: string[] = [];
  let after: string;
  let period: { createdFrom: number; createdTo: number };

  beforeAll(async () => {
    gateway = await startGateway();
    merchant = await gateway.createMerchant();
    before.push(await paidCharge(gateway, merchant), await paidCharge(gateway, merchant));
    replica = `${gateway.schema}_replica`;
    const db = gateway.database.db;
    await sql`CREATE SCHEMA ${sql.id(replica)}`.execute(db);
    const { rows } = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ${gateway.schema} AND table_type = 'BASE TABLE'`.execute(db);
    for (const { name } of rows) await sql`CREATE TABLE ${sql.id(replica, name)} AS TABLE ${sql.id(gateway.schema ?? '', name)}`.execute(db);
    gateway.clock.advance(1_000);
    after = await paidCharge(gateway, merchant); // on the primary only: the replica has not caught up
    const readUrl = new URL(serverUrl ?? '');
    readUrl.searchParams.set('options', `-c search_path=${replica} -c default_transaction_read_only=on`);
    peer = await gateway.startPeer({ DATABASE_READ_URL: readUrl.toString() });
    const now = gateway.clock.now().getTime();
    period = { createdFrom: now - 3_600_000, createdTo: now + 1_000 };
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await peer?.close();
    if (replica) await sql`DROP SCHEMA IF EXISTS ${sql.id(replica)} CASCADE`.execute(gateway.database.db);
    await gateway?.close();
  });

  const get = async (path: string) => fetch(`${peer.url}${path}`, { headers: { authorization: `Bearer ${merchant.apiKey}` } });

  it('a CSV export reads the replica: the charges it has, not the one created since', async () => {
    const query = new URLSearchParams({ format: 'csv', createdFrom: String(period.createdFrom), createdTo: String(period.createdTo) });
    const response = await get(`/v1/transactions/export?${query.toString()}`);
    expect(response.status).toBe(200);
    const csv = await response.text();
    for (const id of before) expect(csv).toContain(id);
    expect(csv).not.toContain(after);
  });

  it('an OFX export reads the replica too: the two payments it has', async () => {
    const query = new URLSearchParams({ format: 'ofx', createdFrom: String(period.createdFrom), createdTo: String(period.createdTo) });
    const response = await get(`/v1/transactions/export?${query.toString()}`);
    expect(response.status).toBe(200);
    expect((await response.text()).match(/<STMTTRN>/g)).toHaveLength(2);
  });

  it('the merchant API reads the primary: the list has the new charge', async () => {
    const response = await get('/v1/transactions?limit=10');
    expect(response.status).toBe(200);
    const { transactions } = (await response.json()) as { transactions: { transactionId: string }[] };
    expect(transactions.map((row) => row.transactionId)).toEqual([after, ...[...before].reverse()]);
  });

  it('the back-office Transações list reads the replica; a txid is looked up on the primary', async () => {
    const { page } = await signedInOperator(gateway, browser, 'support', peer.url);
    await page.goto(`${peer.url}/backoffice/transacoes?conta=${merchant.accountId}`);
    const body = page.locator('table tbody');
    await expect(body.locator('tr').count()).resolves.toBe(2);
    await page.goto(`${peer.url}/backoffice/transacoes?busca=${after.replaceAll('-', '')}`); // its txid
    await expect(page.locator('table tbody tr').count()).resolves.toBe(1);
    await page.context().close();
  });
});
