import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import type { UserRole } from '../../src/platform/schema.js';
import { createCharge } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { postFromPage as postWithToken, signedInPage as signIn } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant, NO_CHARGE_FEES } from '../helpers/gateway.js';

/**
 * Disputas (MED cases) in a real browser: the empty state; a case opened by the operator shown
 * with its amount, status, deadline and charge link; a defense sent from the form (mouse and
 * keyboard) that the API then reads; the API's refusals of a bad defense (400), a late one (422),
 * a role that may only read (403), another account's case or a malformed id (404) and a form
 * without its CSRF token (403); the closed cases' status names.
 */
let gateway: Gateway;
let browser: Browser;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const DAY = 86_400_000;
const MINUTE = 60_000;
const CHARGE_CENTS = 12_345;
const CHARGE_BRL = 'R$ 123,45';
const DEFENSE_LABEL = 'Defesa (até 2000 caracteres)';
const EMPTY_STATE =
  'Nenhuma disputa. Quando um pagador contestar um PIX, o caso aparece aqui e um webhook transaction.infraction é enviado: cadastre uma URL em Webhooks para recebê-lo.';

/** A date as a person in Brazil reads it on the dashboard: São Paulo time, dd/mm/aaaa, hh:mm. */
const brazilianDate = (at: number) =>
  new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' }).format(new Date(at));

const signedInPage = (accountId: string, role: UserRole) => signIn(gateway, browser, accountId, role, { totp: false });
const postFromPage = (page: Page, path: string, form: Record<string, string> = {}) => postWithToken(gateway, page, path, form);
const defensePath = (infractionId: string) => `/dashboard/disputas/${infractionId}/defesa`;

/** A paid charge of R$ 123,45 (no fee) of a new merchant. */
async function paidChargeOf(merchant: Merchant): Promise<string> {
  const transactionId = await createCharge(gateway, merchant, { amountCents: CHARGE_CENTS });
  expect((await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey })).status).toBe(200);
  return transactionId;
}

/** The operator opens a MED case on the charge (its whole amount, reason fraud); answers the case. */
async function operatorOpensCase(transactionId: string) {
  const opened = await gateway.admin('POST', `/admin/v1/transactions/${transactionId}/infractions`, { reason: 'fraud' });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  return opened.body;
}

/** A new merchant with one paid charge and a case open on it. */
async function merchantWithCase() {
  const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
  const transactionId = await paidChargeOf(merchant);
  const opened = await operatorOpensCase(transactionId);
  return { merchant, transactionId, infractionId: opened.infractionId, opened };
}

/** The case as the merchant API reads it (GET /v1/infractions/{id}, expects 200). */
async function caseThroughApi(merchant: Merchant, infractionId: string) {
  const read = await gateway.call('GET', `/v1/infractions/${infractionId}`, { key: merchant.apiKey });
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  return read.body;
}

async function openDisputes(page: Page): Promise<void> {
  await page.goto(`${gateway.url}/dashboard/disputas`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Disputas');
}

const caseCard = (page: Page, infractionId: string) => page.locator(`article[aria-labelledby="caso-${infractionId}"]`);

/** The value (dd) of a term (dt) of a case card. */
const valueOf = (card: Locator, term: string) => card.locator(`xpath=.//dt[normalize-space()="${term}"]/following-sibling::dd[1]`);

/** The text of the one alert of a page's HTML, as a server answered it. */
function alertIn(html: string): string | undefined {
  const alerts = [...html.matchAll(/<p class="alert" role="alert">([^<]*)<\/p>/g)];
  expect(alerts).toHaveLength(1);
  return alerts[0]?.[1];
}

describe('Disputas', () => {
  it('a new account has no disputes, and the page says what will appear there', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const page = await signedInPage(merchant.accountId, 'owner');
    await (await menuLink(page, 'Disputas')).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Disputas');
    expect(await (await menuLink(page, 'Disputas')).getAttribute('aria-current')).toBe('page');
    expect(await page.getByText(EMPTY_STATE, { exact: true }).count()).toBe(1);
    expect(await page.locator('article').count()).toBe(0);
    await expectAccessible(page);
    await page.context().close();
  });

  it('finance sees an open case with amount, status, deadline and charge link, sends a defense, and the API reads it', async () => {
    const { merchant, transactionId, infractionId, opened } = await merchantWithCase();
    const page = await signedInPage(merchant.accountId, 'finance');
    await (await menuLink(page, 'Disputas')).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Disputas');

    const card = caseCard(page, infractionId);
    expect(await card.getByRole('heading', { level: 2 }).textContent()).toBe(`${CHARGE_BRL} · aberta em ${brazilianDate(opened.openedAt)}`);
    expect(await valueOf(card, 'Status').textContent()).toBe('Aberta');
    expect(await valueOf(card, 'Status').locator('span').getAttribute('title')).toBe('open');
    expect(opened.defenseDeadline).toBe(opened.openedAt + 5 * DAY);
    expect(await valueOf(card, 'Prazo da defesa').textContent()).toBe(brazilianDate(opened.defenseDeadline));
    expect(await valueOf(card, 'Prazo da defesa').textContent()).toMatch(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}$/);
    expect(await card.getByRole('link', { name: 'Ver a cobrança' }).getAttribute('href')).toBe(`/dashboard/cobrancas/${transactionId}`);
    expect(await page.getByText(EMPTY_STATE).count()).toBe(0);
    await expectAccessible(page);

    // Markup in the defense is text, never HTML.
    const defense = 'Entregamos o produto em 02/03; nota fiscal 123 e <b>rastreio</b> BR123456789.';
    await card.getByLabel(DEFENSE_LABEL).fill(defense);
    await card.getByRole('button', { name: 'Enviar defesa' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.defenseSent);
    expect(await page.getByRole('alert').count()).toBe(0);

    expect(await caseThroughApi(merchant, infractionId)).toMatchObject({ status: 'in_defense', defense, closedAt: null });
    const sent = caseCard(page, infractionId);
    expect(await valueOf(sent, 'Status').textContent()).toBe('Defesa enviada');
    expect(await valueOf(sent, 'Defesa').textContent()).toBe(defense);
    expect(await sent.locator('b').count()).toBe(0);
    expect(await page.getByLabel(DEFENSE_LABEL).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Enviar defesa' }).count()).toBe(0);
    await screenshot(page, 'disputas');
    await expectAccessible(page);

    await sent.getByRole('link', { name: 'Ver a cobrança' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/cobrancas/${transactionId}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Cobrança de ${CHARGE_BRL}`);
    expect(await page.locator('dd code').first().textContent()).toBe(transactionId);
    await page.context().close();
  });

  it('an empty, blank or 2001-character defense is 400 with the API message; the case stays open', async () => {
    const { merchant, infractionId } = await merchantWithCase();
    const page = await signedInPage(merchant.accountId, 'finance');
    await openDisputes(page);
    const textarea = caseCard(page, infractionId).getByLabel(DEFENSE_LABEL);
    expect(await textarea.getAttribute('maxlength')).toBe('2000');

    // The browser itself refuses the empty form: nothing is sent.
    let formsSent = 0;
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.method() === 'POST') formsSent += 1;
    });
    await caseCard(page, infractionId).getByRole('button', { name: 'Enviar defesa' }).click();
    expect(await textarea.evaluate((element) => (element as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
    expect(page.url()).toBe(`${gateway.url}/dashboard/disputas`);

    for (const text of ['', '   ', 'x'.repeat(2001)]) {
      const posted = await postFromPage(page, defensePath(infractionId), { text });
      expect(posted.status, JSON.stringify(text.slice(0, 10))).toBe(400);
      expect(alertIn(posted.text)).toBe(messages.defenseTextInvalid);
    }
    expect(formsSent).toBe(0);
    // The page answered with the form again, holding what was typed.
    const tooLong = await postFromPage(page, defensePath(infractionId), { text: 'y'.repeat(2001) });
    expect(tooLong.text).toContain(`>${'y'.repeat(2001)}</textarea>`);

    expect(await caseThroughApi(merchant, infractionId)).toMatchObject({ status: 'open', defense: null });
    await page.context().close();
  });

  it('past the defense deadline the form is gone and a posted defense is 422', async () => {
    const { merchant, infractionId } = await merchantWithCase();
    gateway.clock.advance(5 * DAY - MINUTE);
    const page = await signedInPage(merchant.accountId, 'finance');
    await openDisputes(page);
    expect(await caseCard(page, infractionId).getByLabel(DEFENSE_LABEL).count()).toBe(1);

    gateway.clock.advance(2 * MINUTE);
    await openDisputes(page);
    const card = caseCard(page, infractionId);
    expect(await valueOf(card, 'Status').textContent()).toBe('Aberta');
    expect(await card.getByLabel(DEFENSE_LABEL).count()).toBe(0);
    expect(await card.getByRole('button', { name: 'Enviar defesa' }).count()).toBe(0);

    const late = await postFromPage(page, defensePath(infractionId), { text: 'Chegou tarde.' });
    expect(late.status).toBe(422);
    expect(alertIn(late.text)).toBe(messages.defenseDeadlinePassed);
    expect(await caseThroughApi(merchant, infractionId)).toMatchObject({ status: 'open', defense: null });
    await page.context().close();
  });

  it.each(['viewer', 'developer'] as const)('a %s sees the case but no form, and a posted defense is 403', async (role) => {
    const { merchant, infractionId } = await merchantWithCase();
    const page = await signedInPage(merchant.accountId, role);
    await openDisputes(page);
    const card = caseCard(page, infractionId);
    expect(await valueOf(card, 'Status').textContent()).toBe('Aberta');
    expect(await card.getByLabel(DEFENSE_LABEL).count()).toBe(0);
    expect(await page.getByText('Seu papel permite ver, não enviar defesas.', { exact: true }).count()).toBe(1);

    const forged = await postFromPage(page, defensePath(infractionId), { text: 'Não posso enviar isto.' });
    expect(forged.status).toBe(403);
    expect(alertIn(forged.text)).toBe(messages.roleNotAllowed(role));
    expect(await caseThroughApi(merchant, infractionId)).toMatchObject({ status: 'open', defense: null });
    await page.context().close();
  });

  it("another account's owner neither sees the case nor may defend it (404)", async () => {
    const { merchant, infractionId } = await merchantWithCase();
    const other = await gateway.createMerchant(NO_CHARGE_FEES);
    const page = await signedInPage(other.accountId, 'owner');
    await openDisputes(page);
    expect(await caseCard(page, infractionId).count()).toBe(0);
    expect(await page.getByText(EMPTY_STATE, { exact: true }).count()).toBe(1);

    const foreign = await postFromPage(page, defensePath(infractionId), { text: 'Não é meu caso.' });
    expect(foreign.status).toBe(404);
    expect(alertIn(foreign.text)).toBe(messages.infractionNotFound);
    expect(await caseThroughApi(merchant, infractionId)).toMatchObject({ status: 'open', defense: null });
    await page.context().close();
  });

  it('a malformed id is 404; a defense without the CSRF token, or with a wrong one, is 403', async () => {
    const { merchant, infractionId } = await merchantWithCase();
    const page = await signedInPage(merchant.accountId, 'finance');
    await openDisputes(page);

    for (const id of ['nao-existe', infractionId.toUpperCase()]) {
      const malformed = await postFromPage(page, defensePath(id), { text: 'Defesa.' });
      expect(malformed.status, id).toBe(404);
      expect(alertIn(malformed.text)).toBe(messages.infractionNotFound);
    }

    const forms: Record<string, string>[] = [{ text: 'Sem token.' }, { text: 'Token errado.', _csrf: 'x'.repeat(40) }];
    for (const form of forms) {
      const response = await page.request.post(`${gateway.url}${defensePath(infractionId)}`, { form, maxRedirects: 0 });
      expect(response.status(), form.text).toBe(403);
      expect(alertIn(await response.text())).toBe(messages.formExpired);
    }
    expect(await caseThroughApi(merchant, infractionId)).toMatchObject({ status: 'open', defense: null });
    await page.context().close();
  });

  it('closed and analysed cases show their status names and no form', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const cases: { infractionId: string; operatorAction: string; apiStatus: string; shown: string }[] = [
      { infractionId: '', operatorAction: 'accept', apiStatus: 'accepted', shown: 'Aceita: valor devolvido' },
      { infractionId: '', operatorAction: 'reject', apiStatus: 'rejected', shown: 'Rejeitada: valor liberado' },
      { infractionId: '', operatorAction: 'analysis', apiStatus: 'under_analysis', shown: 'Em análise' },
    ];
    for (const dispute of cases) {
      dispute.infractionId = (await operatorOpensCase(await paidChargeOf(merchant))).infractionId;
      const moved = await gateway.admin('POST', `/admin/v1/infractions/${dispute.infractionId}/${dispute.operatorAction}`);
      expect(moved, JSON.stringify(moved.body)).toMatchObject({ status: 200, body: { status: dispute.apiStatus } });
      expect(await caseThroughApi(merchant, dispute.infractionId)).toMatchObject({ status: dispute.apiStatus });
    }

    const page = await signedInPage(merchant.accountId, 'owner');
    await openDisputes(page);
    for (const dispute of cases) {
      const card = caseCard(page, dispute.infractionId);
      expect(await valueOf(card, 'Status').textContent(), dispute.apiStatus).toBe(dispute.shown);
      expect(await valueOf(card, 'Status').locator('span').getAttribute('title')).toBe(dispute.apiStatus);
    }
    expect(await page.getByLabel(DEFENSE_LABEL).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Enviar defesa' }).count()).toBe(0);
    await expectAccessible(page);

    const closed = await postFromPage(page, defensePath(cases[0]?.infractionId ?? ''), { text: 'Tarde demais.' });
    expect(closed.status).toBe(422);
    expect(alertIn(closed.text)).toBe(messages.infractionNoDefense('accepted'));
    await page.context().close();
  });

  it('a defense can be written and sent with the keyboard alone', async () => {
    const { merchant, infractionId } = await merchantWithCase();
    const page = await signedInPage(merchant.accountId, 'finance');
    await openDisputes(page);
    const card = caseCard(page, infractionId);

    await card.getByLabel(DEFENSE_LABEL).focus();
    const defense = 'Produto entregue; comprovante de entrega anexado ao pedido 987.';
    await page.keyboard.type(defense);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Enviar defesa');
    await page.keyboard.press('Enter');

    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.defenseSent);
    expect(await caseThroughApi(merchant, infractionId)).toMatchObject({ status: 'in_defense', defense });
    expect(await valueOf(caseCard(page, infractionId), 'Defesa').textContent()).toBe(defense);
    await page.context().close();
  });
});
