import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { dayAfter, dayOf } from '../../src/platform/saoPauloDay.js';
import type { UserRole } from '../../src/platform/schema.js';
import { readTransaction } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { postFromPage, signedInPage as signIn } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * A charge with a due date from the dashboard (DESIGN.md §17): the form (the API's rules and
 * messages), the charge's page with its terms and what is due today, at phone and desk widths,
 * with the keyboard; a viewer cannot create one, a forged form without its CSRF token is refused,
 * and another account's charge is not found.
 */
let gateway: Gateway;
let browser: Browser;
let merchant: Merchant;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
  merchant = await gateway.createMerchant();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const signedInPage = (accountId: string, role: UserRole) => signIn(gateway, browser, accountId, role, { totp: false });
const today = () => dayOf(gateway.clock.now());
const brazilian = (day: string) => day.split('-').reverse().join('/');

async function openForm(page: Page) {
  await page.goto(`${gateway.url}/dashboard/cobrancas`);
  await page.getByRole('link', { name: 'Cobrança com vencimento' }).click();
  await page.waitForURL(/\/dashboard\/cobrancas\/vencimento$/);
}

async function fillDueCharge(page: Page, values: { amount: string; dueDate: string; fine?: string; discount?: string; discountUntil?: string }) {
  await page.getByLabel('Valor (R$)').fill(values.amount);
  await page.getByLabel('Nome do pagador').fill('Maria Pagadora');
  await page.getByLabel('Documento (CPF ou CNPJ)').fill('529.982.247-25');
  await page.getByLabel('Vencimento', { exact: true }).fill(values.dueDate);
  await page.getByLabel('Multa por atraso (%, opcional)').fill(values.fine ?? '2,00');
  await page.getByLabel('Juros ao mês (%, opcional)').fill('1');
  await page.getByLabel('Desconto (R$, opcional)').fill(values.discount ?? '');
  await page.getByLabel('Desconto válido até').fill(values.discountUntil ?? '');
}

describe('Cobrança com vencimento', () => {
  it('creates one from the form; its page shows the terms, what is due today and the QR code, at 1280 and 390 px', async () => {
    const page = await signedInPage(merchant.accountId, 'finance');
    await openForm(page);
    await expectAccessible(page);
    await screenshot(page, 'cobranca-vencimento-formulario');
    const dueDate = dayAfter(today(), 10);
    await fillDueCharge(page, { amount: '1.500,00', dueDate, discount: '50,00', discountUntil: dayAfter(today(), 5) });
    await page.getByRole('button', { name: 'Criar cobrança com vencimento' }).click();
    await page.waitForURL(/\/dashboard\/cobrancas\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Cobrança de R$ 1.500,00');
    const id = page.url().split('/').at(-1) ?? '';
    const shown = await readTransaction(gateway, merchant, id);
    expect(shown.due).toMatchObject({
      dueDate,
      validityAfterDueDays: 30,
      fine: { percent: 2 },
      interest: { percent: 1, per: 'month', days: 'calendar' },
      discount: { until: [{ date: dayAfter(today(), 5), amountCents: 5_000 }] },
    });
    const valueOf = (term: string) => page.locator(`xpath=//dt[normalize-space()="${term}"]/following-sibling::dd[1]`).textContent();
    expect(await valueOf('Vencimento')).toBe(brazilian(dueDate));
    expect(await valueOf('Multa')).toBe('2%');
    expect(await valueOf('Juros')).toBe('1% ao mês');
    expect(await valueOf('Desconto')).toBe(`R$ 50,00 até ${brazilian(dayAfter(today(), 5))}`);
    // Paid today, the discount applies.
    expect(await valueOf('A pagar hoje')).toBe('R$ 1.450,00');
    expect((await page.getByLabel('PIX copia e cola').inputValue()).trim()).toBe(shown.pixPayload);
    await expectAccessible(page);
    await screenshot(page, 'cobranca-vencimento');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page);
    await screenshot(page, 'cobranca-vencimento-390');

    // Paid: the amount paid and the original.
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey });
    expect(paid.body.amountCents).toBe(145_000);
    await page.reload();
    expect(await valueOf('Valor original')).toBe('R$ 1.500,00');
    expect(await page.getByText('A pagar hoje').count()).toBe(0);
    await page.context().close();
  });

  it.each([
    ['a due date in the past', { amount: '100,00', dueDate: '2020-01-10' }, messages.dueDateInPast],
    ['a fine that is not a number', { amount: '100,00', dueDate: '2099-01-10', fine: 'dois' }, messages.fineInvalid],
    ['a discount without its date', { amount: '100,00', dueDate: '2099-01-10', discount: '5,00' }, messages.discountTierInvalid],
    ['an amount below the minimum', { amount: '0,50', dueDate: '2099-01-10' }, messages.chargeAmountInvalid],
  ])('%s: the API message (400), the form kept', async (_name, values, error) => {
    const page = await signedInPage(merchant.accountId, 'owner');
    await openForm(page);
    const dueDate = values.dueDate === '2099-01-10' ? dayAfter(today(), 10) : values.dueDate;
    await fillDueCharge(page, { ...values, dueDate });
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith('/dashboard/cobrancas/vencimento') && answer.request().method() === 'POST'),
      page.getByRole('button', { name: 'Criar cobrança com vencimento' }).click(),
    ]);
    expect(response.status()).toBe(400);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(error);
    expect(await page.getByLabel('Valor (R$)').inputValue()).toBe(values.amount);
    expect(await page.getByLabel('Nome do pagador').inputValue()).toBe('Maria Pagadora');
    await page.context().close();
  });

  it('can be filled and sent with the keyboard alone', async () => {
    const page = await signedInPage(merchant.accountId, 'finance');
    await openForm(page);
    await page.getByLabel('Valor (R$)').focus();
    await page.keyboard.type('80,00');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Maria Pagadora');
    await page.keyboard.press('Tab');
    await page.keyboard.type('52998224725');
    await page.keyboard.press('Tab'); // Tipo do documento: CPF already
    await page.keyboard.press('Tab');
    await page.getByLabel('Vencimento', { exact: true }).fill(dayAfter(today(), 3)); // a date field's own widget
    await page.getByLabel('Multa por atraso (%, opcional)').focus();
    await page.keyboard.type('2');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('name')).toBe('interest');
    await page.keyboard.press('Enter'); // a form is sent from any of its fields
    await page.waitForURL(/\/dashboard\/cobrancas\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Cobrança de R$ 80,00');
    await page.context().close();
  });

  it('a viewer sees no form and the server refuses it (403); a form without its CSRF token is refused (403)', async () => {
    const viewer = await signedInPage(merchant.accountId, 'viewer');
    await viewer.goto(`${gateway.url}/dashboard/cobrancas/vencimento`);
    expect(await viewer.getByRole('button', { name: 'Criar cobrança com vencimento' }).count()).toBe(0);
    expect(await viewer.getByRole('link', { name: 'Cobrança com vencimento' }).count()).toBe(0);
    const form = { amount: '10,00', name: 'X', document: '52998224725', documentType: 'cpf', dueDate: dayAfter(today(), 3), validity: '30' };
    const forged = await postFromPage(gateway, viewer, '/dashboard/cobrancas/vencimento', form);
    expect(forged.status).toBe(403);
    expect(forged.text).toContain(messages.roleNotAllowed('viewer'));
    await viewer.context().close();

    const owner = await signedInPage(merchant.accountId, 'owner');
    await owner.goto(`${gateway.url}/dashboard/cobrancas/vencimento`);
    const before = (await gateway.call('GET', '/v1/transactions?type=pix_in&limit=100', { key: merchant.apiKey })).body.count;
    const withoutToken = await owner.request.post(`${gateway.url}/dashboard/cobrancas/vencimento`, { form, maxRedirects: 0 });
    expect(withoutToken.status()).toBe(403);
    expect((await gateway.call('GET', '/v1/transactions?type=pix_in&limit=100', { key: merchant.apiKey })).body.count).toBe(before);
    await owner.context().close();
  });

  it("another account's charge with a due date is not found (404)", async () => {
    const theirs = await gateway.call('POST', '/v1/pix/due', {
      key: merchant.apiKey,
      body: { amountCents: 10_000, customer: { name: 'Maria', document: { number: '52998224725', type: 'cpf' } }, dueDate: dayAfter(today(), 3) },
    });
    expect(theirs.status).toBe(201);
    const other = await gateway.createMerchant();
    const page = await signedInPage(other.accountId, 'owner');
    const response = await page.goto(`${gateway.url}/dashboard/cobrancas/${theirs.body.transactionId}`);
    expect(response?.status()).toBe(404);
    expect(await page.getByRole('alert').textContent()).toBe(messages.transactionNotFound);
    await page.context().close();
  });
});
