import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { fund } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot, menuLink, openMenu } from '../helpers/browser.js';
import { codeFor, PASSWORD } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * The dashboard's sign-in in a real browser (Chromium through playwright-core): invitation →
 * password → TOTP enrolment → sign-out → sign-in with a code computed here → Início; keyboard use,
 * axe on every page, CSRF and lock-out refusals, one account never seeing another's figures.
 */
let gateway: Gateway;
let browser: Browser;
let merchant: Merchant;
let counter = 0;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
  merchant = await gateway.createMerchant();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

async function invite(accountId: string, role = 'owner') {
  const email = `painel${++counter}@example.com`;
  const reply = await gateway.admin('POST', `/admin/v1/accounts/${accountId}/users`, { email, role });
  expect(reply.status).toBe(201);
  // The link names the public base URL; the browser reaches this test's server.
  return { email, link: `${gateway.url}${new URL(reply.body.inviteUrl).pathname}` };
}

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto(`${gateway.url}/dashboard/entrar`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Senha').fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
}

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  return { context, page: await context.newPage() };
}

describe('dashboard sign-in in a browser', { timeout: 60_000 }, () => {
  it('invitation → password → Início → TOTP enrolment → sign-out → sign-in with a code', async () => {
    const { email, link } = await invite(merchant.accountId);
    const { context, page } = await newPage();

    await page.goto(link);
    await expect.poll(() => page.title()).toBe('Criar senha · Painel PIX');
    await expectAccessible(page);
    await screenshot(page, 'convite');
    await page.getByLabel('Nova senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Definir senha' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.passwordDefined);
    await expectAccessible(page);
    await screenshot(page, 'entrar');

    // Keyboard only: Tab to the fields, Enter submits.
    await page.keyboard.press('Tab'); // the skip link
    expect((await page.locator(':focus').textContent())?.trim()).toBe('Pular para o conteúdo');
    await page.keyboard.press('Tab');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${gateway.url}/dashboard`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Início');
    expect(await page.locator('.card .value').allTextContents()).toEqual(['R$ 0,00', 'R$ 0,00', 'R$ 0,00']);
    await expect.poll(() => page.getByText('Nenhuma transação ainda').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'inicio');

    await (await menuLink(page, 'Segurança')).click();
    await page.getByRole('button', { name: 'Ativar verificação em duas etapas' }).click();
    const secret = (await page.locator('code.secret').textContent()) ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await page.getByRole('img', { name: 'QR para o aplicativo autenticador' }).getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await expectAccessible(page);
    await screenshot(page, 'seguranca-ativar');
    await page.getByLabel('Código').fill('000000');
    await page.getByRole('button', { name: 'Ativar' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.totpCodeInvalid);
    await page.getByLabel('Código').fill(codeFor(gateway, secret));
    await page.getByRole('button', { name: 'Ativar' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.totpEnrolled);
    await screenshot(page, 'seguranca');

    await openMenu(page);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/entrar`);
    await page.goto(`${gateway.url}/dashboard`);
    await page.waitForURL(`${gateway.url}/dashboard/entrar`);

    gateway.clock.advance(30_000); // a code is good once: the sign-in uses the next one
    await signIn(page, email);
    await page.waitForURL(`${gateway.url}/dashboard/entrar/codigo`);
    await expectAccessible(page);
    await screenshot(page, 'codigo');
    await page.getByLabel('Código').fill(codeFor(gateway, secret));
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.waitForURL(`${gateway.url}/dashboard`);
    await context.close();
  });

  it('sets the session cookie HttpOnly and SameSite=Lax, and the pages a strict CSP', async () => {
    const { email, link } = await invite(merchant.accountId);
    const { context, page } = await newPage();
    await page.goto(link);
    await page.getByLabel('Nova senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Definir senha' }).click();
    await signIn(page, email);
    await page.waitForURL(`${gateway.url}/dashboard`);
    const session = (await context.cookies()).find((cookie) => cookie.name === 'svc_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/dashboard' });
    const response = await page.goto(`${gateway.url}/dashboard`);
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['cache-control']).toBe('no-store');
    await context.close();
  });

  it('refuses a form without its CSRF token (403), and locks the user after 5 wrong passwords', async () => {
    const { email, link } = await invite(merchant.accountId);
    const forged = await fetch(`${gateway.url}/dashboard/entrar`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: PASSWORD }).toString(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain(messages.formExpired);

    const { context, page } = await newPage();
    await page.goto(link);
    await page.getByLabel('Nova senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Definir senha' }).click();
    for (let attempt = 0; attempt < 5; attempt++) {
      await signIn(page, email, 'senha errada demais');
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.signInFailed);
    }
    await signIn(page, email);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.userLocked);
    await screenshot(page, 'bloqueado');
    await context.close();
  });

  it("a user of one account sees its own balance, never another's", async () => {
    const other = await gateway.createMerchant();
    await fund(gateway, other, 123_456);
    const mine = await invite(merchant.accountId);
    const theirs = await invite(other.accountId);
    const balances: string[][] = [];
    for (const user of [mine, theirs]) {
      const { context, page } = await newPage();
      await page.goto(user.link);
      await page.getByLabel('Nova senha').fill(PASSWORD);
      await page.getByRole('button', { name: 'Definir senha' }).click();
      await signIn(page, user.email);
      await page.waitForURL(`${gateway.url}/dashboard`);
      balances.push(await page.locator('.card .value').allTextContents());
      await context.close();
    }
    expect(balances).toEqual([
      ['R$ 0,00', 'R$ 0,00', 'R$ 0,00'],
      ['R$ 1.234,56', 'R$ 0,00', 'R$ 1.234,56'],
    ]);
  });
});
