import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBrl, messages } from '../../src/messages.js';
import { dayAfter, dayStart } from '../../src/platform/saoPauloDay.js';
import { fund } from '../helpers/api.js';
import { breakableMoney, expectAccessible, launchBrowser, screenshot, tableRegions, menuLink } from '../helpers/browser.js';
import { signedInPage } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { endToEndIdOf, insertTransactions, seeded, type SeededTransaction } from '../helpers/history.js';

/**
 * Transações and Extratos of the dashboard (DESIGN.md §15) in a real browser: one page of 50 rows
 * at a time, the filters and the cursor in the address (the back button and a shared link work),
 * refusals with the catalog's message and a 400, another account's transaction refused as a
 * cursor, keyboard use, downloads (CSV for Excel and RFC 4180, OFX; daily statements with their
 * digest chain), axe at 390 and 1280 px.
 */
let gateway: Gateway;
let browser: Browser;
let merchant: Merchant;
let other: Merchant;
/** The merchant's seeded rows, newest first. */
let rows: SeededTransaction[];
let otherRows: SeededTransaction[];

const HALF_HOUR = 1_800_000;
const ROWS = 130;
/** The day of America/Sao_Paulo an instant falls on (AAAA-MM-DD). */
const dayOf = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(at);

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
  merchant = await gateway.createMerchant();
  other = await gateway.createMerchant();
  const now = gateway.clock.now().getTime();
  // 130 rows, one every half hour back from now (about three days): each with its own amount, so a
  // row is known by its amount on the page. Of every five: three paid charges, a pending one, a paid withdrawal.
  rows = Array.from({ length: ROWS }, (_, i) => {
    const createdAt = new Date(now - (i + 1) * HALF_HOUR);
    const kind = i % 5;
    const paid = kind !== 3;
    return seeded(merchant.accountId, {
      createdAt,
      type: kind === 4 ? 'withdrawal' : 'pix_in',
      status: paid ? 'paid' : 'pending',
      amountCents: 1_000 + i,
      feeCents: 50,
      externalRef: `pedido-${i}`,
      endToEndId: paid ? endToEndIdOf(createdAt, i) : null,
      payerDocument: paid && kind !== 4 ? '52998224725' : null,
    });
  });
  otherRows = Array.from({ length: 3 }, (_, i) => seeded(other.accountId, { createdAt: new Date(now - (i + 1) * 60_000), amountCents: 777_000 + i }));
  await insertTransactions(gateway, [...rows, ...otherRows]);
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const table = (page: Page) => page.getByRole('region', { name: 'Transações' });
/** The amounts of the rows on the page, in order. */
const amountsOn = async (page: Page) => table(page).locator('tbody tr td:nth-child(3)').allTextContents();
const amountsOf = (selected: SeededTransaction[]) => selected.map((row) => formatBrl(row.amountCents));
/** The page's path and query, as the address bar has it. */
const addressOf = (page: Page) => {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
};

describe('Transações: one page at a time, the filters and the cursor in the address', { timeout: 120_000 }, () => {
  it('pages of 50 newest first; Próxima página and the back button keep every filter; Mais recentes returns to the first', async () => {
    const page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await (await menuLink(page, 'Transações')).click();
    await page.waitForURL(`${gateway.url}/dashboard/transacoes`);
    expect(await amountsOn(page)).toEqual(amountsOf(rows.slice(0, 50)));
    await expect(page.getByRole('link', { name: 'Mais recentes' }).count()).resolves.toBe(0);

    // Paid charges only: 78 rows, two pages.
    const paidCharges = rows.filter((row) => row.type === 'pix_in' && row.status === 'paid');
    await page.getByLabel('Tipo').selectOption({ label: 'Cobrança' });
    await page.getByLabel('Status').selectOption('paid');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/tipo=pix_in/);
    expect(addressOf(page)).toBe('/dashboard/transacoes?tipo=pix_in&status=paid');
    const first = amountsOf(paidCharges.slice(0, 50));
    expect(await amountsOn(page)).toEqual(first);

    await page.getByRole('link', { name: 'Próxima página' }).click();
    await page.waitForURL(/apos=/);
    expect(addressOf(page)).toBe(`/dashboard/transacoes?tipo=pix_in&status=paid&apos=${paidCharges[49]?.id}`);
    const second = amountsOf(paidCharges.slice(50));
    expect(await amountsOn(page)).toEqual(second);
    await expect(page.getByRole('link', { name: 'Próxima página' }).count()).resolves.toBe(0);
    await expect(page.getByLabel('Tipo').inputValue()).resolves.toBe('pix_in');
    await screenshot(page, 'painel-transacoes-pagina-2-390');

    // The browser's back and forward buttons: each page is an address.
    await page.goBack();
    await page.waitForURL((url) => !url.search.includes('apos='));
    expect(addressOf(page)).toBe('/dashboard/transacoes?tipo=pix_in&status=paid');
    expect(await amountsOn(page)).toEqual(first);
    await page.goForward();
    await page.waitForURL(/apos=/);
    expect(await amountsOn(page)).toEqual(second);

    await page.getByRole('link', { name: 'Mais recentes' }).click();
    await page.waitForURL((url) => !url.search.includes('apos='));
    expect(addressOf(page)).toBe('/dashboard/transacoes?tipo=pix_in&status=paid');
    expect(await amountsOn(page)).toEqual(first);

    // The unfiltered list to its end: 50, 50, 30 rows, each page's rows once.
    await page.goto(`${gateway.url}/dashboard/transacoes`);
    const seen: string[] = [];
    for (;;) {
      const amounts = await amountsOn(page);
      expect(amounts.length).toBeLessThanOrEqual(50);
      seen.push(...amounts);
      const next = page.getByRole('link', { name: 'Próxima página' });
      if ((await next.count()) === 0) break;
      await next.click();
      await page.waitForLoadState();
    }
    expect(seen).toEqual(amountsOf(rows));
    await page.context().close();
  });

  it('the period, the type, the search by externalRef or endToEndId', async () => {
    const page = await signedInPage(gateway, browser, merchant.accountId, 'finance', { totp: false });
    const middle = rows[60];
    if (!middle) throw new Error('no row');
    const day = dayOf(middle.createdAt);
    const ofDay = rows.filter((row) => dayOf(row.createdAt) === day);
    await page.goto(`${gateway.url}/dashboard/transacoes`);
    await page.getByLabel('De', { exact: true }).fill(day);
    await page.getByLabel('Até', { exact: true }).fill(day);
    await page.getByLabel('Tipo').selectOption({ label: 'Saque' });
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/de=/);
    expect(addressOf(page)).toBe(`/dashboard/transacoes?de=${day}&ate=${day}&tipo=withdrawal`);
    expect(await amountsOn(page)).toEqual(amountsOf(ofDay.filter((row) => row.type === 'withdrawal')));
    expect(new Set(await table(page).locator('tbody tr td:nth-child(2)').allTextContents())).toEqual(new Set(['Saque']));

    // Busca: an externalRef; an endToEndId (32 letters and digits).
    await page.goto(`${gateway.url}/dashboard/transacoes`);
    await page.getByLabel('Busca (externalRef ou endToEndId)').fill('pedido-7');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/busca=/);
    expect(await amountsOn(page)).toEqual([formatBrl(1_007)]);
    const paid = rows[10];
    await page.goto(`${gateway.url}/dashboard/transacoes?busca=${paid?.endToEndId}`);
    expect(await amountsOn(page)).toEqual([formatBrl(1_010)]);
    await expect(
      table(page)
        .getByText(paid?.endToEndId ?? '')
        .count(),
    ).resolves.toBe(1);
    // A charge links to its page.
    await table(page)
      .getByRole('link', { name: /^Ver a cobrança de R\$ 10,10/ })
      .click();
    await page.waitForURL(`${gateway.url}/dashboard/cobrancas/${paid?.id}`);

    // Nothing found: said, with the way back to the whole list.
    await page.goto(`${gateway.url}/dashboard/transacoes?busca=pedido-inexistente`);
    expect((await page.locator('.empty').innerText()).replace(/\s+/g, ' ').trim()).toBe('Nenhuma transação com estes filtros. Ver todas as transações.');
    await page.context().close();
  });

  it('refuses bad filters and cursors with the catalog message and a 400, never a 500 nor another account’s rows', async () => {
    const page = await signedInPage(gateway, browser, merchant.accountId, 'developer', { totp: false });
    const foreign = otherRows[0]?.id ?? '';
    const cases: [string, string][] = [
      ['?status=pago', messages.filterStatusInvalid],
      ['?tipo=refund', messages.filterTypeInvalid],
      ['?de=2026-02-30', messages.filterDateInvalid],
      ['?de=2026-03-02&ate=2026-03-01', messages.filterRangeInvalid],
      [`?busca=${'x'.repeat(101)}`, messages.externalRefInvalid],
      ['?apos=nao-e-um-id', messages.startingAfterInvalid],
      // Another account's transaction as the cursor: the same answer as one that does not exist.
      [`?apos=${foreign}`, messages.startingAfterInvalid],
      [`?tipo=pix_in&apos=${foreign}`, messages.startingAfterInvalid],
    ];
    for (const [query, message] of cases) {
      const response = await page.goto(`${gateway.url}/dashboard/transacoes${query}`);
      expect([query, response?.status()]).toEqual([query, 400]);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(message);
      await expect(page.locator('tbody tr').count()).resolves.toBe(0);
      await expect(page.getByText('R$ 7.770,00').count()).resolves.toBe(0);
    }
    // The filters stay as typed, to be fixed; the page offers the whole list.
    await page.goto(`${gateway.url}/dashboard/transacoes?de=2026-03-02&ate=2026-03-01`);
    await expect(page.getByLabel('De', { exact: true }).inputValue()).resolves.toBe('2026-03-02');
    await expectAccessible(page);
    await screenshot(page, 'painel-transacoes-recusa-390');
    await page.getByRole('link', { name: 'Ver todas as transações' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/transacoes`);
    expect(await amountsOn(page)).toHaveLength(50);
    // The other account's merchant sees its own rows only.
    const theirs = await signedInPage(gateway, browser, other.accountId, 'owner', { totp: false });
    await theirs.goto(`${gateway.url}/dashboard/transacoes`);
    expect(await amountsOn(theirs)).toEqual(amountsOf(otherRows));
    await theirs.context().close();
    await page.context().close();
  });

  it('by keyboard: the search submitted with Enter, the next page followed with Enter', async () => {
    const page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await page.goto(`${gateway.url}/dashboard/transacoes`);
    // Tab goes through the filters in order (a date field is three stops: day, month, year), then Filtrar.
    await page.getByLabel('De', { exact: true }).focus();
    const order: string[] = [];
    for (let step = 0; step < 12; step++) {
      const name = await page.evaluate<string>('document.activeElement.name || document.activeElement.textContent');
      if (order.at(-1) !== name) order.push(name);
      if (name === 'Filtrar') break;
      await page.keyboard.press('Tab');
    }
    expect(order).toEqual(['de', 'ate', 'tipo', 'status', 'busca', 'Filtrar']);
    await page.getByLabel('Tipo').focus();
    await page.keyboard.press('ArrowDown'); // Todos → Cobrança
    await page.getByLabel('Busca (externalRef ou endToEndId)').focus();
    await page.keyboard.type('pedido-12');
    await page.keyboard.press('Enter');
    await page.waitForURL(/busca=pedido-12/);
    expect(addressOf(page)).toBe('/dashboard/transacoes?tipo=pix_in&busca=pedido-12');
    expect(await amountsOn(page)).toEqual([formatBrl(1_012)]);

    await page.goto(`${gateway.url}/dashboard/transacoes`);
    await page.getByRole('link', { name: 'Próxima página' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/apos=/);
    expect(await amountsOn(page)).toEqual(amountsOf(rows.slice(50, 100)));
    await page.context().close();
  });

  it('at 390 and 1280 px: the table scrolls inside its region (fits at 1280), amounts never break, axe passes', async () => {
    const page = await signedInPage(gateway, browser, merchant.accountId, 'owner', { totp: false });
    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${gateway.url}/dashboard/transacoes?apos=${rows[9]?.id}`);
      expect(await amountsOn(page)).toEqual(amountsOf(rows.slice(10, 60)));
      const regions = await tableRegions(page);
      expect(regions.map(({ role, label, tabIndex }) => ({ role, label, tabIndex }))).toEqual([{ role: 'region', label: 'Transações', tabIndex: 0 }]);
      if (width === 1280) expect(regions[0]?.scrolls).toBe(false);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
      expect(await breakableMoney(page)).toEqual([]);
      await expectAccessible(page);
      await screenshot(page, `painel-transacoes-${width}`);
    }
    await page.context().close();
  });
});

/** A download started by clicking the link named `link` (exactly): its suggested name and its bytes. */
async function downloaded(page: Page, link: string): Promise<{ name: string; bytes: Buffer }> {
  const [download]: [Download, void] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link, exact: true }).click()]);
  return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
}

type CsvRecord = Record<string, string>;
const csvOf = (bytes: Buffer, delimiter: ',' | ';'): CsvRecord[] => parse(bytes, { bom: true, columns: true, delimiter, record_delimiter: '\r\n' });

describe('Exportar', { timeout: 120_000 }, () => {
  it('CSV (Excel: semicolons), CSV (commas) and OFX download the period with the type and status; the search does not apply', async () => {
    const page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    const to = dayOf(rows[0]?.createdAt ?? new Date());
    const from = dayOf(rows.at(-1)?.createdAt ?? new Date());
    const inPeriod = rows.filter((row) => row.type === 'pix_in' && row.status === 'paid');
    await page.goto(`${gateway.url}/dashboard/transacoes?de=${from}&ate=${to}&tipo=pix_in&status=paid&busca=pedido-0`);
    expect(await amountsOn(page)).toEqual([formatBrl(1_000)]);

    const excel = await downloaded(page, 'Exportar CSV (Excel)');
    expect(excel.name).toBe(`transacoes-${from}-a-${to}.csv`);
    expect(excel.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf])); // the BOM: Excel reads the accents right
    // For Excel in Portuguese: semicolons, Portuguese headers, reais with a decimal comma.
    const records = csvOf(excel.bytes, ';');
    expect(records.map((record) => record['ID da transação'])).toEqual(inPeriod.map((row) => row.id));
    expect(records[0]).toMatchObject({ Tipo: 'pix_in', Status: 'paid', 'Valor (centavos)': '1000', 'Valor (R$)': '10,00', 'Referência externa': 'pedido-0' });
    expect(excel.bytes.toString('utf8').split('\r\n')[0]).toMatch(/^\uFEFFID da transação;Tipo;Status;/);

    // For machines: commas, the API's names, a decimal point.
    const comma = await downloaded(page, 'Exportar CSV');
    expect(comma.name).toBe(excel.name);
    const plain = csvOf(comma.bytes, ',');
    expect(plain.map((record) => record.transactionId)).toEqual(inPeriod.map((row) => row.id));
    expect(plain[0]).toMatchObject({ type: 'pix_in', status: 'paid', amountCents: '1000', amount: '10.00', externalRef: 'pedido-0' });

    const ofx = await downloaded(page, 'Exportar OFX');
    expect(ofx.name).toBe(`transacoes-${from}-a-${to}.ofx`);
    expect(ofx.bytes.toString('utf8')).toContain('<OFX>');
    // Still on the list, which the downloads did not leave.
    expect(addressOf(page)).toBe(`/dashboard/transacoes?de=${from}&ate=${to}&tipo=pix_in&status=paid&busca=pedido-0`);
    await page.context().close();
  });

  it('needs a period of at most 31 days: messages naming the form’s fields, with a 400, on the list', async () => {
    const page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await page.goto(`${gateway.url}/dashboard/transacoes`);
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().includes('/exportar')),
      page.getByRole('link', { name: 'Exportar CSV (Excel)' }).click(),
    ]);
    expect(response.status()).toBe(400);
    // The form's fields by their labels, not the API's parameters (createdFrom, createdTo).
    await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.exportPeriodRequired);
    expect(messages.exportPeriodRequired).toBe('Para exportar, preencha De e Até nos filtros (no máximo 31 dias).');
    expect(await amountsOn(page)).toEqual(amountsOf(rows.slice(0, 50)));
    await expectAccessible(page);
    await screenshot(page, 'painel-transacoes-exportar-sem-periodo-390');

    const refusals: [string, string][] = [
      ['?formato=csv&de=2026-01-01&ate=2026-02-15', messages.exportRangeTooLarge(31)],
      ['?formato=csv&de=2026-01-01', messages.exportPeriodRequired],
      ['?formato=xlsx&de=2026-01-01&ate=2026-01-02', messages.exportFormatInvalid],
      ['?formato=csv&de=2026-01-02&ate=2026-01-01', messages.filterRangeInvalid],
    ];
    for (const [query, message] of refusals) {
      const answer = await page.goto(`${gateway.url}/dashboard/transacoes/exportar${query}`);
      expect([query, answer?.status()]).toEqual([query, 400]);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(message);
    }
    // Signed out: the sign-in page, no file.
    const anonymous = await fetch(`${gateway.url}/dashboard/transacoes/exportar?formato=csv&de=2026-01-01&ate=2026-01-02`, { redirect: 'manual' });
    expect([anonymous.status, anonymous.headers.get('location')]).toEqual([303, '/dashboard/entrar']);
    await page.context().close();
  });
});

describe('Extratos', { timeout: 120_000 }, () => {
  it('lists the closed days with their balances; each file is the stored text, its SHA-256 the next day’s previousDigest', async () => {
    // Noon in Brazil: the account, its credit and "today" fall on one day whatever the hour the suite runs (a run just after midnight failed).
    const now = gateway.clock.now();
    gateway.clock.advance((dayStart(dayAfter(dayOf(now)))?.getTime() ?? 0) + 12 * 3_600_000 - now.getTime());
    const fresh = await gateway.createMerchant();
    await fund(gateway, fresh, 12_345);
    const firstDay = dayOf(gateway.clock.now());
    let page = await signedInPage(gateway, browser, fresh.accountId, 'viewer', { totp: false });
    // No transaction yet (the credit is an adjustment): Transações says how to start.
    await page.goto(`${gateway.url}/dashboard/transacoes`);
    expect((await page.locator('.empty').innerText()).replace(/\s+/g, ' ').trim()).toBe(
      'Nenhuma transação ainda. Crie uma cobrança ou use a API (POST /v1/pix) e ela aparece aqui.',
    );
    await page.goto(`${gateway.url}/dashboard/extratos`);
    expect((await page.locator('.empty').innerText()).replace(/\s+/g, ' ').trim()).toBe(
      'Nenhum dia fechado ainda: o extrato de hoje fica disponível depois da meia-noite (horário de Brasília). As transações de hoje já estão em Transações.',
    );
    const notClosed = await page.goto(`${gateway.url}/dashboard/extratos/${firstDay}`);
    expect(notClosed?.status()).toBe(404);
    await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.statementNotClosed(firstDay));
    await page.context().close();

    // Two days later (and the worker's round): the first day and the next are closed.
    gateway.clock.advance(2 * 86_400_000);
    while ((await gateway.services.history.closeDays()) > 0);
    const secondDay = dayOf(new Date(gateway.clock.now().getTime() - 86_400_000));
    page = await signedInPage(gateway, browser, fresh.accountId, 'viewer', { totp: false });
    await (await menuLink(page, 'Transações')).click();
    await (await menuLink(page, 'Extratos')).click();
    await page.waitForURL(`${gateway.url}/dashboard/extratos`);
    const region = page.getByRole('region', { name: 'Extratos' });
    const cells = async (index: number) => (await region.locator('tbody tr').nth(index).locator('td').allTextContents()).map((text) => text.trim());
    const name = (day: string) => day.split('-').reverse().join('/');
    const [second, first] = [await cells(0), await cells(1)];
    expect(await region.locator('tbody tr').count()).toBe(2);
    expect(second.slice(0, 4)).toEqual([name(secondDay), 'R$ 123,45', 'R$ 123,45', '0']);
    expect(first.slice(0, 4)).toEqual([name(firstDay), 'R$ 0,00', 'R$ 123,45', '1']);

    const firstFile = await downloaded(page, `Baixar o extrato de ${name(firstDay)} (JSON)`);
    const secondFile = await downloaded(page, `Baixar o extrato de ${name(secondDay)} (JSON)`);
    expect([firstFile.name, secondFile.name]).toEqual([`extrato-${firstDay}.json`, `extrato-${secondDay}.json`]);
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    expect(sha256(firstFile.bytes)).toBe(first[4]);
    expect(sha256(secondFile.bytes)).toBe(second[4]);
    const [firstStatement, secondStatement] = [JSON.parse(firstFile.bytes.toString('utf8')), JSON.parse(secondFile.bytes.toString('utf8'))];
    expect(firstStatement).toMatchObject({ accountId: fresh.accountId, date: firstDay, openingBalanceCents: 0, closingBalanceCents: 12_345 });
    expect(secondStatement).toMatchObject({ date: secondDay, openingBalanceCents: 12_345, previousDigest: sha256(firstFile.bytes) });
    // The file is the one the API serves, byte for byte.
    const api = await fetch(`${gateway.url}/v1/statements/${firstDay}`, { headers: { authorization: `Bearer ${fresh.apiKey}` } });
    expect(Buffer.from(await api.arrayBuffer())).toEqual(firstFile.bytes);

    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${gateway.url}/dashboard/extratos`);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
      expect(await breakableMoney(page)).toEqual([]);
      await expectAccessible(page);
      await screenshot(page, `painel-extratos-${width}`);
    }

    // Refusals: the service's messages on the error page, with their status.
    const refusals: [string, number, string][] = [
      ['2026-02-30', 400, messages.statementDateInvalid],
      ['2020-01-01', 404, messages.statementBeforeAccount('2020-01-01')],
    ];
    for (const [day, status, message] of refusals) {
      const answer = await page.goto(`${gateway.url}/dashboard/extratos/${day}`);
      expect([day, answer?.status()]).toEqual([day, status]);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(message);
    }
    // Another account's merchant downloads its own statement of that day, never this one's.
    const theirs = await signedInPage(gateway, browser, merchant.accountId, 'owner', { totp: false });
    const [download] = await Promise.all([theirs.waitForEvent('download'), theirs.goto(`${gateway.url}/dashboard/extratos/${firstDay}`).catch(() => null)]);
    expect(JSON.parse((await readFile(await download.path())).toString('utf8')).accountId).toBe(merchant.accountId);
    await theirs.context().close();
    await page.context().close();
  });
});
