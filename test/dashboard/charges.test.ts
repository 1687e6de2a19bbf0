import jsqr from 'jsqr';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import type { UserRole } from '../../src/platform/schema.js';
import { createCharge, readTransaction } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { postFromPage, signedInPage as signIn } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Cobranças in a real browser: a charge created from the form (the API's rules and messages), its
 * page with the QR image (decoded back to the copy-and-paste code) and the list; a viewer cannot
 * create; another account's charge is not found.
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

async function fillCharge(page: Page, values: { amount: string; phone?: string }) {
  if (!(await page.getByLabel('Valor (R$)').isVisible())) await page.locator('summary', { hasText: 'Nova cobrança' }).click();
  await page.getByLabel('Valor (R$)').fill(values.amount);
  await page.getByLabel('Nome do cliente').fill('Ana Souza');
  await page.getByLabel('E-mail do cliente').fill('ana@example.com');
  await page.getByLabel('Telefone (DDD + número)').fill(values.phone ?? '(11) 98765-4321');
  await page.getByLabel('Documento (CPF ou CNPJ)').fill('529.982.247-25');
  await page.getByRole('button', { name: 'Criar cobrança' }).click();
}

describe('Cobranças', () => {
  it('creates a charge from the form and shows its QR image, which decodes to the copy-and-paste code', async () => {
    const page = await signedInPage(merchant.accountId, 'finance');
    await (await menuLink(page, 'Cobranças')).click();
    await expect.poll(() => page.getByText('Nenhuma cobrança ainda').count()).toBe(1);
    await expectAccessible(page);
    await fillCharge(page, { amount: '1.234,56' });
    await page.waitForURL(/\/dashboard\/cobrancas\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Cobrança de R$ 1.234,56');
    const id = page.url().split('/').at(-1) ?? '';
    const payload = (await page.getByLabel('PIX copia e cola').inputValue()).trim();
    expect(payload).toBe((await readTransaction(gateway, merchant, id)).pixPayload);
    const image = await page.request.get(`${gateway.url}/dashboard/cobrancas/${id}/qrcode.png`);
    expect(image.headers()['content-type']).toBe('image/png');
    const png = PNG.sync.read(await image.body());
    expect(jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(payload);
    expect(await page.getByRole('img', { name: 'QR Code PIX da cobrança' }).evaluate((element) => Reflect.get(element, 'naturalWidth'))).toBe(256);
    await expectAccessible(page);
    await screenshot(page, 'cobranca');

    await page.getByRole('link', { name: 'Voltar às cobranças' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr td').nth(1).textContent()).toBe('R$ 1.234,56');
    await page.context().close();
  });

  it.each([
    ['abc', undefined, messages.chargeAmountInvalid],
    ['0,99', undefined, messages.chargeAmountInvalid],
    ['15,00', '1234', messages.customerPhoneInvalid],
  ])('amount %j, phone %j: the API message (400), the form kept', async (amount, phone, error) => {
    const page = await signedInPage(merchant.accountId, 'owner');
    await page.goto(`${gateway.url}/dashboard/cobrancas`);
    await fillCharge(page, { amount, ...(phone ? { phone } : {}) });
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(error);
    expect(await page.getByLabel('Valor (R$)').inputValue()).toBe(amount);
    expect(await page.getByLabel('Nome do cliente').inputValue()).toBe('Ana Souza');
    await page.context().close();
  });

  it('a viewer reads the list but the server refuses it a charge (403)', async () => {
    await createCharge(gateway, merchant);
    const page = await signedInPage(merchant.accountId, 'viewer');
    await page.goto(`${gateway.url}/dashboard/cobrancas`);
    expect(await page.getByRole('button', { name: 'Criar cobrança' }).count()).toBe(0);
    expect(await page.locator('tbody tr').count()).toBeGreaterThanOrEqual(1);
    const forged = await postFromPage(gateway, page, '/dashboard/cobrancas', {
      amount: '10,00',
      name: 'X',
      email: 'x@example.com',
      phone: '11987654321',
      document: '52998224725',
      documentType: 'cpf',
    });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain(messages.roleNotAllowed('viewer'));
    await page.context().close();
  });

  it("another account's charge, its QR image and a malformed id are not found (404)", async () => {
    const theirs = await createCharge(gateway, merchant);
    const other = await gateway.createMerchant();
    const page = await signedInPage(other.accountId, 'owner');
    for (const path of [`/dashboard/cobrancas/${theirs}`, `/dashboard/cobrancas/${theirs}/qrcode.png`, '/dashboard/cobrancas/nao-existe']) {
      const response = await page.goto(`${gateway.url}${path}`);
      expect(response?.status(), path).toBe(404);
      expect(await page.getByRole('alert').textContent()).toBe(messages.transactionNotFound);
    }
    await page.context().close();
  });
});

describe('progress feedback and copying (the one script)', () => {
  it('a submitted form says it is working and cannot be sent twice; "Copiar código" copies the PIX code', async () => {
    const page = await signedInPage(merchant.accountId, 'finance');
    await page.goto(`${gateway.url}/dashboard/cobrancas`);
    if (!(await page.getByLabel('Valor (R$)').isVisible())) await page.locator('summary', { hasText: 'Nova cobrança' }).click();
    // Holds every submission on the page and notes whether the dashboard's script had already refused it.
    await page.evaluate(
      "window.submits = []; document.addEventListener('submit', (event) => { window.submits.push(event.defaultPrevented); event.preventDefault(); })",
    );
    await page.getByLabel('Valor (R$)').fill('12,34');
    await page.getByLabel('Nome do cliente').fill('Ana Souza');
    await page.getByLabel('E-mail do cliente').fill('ana@example.com');
    await page.getByLabel('Telefone (DDD + número)').fill('11987654321');
    await page.getByLabel('Documento (CPF ou CNPJ)').fill('529.982.247-25');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    const busy = page.getByRole('button', { name: 'Enviando…' });
    expect(await busy.getAttribute('aria-disabled')).toBe('true');
    expect(await page.locator('form.stack').getAttribute('aria-busy')).toBe('true');
    await busy.click({ force: true }); // Playwright itself would wait: the button says it is disabled
    expect(await page.evaluate('window.submits')).toEqual([false, true]); // the second press went nowhere

    const charge = await createCharge(gateway, merchant);
    await page.goto(`${gateway.url}/dashboard/cobrancas/${charge}`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.url });
    await page.getByRole('button', { name: 'Copiar código' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copiado' }).count()).toBe(1);
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe((await readTransaction(gateway, merchant, charge)).pixPayload);
    await page.context().close();
  });
});
