import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { PASSWORD, postFromPage } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Invitation links of both sites (the dashboard's and the back-office's; a forgotten password is
 * replaced by removing the person and inviting again, so these are the reset links too), in a real
 * browser: a usable link shows the password form; an unknown token is refused up front with 404, a
 * used or expired one (or one of a removed person) with 410 — the message and no form, before any
 * password is typed; a hand-made POST is refused the same way and sets no password.
 */
let gateway: Gateway;
let browser: Browser;
let merchant: Merchant;
let counter = 0;

const UNKNOWN_TOKEN = 'A'.repeat(43);

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
  merchant = await gateway.createMerchant();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

/** A dashboard invitation of the merchant: its e-mail, user id and path (on this test's server). */
async function userInvitation() {
  const email = `convidado${++counter}-${Date.now()}@example.com`;
  const invitation = await gateway.services.users.invite(merchant.accountId, { email, role: 'viewer' });
  return { email, userId: invitation.userId, path: new URL(invitation.inviteUrl).pathname };
}

async function pageAt(width: 390 | 1280): Promise<Page> {
  return (await browser.newContext({ viewport: { width, height: 844 } })).newPage();
}

/** The refusal as the person sees it: the status, the exact message, no form and no password field. */
async function expectRefused(page: Page, path: string, status: 404 | 410, screenshotName?: string) {
  const response = await page.goto(`${gateway.url}${path}`);
  expect(response?.status()).toBe(status);
  await expect(page.title()).resolves.toBe('Convite indisponível · ' + (path.startsWith('/backoffice') ? 'Back-office PIX' : 'Painel PIX'));
  await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.inviteInvalid);
  expect(await page.locator('form').count()).toBe(0);
  expect(await page.locator('input[type="password"]').count()).toBe(0);
  await expect(page.getByRole('link', { name: 'Entre' }).getAttribute('href')).resolves.toBe(
    path.startsWith('/backoffice') ? '/backoffice/entrar' : '/dashboard/entrar',
  );
  if (screenshotName) {
    await expectAccessible(page);
    await screenshot(page, screenshotName);
  }
}

describe('dashboard invitation links', () => {
  it('a usable link shows the form (390 and 1280 px); a password too short keeps it with its message; then the link is spent (410)', async () => {
    const { email, path } = await userInvitation();
    for (const width of [390, 1280] as const) {
      const page = await pageAt(width);
      const response = await page.goto(`${gateway.url}${path}`);
      expect(response?.status()).toBe(200);
      await expect(page.title()).resolves.toBe('Criar senha · Painel PIX');
      await expect(page.getByRole('button', { name: 'Definir senha' }).isVisible()).resolves.toBe(true);
      await expectAccessible(page);
      await screenshot(page, `convite-valido-${width}`);
      await page.context().close();
    }

    const page = await pageAt(390);
    await page.goto(`${gateway.url}${path}`);
    const short = await postFromPage(gateway, page, path, { password: 'curta' });
    expect(short.status).toBe(400);
    expect(short.text).toContain(messages.passwordLength);
    expect(short.text).toContain('Definir senha');
    await page.getByLabel('Nova senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Definir senha' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/entrar?senha=definida`);
    expect((await gateway.services.users.signIn(email, PASSWORD)).stage).toBe('full');

    for (const width of [390, 1280] as const) {
      const again = await pageAt(width);
      await expectRefused(again, path, 410, `convite-usado-${width}`);
      await again.context().close();
    }
    await page.context().close();
  });

  it('an unknown token is refused up front with 404: the message, no form (390 and 1280 px)', async () => {
    for (const width of [390, 1280] as const) {
      const page = await pageAt(width);
      await expectRefused(page, `/dashboard/convite/${UNKNOWN_TOKEN}`, 404, `convite-desconhecido-${width}`);
      await page.context().close();
    }
  });

  it('a hand-made POST with a bad token is refused as the link is (404 unknown, 410 used) and sets no password', async () => {
    const { email, path } = await userInvitation();
    const page = await pageAt(390);
    await page.goto(`${gateway.url}/dashboard/entrar`); // a page with a form: the CSRF token
    const unknown = await postFromPage(gateway, page, `/dashboard/convite/${UNKNOWN_TOKEN}`, { password: PASSWORD });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain(messages.inviteInvalid);
    expect(unknown.text).not.toContain('Definir senha');

    expect((await postFromPage(gateway, page, path, { password: PASSWORD })).status).toBe(303);
    const used = await postFromPage(gateway, page, path, { password: 'outra senha bem comprida' });
    expect(used.status).toBe(410);
    expect(used.text).toContain(messages.inviteInvalid);
    expect(used.text).not.toContain('Definir senha');
    await expect(gateway.services.users.signIn(email, 'outra senha bem comprida')).rejects.toThrow(messages.signInFailed);
    await page.context().close();
  });

  it("a removed member's link and an expired link are refused up front with 410", async () => {
    const removed = await userInvitation();
    await gateway.services.users.removeMember(merchant.accountId, removed.userId);
    const page = await pageAt(390);
    await expectRefused(page, removed.path, 410);

    const late = await userInvitation();
    const fresh = await page.goto(`${gateway.url}${late.path}`);
    expect(fresh?.status()).toBe(200);
    gateway.clock.advance(72 * 3_600_000 + 1_000);
    await expectRefused(page, late.path, 410, 'convite-expirado-390');
    await page.context().close();
  });
});

describe('back-office invitation links', () => {
  it('a usable link shows the form; spent (410) once used; an unknown one 404; a POST refused the same', async () => {
    const email = `operador-convite-${Date.now()}@example.com`;
    const invited = await gateway.services.operators.invite({ email, role: 'support' });
    const path = new URL(invited.inviteUrl).pathname;
    expect(path).toMatch(/^\/backoffice\/convite\/[\w-]{43}$/);
    for (const width of [390, 1280] as const) {
      const page = await pageAt(width);
      const response = await page.goto(`${gateway.url}${path}`);
      expect(response?.status()).toBe(200);
      await expect(page.title()).resolves.toBe('Criar senha · Back-office PIX');
      await expectAccessible(page);
      await screenshot(page, `backoffice-convite-valido-${width}`);
      await page.context().close();
    }
    const page = await pageAt(1280);
    await page.goto(`${gateway.url}${path}`);
    await page.getByLabel('Nova senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Definir senha' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/entrar?senha=definida`);

    await expectRefused(page, path, 410, 'backoffice-convite-usado-1280');
    await expectRefused(page, `/backoffice/convite/${UNKNOWN_TOKEN}`, 404, 'backoffice-convite-desconhecido-1280');
    await page.goto(`${gateway.url}/backoffice/entrar`);
    const used = await postFromPage(gateway, page, path, { password: 'outra senha bem comprida' });
    expect(used.status).toBe(410);
    expect(used.text).toContain(messages.inviteInvalid);
    await page.context().close();
  });
});
