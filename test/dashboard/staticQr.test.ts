import jsqr from 'jsqr';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import type { UserRole } from '../../src/platform/schema.js';
import { breakableMoney, expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { postFromPage, signedInPage as signIn } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * QR Codes estáticos in a real browser (DESIGN.md §17): codes created from the form with and
 * without an amount (the API's schema, service and messages), with the keyboard; a code's page with
 * its QR image (decoded back to the copy-and-paste code), the PIX paid to it through the sandbox
 * and deactivation; roles, CSRF and other accounts' codes refused; axe at 390 and 1280 px.
 */
let gateway: Gateway;
let browser: Browser;

/** 1% of each PIX, so a payment's fee shows. */
const FEES = { fees: { pixIn: { fixedCents: 0, bps: 100, minCents: 0, maxCents: 1_000_000 } } };

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const signedInPage = (accountId: string, role: UserRole) => signIn(gateway, browser, accountId, role, { totp: false });
const CODE_PAGE = /\/dashboard\/qr-estaticos\/[0-9a-f-]{36}$/;
/** A txid no other test of the gateway uses (txids are unique across merchants). */
let txids = 0;
const uniqueTxid = (prefix: string) => `${prefix}${Date.now().toString(36)}${++txids}`.toUpperCase().slice(0, 25);

const codesOf = async (merchant: Merchant) => (await gateway.call('GET', '/v1/pix/static', { key: merchant.apiKey })).body.codes;
const readCode = async (merchant: Merchant, id: string) => (await gateway.call('GET', `/v1/pix/static/${id}`, { key: merchant.apiKey })).body;
const createByApi = async (merchant: Merchant, body: Record<string, unknown>) => {
  const created = await gateway.call('POST', '/v1/pix/static', { key: merchant.apiKey, body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
};
const payByApi = async (merchant: Merchant, id: string, body: Record<string, unknown> = {}) =>
  gateway.call('POST', `/sandbox/v1/pix/static/${id}/pay`, { key: merchant.apiKey, body });

/** The value beside a term of the page's description list. */
const valueOf = (page: Page, term: string) => page.locator(`xpath=//dt[normalize-space()="${term}"]/following-sibling::dd[1]`).textContent();

/** The list page, with the form open. */
async function openForm(page: Page) {
  await page.goto(`${gateway.url}/dashboard/qr-estaticos`);
  if (!(await page.getByLabel('Valor fixo (R$, opcional)').isVisible())) await page.locator('summary', { hasText: 'Novo QR Code estático' }).click();
}

async function fillCode(page: Page, values: { amount?: string; description?: string; txid?: string }) {
  await page.getByLabel('Valor fixo (R$, opcional)').fill(values.amount ?? '');
  await page.getByLabel('Descrição (opcional)').fill(values.description ?? '');
  await page.getByLabel('Identificador (txid, opcional)').fill(values.txid ?? '');
}

/** The payload shown on a code's page, and its QR image decoded. */
async function shownCode(page: Page, id: string) {
  const payload = (await page.getByLabel('PIX copia e cola').inputValue()).trim();
  const image = await page.request.get(`${gateway.url}/dashboard/qr-estaticos/${id}/qrcode.png`);
  expect(image.headers()['content-type']).toBe('image/png');
  const png = PNG.sync.read(await image.body());
  return { payload, decoded: jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height)?.data };
}

describe('QR Codes estáticos', () => {
  it('from Cobranças, creates a code with a fixed amount: its page shows the QR image, which decodes to the copy-and-paste code', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const page = await signedInPage(merchant.accountId, 'finance');
    await (await menuLink(page, 'Cobranças')).click();
    await page.getByRole('link', { name: 'QR Codes estáticos' }).click();
    await page.waitForURL(/\/dashboard\/qr-estaticos$/);
    expect(await page.locator('.empty').innerText()).toContain('Nenhum QR Code estático ainda.');
    await expectAccessible(page);
    await screenshot(page, 'qr-estaticos-vazio');

    const txid = uniqueTxid('BALCAO');
    await fillCode(page, { amount: '10,50', description: 'Café e pão de queijo', txid });
    await page.getByRole('button', { name: 'Criar QR Code' }).click();
    await page.waitForURL(CODE_PAGE);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('QR Code estático de R$ 10,50');
    const id = page.url().split('/').at(-1) ?? '';
    const code = await readCode(merchant, id);
    expect(code).toMatchObject({ amountCents: 1_050, description: 'Café e pão de queijo', txid, active: true });
    expect(await valueOf(page, 'Status')).toBe('Ativo');
    expect(await valueOf(page, 'txid')).toBe(txid);
    expect(await valueOf(page, 'Pagamentos')).toBe('0');
    const { payload, decoded } = await shownCode(page, id);
    expect(payload).toBe(code.pixPayload);
    expect(decoded).toBe(payload);
    expect(await page.getByRole('img', { name: 'QR Code PIX estático' }).evaluate((element) => Reflect.get(element, 'naturalWidth'))).toBe(256);
    expect(await page.getByText('Nenhum pagamento ainda.').count()).toBe(1);
    expect(await breakableMoney(page)).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, 'qr-estatico-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page);
    await screenshot(page, 'qr-estatico-1280');

    await page.getByRole('link', { name: 'Voltar aos QR Codes estáticos' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    const cells = await page.locator('tbody tr td').allTextContents();
    expect(cells.slice(1, 6).map((cell) => cell.trim())).toEqual(['R$ 10,50', 'Café e pão de queijo', txid, 'Ativo', '0']);
    await expectAccessible(page);
    await screenshot(page, 'qr-estaticos-1280');
    await page.context().close();
  });

  it('creates a code without an amount (valor livre) and with a txid of the gateway', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const page = await signedInPage(merchant.accountId, 'owner');
    await openForm(page);
    await fillCode(page, { description: 'Doações' });
    await page.getByRole('button', { name: 'Criar QR Code' }).click();
    await page.waitForURL(CODE_PAGE);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('QR Code estático de valor livre');
    const id = page.url().split('/').at(-1) ?? '';
    const code = await readCode(merchant, id);
    expect(code).toMatchObject({ amountCents: null, description: 'Doações', active: true });
    expect(code.txid).toMatch(/^[A-Z2-9]{25}$/);
    expect(await valueOf(page, 'Valor')).toBe('Livre: o pagador digita o valor');
    expect(await valueOf(page, 'txid')).toBe(code.txid);
    const { payload, decoded } = await shownCode(page, id);
    expect(payload).toBe(code.pixPayload);
    expect(decoded).toBe(payload);
    await expectAccessible(page);
    await screenshot(page, 'qr-estatico-valor-livre-390');

    await page.goto(`${gateway.url}/dashboard/qr-estaticos`);
    expect((await page.locator('tbody tr td').nth(1).textContent())?.trim()).toBe('Valor livre');
    await page.context().close();
  });

  it('can be opened, filled and sent with the keyboard alone', async () => {
    const merchant = await gateway.createMerchant(FEES);
    await createByApi(merchant, { amountCents: 500 }); // with a code listed, the form starts closed
    const page = await signedInPage(merchant.accountId, 'finance');
    await page.goto(`${gateway.url}/dashboard/qr-estaticos`);
    expect(await page.getByLabel('Valor fixo (R$, opcional)').isVisible()).toBe(false);
    await page.locator('summary', { hasText: 'Novo QR Code estático' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('name')).toBe('amount');
    await page.keyboard.type('7,00');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('name')).toBe('description');
    await page.keyboard.type('Mesa 4');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('name')).toBe('txid');
    const txid = uniqueTxid('MESA');
    await page.keyboard.type(txid);
    await page.keyboard.press('Enter'); // a form is sent from any of its fields
    await page.waitForURL(CODE_PAGE);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('QR Code estático de R$ 7,00');
    expect(await valueOf(page, 'Descrição')).toBe('Mesa 4');
    expect(await valueOf(page, 'txid')).toBe(txid);
    await page.context().close();
  });

  /** A refused form: what it is, the status, the fields typed and the catalog's message. */
  const REFUSALS: [string, number, { amount: string; txid?: string }, string][] = [
    ['an amount that is not one', 400, { amount: 'dez reais' }, messages.staticQrAmountInvalid],
    ['an amount below R$ 1,00', 400, { amount: '0,50' }, messages.staticQrAmountInvalid],
    ['an amount above the account maximum', 400, { amount: '100.000,01' }, messages.amountAboveMaximum(10_000_000)],
    ['a txid with a dash', 400, { amount: '5,00', txid: 'mesa-4' }, messages.staticQrTxidInvalid],
    ['a txid another merchant has', 422, { amount: '5,00', txid: 'TOMADO1' }, messages.staticQrTxidTaken],
  ];
  it.each(REFUSALS)('%s: the API message beside the form (%i), the form kept, nothing created', async (_name, status, values, error) => {
    const merchant = await gateway.createMerchant(FEES);
    if (status === 422) await createByApi(await gateway.createMerchant(FEES), { txid: values.txid }); // another merchant's code has it
    const page = await signedInPage(merchant.accountId, 'owner');
    await openForm(page);
    await fillCode(page, { description: 'Balcão', ...values });
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith('/dashboard/qr-estaticos') && answer.request().method() === 'POST'),
      page.getByRole('button', { name: 'Criar QR Code' }).click(),
    ]);
    expect(response.status()).toBe(status);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(error);
    expect(await page.getByLabel('Valor fixo (R$, opcional)').inputValue()).toBe(values.amount);
    expect(await page.getByLabel('Descrição (opcional)').inputValue()).toBe('Balcão');
    expect(await page.getByLabel('Identificador (txid, opcional)').inputValue()).toBe(values.txid ?? '');
    expect(await codesOf(merchant)).toEqual([]);
    await expectAccessible(page);
    if (values.txid === 'mesa-4') await screenshot(page, 'qr-estaticos-erro-390');
    await page.context().close();
  });

  it('a viewer or a developer reads the codes but the server refuses them a new one or a deactivation (403)', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const id = await createByApi(merchant, { amountCents: 1_000, description: 'Balcão' });
    for (const role of ['viewer', 'developer'] as const) {
      const page = await signedInPage(merchant.accountId, role);
      await page.goto(`${gateway.url}/dashboard/qr-estaticos`);
      expect(await page.getByRole('button', { name: 'Criar QR Code' }).count()).toBe(0);
      expect(await page.getByText('Seu papel permite ver, não criar QR Codes estáticos.').count()).toBe(1);
      expect(await page.locator('tbody tr').count()).toBe(1);
      const forged = await postFromPage(gateway, page, '/dashboard/qr-estaticos', { amount: '10,00', description: 'X', txid: '' });
      expect(forged.status).toBe(403);
      expect(forged.text).toContain(messages.roleNotAllowed(role));
      expect(await codesOf(merchant)).toHaveLength(1);

      await page.goto(`${gateway.url}/dashboard/qr-estaticos/${id}`);
      expect(await page.getByRole('button', { name: 'Desativar QR Code' }).count()).toBe(0);
      expect(await page.getByRole('img', { name: 'QR Code PIX estático' }).count()).toBe(1);
      await expectAccessible(page);
      const deactivation = await postFromPage(gateway, page, `/dashboard/qr-estaticos/${id}/desativar`);
      expect(deactivation.status).toBe(403);
      expect(deactivation.text).toContain(messages.roleNotAllowed(role));
      expect((await readCode(merchant, id)).active).toBe(true);
      await page.context().close();
    }
  });

  it('a form without its CSRF token is refused (403): nothing created, nothing deactivated', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const id = await createByApi(merchant, { amountCents: 1_000 });
    const page = await signedInPage(merchant.accountId, 'owner');
    await page.goto(`${gateway.url}/dashboard/qr-estaticos`);
    const created = await page.request.post(`${gateway.url}/dashboard/qr-estaticos`, { form: { amount: '10,00', description: 'X' }, maxRedirects: 0 });
    expect(created.status()).toBe(403);
    expect(await created.text()).toContain(messages.formExpired);
    expect(await codesOf(merchant)).toHaveLength(1);
    const deactivated = await page.request.post(`${gateway.url}/dashboard/qr-estaticos/${id}/desativar`, { form: {}, maxRedirects: 0 });
    expect(deactivated.status()).toBe(403);
    expect(await deactivated.text()).toContain(messages.formExpired);
    expect((await readCode(merchant, id)).active).toBe(true);
    await page.context().close();
  });

  it("another account's code, its QR image, its deactivation and a malformed id are not found (404)", async () => {
    const merchant = await gateway.createMerchant(FEES);
    const theirs = await createByApi(merchant, { amountCents: 1_000 });
    const other = await gateway.createMerchant(FEES);
    const page = await signedInPage(other.accountId, 'owner');
    for (const path of [`/dashboard/qr-estaticos/${theirs}`, `/dashboard/qr-estaticos/${theirs}/qrcode.png`, '/dashboard/qr-estaticos/nao-existe']) {
      const response = await page.goto(`${gateway.url}${path}`);
      expect(response?.status(), path).toBe(404);
      expect(await page.getByRole('alert').textContent()).toBe(messages.staticQrNotFound);
    }
    await page.goto(`${gateway.url}/dashboard/qr-estaticos`);
    expect(await page.locator('tbody tr').count()).toBe(0);
    const deactivation = await postFromPage(gateway, page, `/dashboard/qr-estaticos/${theirs}/desativar`);
    expect(deactivation.status).toBe(404);
    expect(deactivation.text).toContain(messages.staticQrNotFound);
    expect((await readCode(merchant, theirs)).active).toBe(true);
    await page.context().close();
  });

  it('deactivates a code: the page says so and drops the QR image; the sandbox cannot pay it (422); again is refused (422)', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const id = await createByApi(merchant, { amountCents: 1_500, description: 'Feira' });
    const page = await signedInPage(merchant.accountId, 'finance');
    await page.goto(`${gateway.url}/dashboard/qr-estaticos/${id}`);
    await page.getByRole('button', { name: 'Desativar QR Code' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.staticQrDeactivatedNotice);
    expect(await valueOf(page, 'Status')).toBe('Desativado');
    expect(await valueOf(page, 'Desativado em')).toMatch(/^\d{2}\/\d{2}\/\d{4}/);
    expect(await page.getByRole('img', { name: 'QR Code PIX estático' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Desativar QR Code' }).count()).toBe(0);
    const code = await readCode(merchant, id);
    expect(code.active).toBe(false);
    const refused = await payByApi(merchant, id);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: messages.staticQrInactive });
    await expectAccessible(page);
    await screenshot(page, 'qr-estatico-desativado-390');

    // A page left open from before the deactivation: the service's refusal with its status.
    const again = await postFromPage(gateway, page, `/dashboard/qr-estaticos/${id}/desativar`);
    expect(again.status).toBe(422);
    expect(again.text).toContain(messages.staticQrInactive);

    await page.goto(`${gateway.url}/dashboard/qr-estaticos`);
    expect((await page.locator('tbody tr td').nth(4).textContent())?.trim()).toBe('Desativado');
    await page.context().close();
  });

  it('paid twice through the sandbox: the code lists both payments, each linking to its transaction; the list counts them', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const id = await createByApi(merchant, { description: 'Doações' });
    const paid: string[] = [];
    for (const amountCents of [2_500, 12_345]) {
      const payment = await payByApi(merchant, id, { amountCents });
      expect(payment.status, JSON.stringify(payment.body)).toBe(200);
      paid.push(payment.body.transactionId);
    }
    const page = await signedInPage(merchant.accountId, 'viewer');
    await page.goto(`${gateway.url}/dashboard/qr-estaticos/${id}`);
    expect(await valueOf(page, 'Pagamentos')).toBe('2');
    const region = page.getByRole('region', { name: 'Pagamentos do QR Code' });
    await expect.poll(() => region.locator('tbody tr').count()).toBe(2);
    // Newest first: R$ 123,45 (fee 1%: R$ 1,23), then R$ 25,00.
    const firstRow = (await region.locator('tbody tr').first().locator('td').allTextContents()).map((cell) => cell.trim());
    expect(firstRow.slice(1, 4)).toEqual(['R$ 123,45', 'R$ 1,23', 'R$ 122,22']);
    expect(firstRow[5]).toBe('Paga');
    const links = await region.getByRole('link', { name: 'Ver o pagamento' }).evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
    expect(links).toEqual([...paid].reverse().map((transactionId) => `/dashboard/cobrancas/${transactionId}`));
    expect(await breakableMoney(page)).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, 'qr-estatico-pagamentos-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page);
    await screenshot(page, 'qr-estatico-pagamentos-1280');

    await region.getByRole('link', { name: 'Ver o pagamento de R$ 25,00' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/cobrancas/${paid[0]}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Cobrança de R$ 25,00');
    await page.getByRole('link', { name: 'Ver o QR Code pago' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/qr-estaticos/${id}`);

    await page.goto(`${gateway.url}/dashboard/qr-estaticos`);
    expect((await page.locator('tbody tr td').nth(5).textContent())?.trim()).toBe('2');
    await page.context().close();
  });
});
