import { PassThrough } from 'node:stream';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBrl, messages } from '../../src/messages.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { breakableMoney, expectAccessible, launchBrowser, screenshot, tableRegions, menuLink } from '../helpers/browser.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { endToEndIdOf, insertTransactions, seeded, type SeededTransaction } from '../helpers/history.js';

/**
 * Transações of the back-office (DESIGN.md §15) in a real browser: every account's history 50 rows
 * at a time, each row with its account; the dashboard's filters plus the account and a txid, all
 * in the address (the back button works); the search by a counterpart's CPF or CNPJ posted with
 * the form token — first page and next — so the document reaches no address and no log, and is
 * shown masked; refusals with the catalog's message; every operator role reads; axe at 390 and 1280 px.
 */
let gateway: Gateway;
let browser: Browser;
let logs = '';
let first: Merchant;
let second: Merchant;
/** Every seeded row, newest first; each account's. */
let all: SeededTransaction[];
let ofFirst: SeededTransaction[];
let ofSecond: SeededTransaction[];

/** The payers' CPFs: of the first account's paid charges, of the second's. */
const FIRST_PAYER = '52998224725';
const SECOND_PAYER = '11144477735';

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk) => (logs += String(chunk)));
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', LOG_LEVEL: 'trace' }, { logs: stream });
  browser = await launchBrowser();
  first = await gateway.createMerchant(undefined, { name: 'Loja Primeira' });
  second = await gateway.createMerchant(undefined, { name: 'Loja Segunda' });
  const now = gateway.clock.now().getTime();
  // The first account: 120 rows, one every 20 minutes back from now; of every four, three paid
  // charges by FIRST_PAYER (90: two pages of the document search) and a withdrawal. Each row's amount is its own.
  ofFirst = Array.from({ length: 120 }, (_, i) => {
    const createdAt = new Date(now - (i + 1) * 1_200_000);
    const charge = i % 4 !== 3;
    return seeded(first.accountId, {
      createdAt,
      type: charge ? 'pix_in' : 'withdrawal',
      status: charge ? 'paid' : 'processing',
      amountCents: 2_000 + i,
      externalRef: `a-${i}`,
      endToEndId: charge ? endToEndIdOf(createdAt, i) : null,
      payerDocument: charge ? FIRST_PAYER : null,
    });
  });
  // The second: 20 paid charges by SECOND_PAYER, between the first's.
  ofSecond = Array.from({ length: 20 }, (_, i) => {
    const createdAt = new Date(now - (i + 1) * 2_400_000 - 600_000);
    return seeded(second.accountId, {
      createdAt,
      amountCents: 5_000 + i,
      externalRef: `b-${i}`,
      endToEndId: endToEndIdOf(createdAt, 1_000 + i),
      payerDocument: SECOND_PAYER,
    });
  });
  all = [...ofFirst, ...ofSecond].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  await insertTransactions(gateway, all);
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const table = (page: Page) => page.getByRole('region', { name: 'Transações' });
const amountsOn = async (page: Page) => table(page).locator('tbody tr td:nth-child(4)').allTextContents();
const amountsOf = (rows: SeededTransaction[]) => rows.map((row) => formatBrl(row.amountCents));
const addressOf = (page: Page) => {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
};
const paidCharges = (rows: SeededTransaction[]) => rows.filter((row) => row.type === 'pix_in' && row.status === 'paid');

describe('Transações of every account', { timeout: 120_000 }, () => {
  it('newest first, 50 a page, each row linked to its account; Conta and Tipo filters in the address; the back button', async () => {
    const { page } = await signedInOperator(gateway, browser, 'support');
    await (await menuLink(page, 'Transações')).click();
    await page.waitForURL(`${gateway.url}/backoffice/transacoes`);
    expect(await amountsOn(page)).toEqual(amountsOf(all.slice(0, 50)));
    const firstRow = all[0];
    const secondRow = all.find((row) => row.accountId === second.accountId);
    const firstLink = table(page).locator('tbody tr').first().getByRole('link');
    await expect(firstLink.getAttribute('href')).resolves.toBe(`/backoffice/contas/${firstRow?.accountId}`);
    await expect(firstLink.textContent()).resolves.toBe(firstRow?.accountId === first.accountId ? 'Loja Primeira' : 'Loja Segunda');
    const rowOfSecond = table(page)
      .getByRole('row')
      .filter({ hasText: formatBrl(secondRow?.amountCents ?? 0) });
    await expect(rowOfSecond.getByRole('link', { name: 'Loja Segunda' }).getAttribute('href')).resolves.toBe(`/backoffice/contas/${second.accountId}`);
    // Counterparts masked (***.444.777-**), nowhere in full.
    await expect(rowOfSecond.getByText('***.444.777-**').count()).resolves.toBe(1);
    expect(await page.locator('body').innerText()).not.toContain(FIRST_PAYER);

    // Every page of the charges of both accounts, then back.
    await page.getByLabel('Tipo').selectOption('pix_in');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/tipo=pix_in/);
    expect(addressOf(page)).toBe('/backoffice/transacoes?tipo=pix_in');
    const charges = all.filter((row) => row.type === 'pix_in');
    expect(await amountsOn(page)).toEqual(amountsOf(charges.slice(0, 50)));
    await page.getByRole('link', { name: 'Próxima página' }).click();
    await page.waitForURL(/apos=/);
    expect(addressOf(page)).toBe(`/backoffice/transacoes?tipo=pix_in&apos=${charges[49]?.id}`);
    expect(await amountsOn(page)).toEqual(amountsOf(charges.slice(50, 100)));
    await page.getByRole('link', { name: 'Próxima página' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/transacoes?tipo=pix_in&apos=${charges[99]?.id}`);
    expect(await amountsOn(page)).toEqual(amountsOf(charges.slice(100)));
    await page.goBack();
    await page.waitForURL(`${gateway.url}/backoffice/transacoes?tipo=pix_in&apos=${charges[49]?.id}`);
    expect(await amountsOn(page)).toEqual(amountsOf(charges.slice(50, 100)));
    await page.getByRole('link', { name: 'Mais recentes' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/transacoes?tipo=pix_in`);
    expect(await amountsOn(page)).toEqual(amountsOf(charges.slice(0, 50)));

    // One account: from its page's link, typed in Conta.
    await page.getByLabel('Conta (id)').fill(second.accountId);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/conta=/);
    expect(addressOf(page)).toBe(`/backoffice/transacoes?tipo=pix_in&conta=${second.accountId}`);
    expect(await amountsOn(page)).toEqual(amountsOf(ofSecond));
    await page.context().close();
  });

  it('searches by txid (upper or lower case), endToEndId or externalRef', async () => {
    const { page } = await signedInOperator(gateway, browser, 'compliance');
    const wanted = ofSecond[3];
    if (!wanted) throw new Error('no row');
    const txid = wanted.id.replaceAll('-', '');
    for (const text of [txid, txid.toUpperCase()]) {
      await page.goto(`${gateway.url}/backoffice/transacoes`);
      await page.getByLabel('Busca (externalRef, endToEndId ou txid)').fill(text);
      await page.getByLabel('Busca (externalRef, endToEndId ou txid)').press('Enter');
      await page.waitForURL(/busca=/);
      expect(await amountsOn(page)).toEqual([formatBrl(wanted.amountCents)]);
      await expect(page.getByText('Busca por txid: a transação desse id, sem os outros filtros.').count()).resolves.toBe(1);
      await expect(table(page).getByText(wanted.id).count()).resolves.toBe(1);
    }
    // A txid of no transaction: nothing, said so.
    await page.goto(`${gateway.url}/backoffice/transacoes?busca=${'0'.repeat(12)}7${'0'.repeat(3)}8${'0'.repeat(15)}`);
    expect((await page.locator('.empty').innerText()).replace(/\s+/g, ' ').trim()).toBe('Nenhuma transação com estes filtros. Ver todas as transações.');
    const paid = ofFirst[5];
    await page.goto(`${gateway.url}/backoffice/transacoes?busca=${paid?.endToEndId}`);
    expect(await amountsOn(page)).toEqual([formatBrl(paid?.amountCents ?? 0)]);
    await page.goto(`${gateway.url}/backoffice/transacoes?busca=b-7`);
    expect(await amountsOn(page)).toEqual([formatBrl(5_007)]);
    await page.context().close();
  });

  it('refuses bad filters with the catalog message and a 400, never a 500', async () => {
    const { page } = await signedInOperator(gateway, browser, 'admin');
    const cases: [string, string][] = [
      ['?conta=nao-e-conta', messages.accountIdInvalid],
      ['?status=pago', messages.filterStatusInvalid],
      ['?tipo=refund', messages.filterTypeInvalid],
      ['?de=2026-13-01', messages.filterDateInvalid],
      ['?de=2026-03-02&ate=2026-03-01', messages.filterRangeInvalid],
      ['?apos=0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', messages.startingAfterInvalid],
    ];
    for (const [query, message] of cases) {
      const response = await page.goto(`${gateway.url}/backoffice/transacoes${query}`);
      expect([query, response?.status()]).toEqual([query, 400]);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(message);
      await expect(page.locator('tbody tr').count()).resolves.toBe(0);
    }
    // Signed out: the sign-in page.
    const anonymous = await fetch(`${gateway.url}/backoffice/transacoes`, { redirect: 'manual' });
    expect([anonymous.status, anonymous.headers.get('location')]).toEqual([303, '/backoffice/entrar']);
    await page.context().close();
  });
});

describe('the search by document is posted', { timeout: 120_000 }, () => {
  it('first page and next page as posted forms: the document in no address nor log, masked on the page', async () => {
    const { page } = await signedInOperator(gateway, browser, 'support');
    const addresses: string[] = [];
    page.on('request', (request) => addresses.push(request.url()));
    await page.goto(`${gateway.url}/backoffice/transacoes`);
    await page.getByText('Buscar pelo documento da contraparte (CPF ou CNPJ)').click();
    await page.getByLabel('Documento (CPF ou CNPJ)').fill('529.982.247-25');
    await page.getByRole('button', { name: 'Buscar por documento' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/transacoes/documento`);
    const byPayer = paidCharges(ofFirst);
    expect(byPayer).toHaveLength(90);
    expect(await amountsOn(page)).toEqual(amountsOf(byPayer.slice(0, 50)));
    await expect(page.getByRole('heading', { name: 'Contraparte ***.982.247-**' }).count()).resolves.toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'backoffice-transacoes-documento-1280');

    await page.getByRole('button', { name: 'Próxima página' }).click();
    await page.waitForLoadState();
    await expect.poll(() => amountsOn(page)).toEqual(amountsOf(byPayer.slice(50)));
    expect(addressOf(page)).toBe('/backoffice/transacoes/documento');
    await expect(page.getByRole('button', { name: 'Próxima página' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Mais recentes' }).click();
    await expect.poll(() => amountsOn(page)).toEqual(amountsOf(byPayer.slice(0, 50)));

    // With the filters of the page: one account, by a document of the other's payers: nothing; by its own: its rows.
    await page.goto(`${gateway.url}/backoffice/transacoes?conta=${second.accountId}`);
    await page.getByText('Buscar pelo documento da contraparte (CPF ou CNPJ)').click();
    await page.getByLabel('Documento (CPF ou CNPJ)').fill(FIRST_PAYER);
    await page.getByRole('button', { name: 'Buscar por documento' }).click();
    await expect.poll(() => page.locator('.empty').count()).toBe(1);
    await page.getByLabel('Documento (CPF ou CNPJ)').fill(SECOND_PAYER);
    await page.getByRole('button', { name: 'Buscar por documento' }).click();
    await expect.poll(() => amountsOn(page)).toEqual(amountsOf(ofSecond));
    await expect(page.getByLabel('Conta (id)').inputValue()).resolves.toBe(second.accountId);

    // Never in full: in no address the browser asked for, in no log line, in no text on the page.
    const documents = [FIRST_PAYER, SECOND_PAYER, '529.982.247-25'];
    for (const document of documents) {
      expect(addresses.filter((address) => address.includes(document) || address.includes(encodeURIComponent(document)))).toEqual([]);
      expect(logs).not.toContain(document);
    }
    expect(logs).toContain('/backoffice/transacoes/documento');
    expect(await page.locator('body').innerText()).not.toContain(SECOND_PAYER);
    await page.context().close();
  });

  it('refuses a malformed document (400) and a post without the form token (403), showing no rows', async () => {
    const { page } = await signedInOperator(gateway, browser, 'compliance');
    await page.goto(`${gateway.url}/backoffice/transacoes`);
    await page.getByText('Buscar pelo documento da contraparte (CPF ou CNPJ)').click();
    await page.getByLabel('Documento (CPF ou CNPJ)').fill('123.456');
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith('/documento')),
      page.getByRole('button', { name: 'Buscar por documento' }).click(),
    ]);
    expect(response.status()).toBe(400);
    await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.filterDocumentInvalid);
    await expect(page.getByLabel('Documento (CPF ou CNPJ)').isVisible()).resolves.toBe(true);

    for (const token of ['', 'forjado']) {
      const forged = await page.request.post(`${gateway.url}/backoffice/transacoes/documento`, {
        form: { _csrf: token, documento: FIRST_PAYER },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      const text = await forged.text();
      expect(text).toContain(messages.formExpired);
      expect(text).not.toContain(formatBrl(2_000));
    }
    await page.context().close();
  });
});

describe('at 390 and 1280 px', { timeout: 120_000 }, () => {
  it('the menu holds Transações; the table scrolls inside its region; amounts never break; axe passes; every role reads', async () => {
    for (const role of ['admin', 'compliance', 'support'] as const) {
      const { page } = await signedInOperator(gateway, browser, role);
      const response = await page.goto(`${gateway.url}/backoffice/transacoes?apos=${all[4]?.id}`);
      expect([role, response?.status()]).toEqual([role, 200]);
      expect(await amountsOn(page)).toEqual(amountsOf(all.slice(5, 55)));
      if (role === 'support') {
        for (const width of [1280, 390] as const) {
          await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
          await page.reload();
          await expect((await menuLink(page, 'Transações')).getAttribute('aria-current')).resolves.toBe('page');
          const regions = await tableRegions(page);
          expect(regions.map(({ role: regionRole, label, tabIndex }) => ({ role: regionRole, label, tabIndex }))).toEqual([
            { role: 'region', label: 'Transações', tabIndex: 0 },
          ]);
          expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
          expect(await breakableMoney(page)).toEqual([]);
          await expectAccessible(page);
          await screenshot(page, `backoffice-transacoes-${width}`);
        }
      }
      await page.context().close();
    }
  });
});
