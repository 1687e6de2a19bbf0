import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import type { UserRole } from '../../src/platform/schema.js';
import type { Gateway } from './gateway.js';

/** Dashboard users' password in the browser tests. */
export const PASSWORD = 'senha muito segura 123';

/** The code an authenticator shows now, by the gateway's clock. */
export const codeFor = (gateway: Gateway, secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: gateway.clock.now().getTime() });

let counter = 0;

/** A signed-in user of the browser tests: its page (left on Início), its TOTP secret ('' without TOTP), id and e-mail. */
export type SignedInUser = { page: Page; secret: string; userId: string; email: string };

/**
 * A new user of the account (TOTP enrolled when asked), signed in through the pages on a new
 * browser context 390 px wide; the page is left on Início.
 */
export async function signedInPage(gateway: Gateway, browser: Browser, accountId: string, role: UserRole, options: { totp: boolean }): Promise<Page> {
  return (await signedInUser(gateway, browser, accountId, role, options)).page;
}

/** As signedInPage, with the user's TOTP secret (to compute the fresh codes of withdrawals and refunds), id and e-mail. */
export async function signedInUser(gateway: Gateway, browser: Browser, accountId: string, role: UserRole, options: { totp: boolean }): Promise<SignedInUser> {
  const users = gateway.services.users;
  const email = `usuario${++counter}-${Date.now()}@example.com`;
  const user = await users.createWithPassword(accountId, { email, role }, PASSWORD);
  let secret = '';
  if (options.totp) {
    secret = (await users.beginTotpEnrolment(user.id)).secret;
    await users.confirmTotpEnrolment(user.id, codeFor(gateway, secret));
    gateway.clock.advance(30_000); // a code is good once: the sign-in uses the next one
  }
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await page.goto(`${gateway.url}/dashboard/entrar`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Senha').fill(PASSWORD);
  await page.getByRole('button', { name: 'Entrar' }).click();
  if (options.totp) {
    await page.getByLabel('Código').fill(codeFor(gateway, secret));
    await page.getByRole('button', { name: 'Confirmar' }).click();
  }
  await page.waitForURL(`${gateway.url}/dashboard`);
  return { page, secret, userId: user.id, email };
}

/** The next code of the authenticator: the clock moves 30 s first, since each code is good once. */
export function nextCode(gateway: Gateway, secret: string): string {
  gateway.clock.advance(30_000);
  return codeFor(gateway, secret);
}

/** A POST from the signed-in browser with the page's valid CSRF token: what a hand-made form would send. */
export async function postFromPage(gateway: Gateway, page: Page, path: string, form: Record<string, string> = {}) {
  const token = (await page.locator('input[name="_csrf"]').first().getAttribute('value')) ?? '';
  const response = await page.request.post(`${gateway.url}${path}`, { form: { _csrf: token, ...form }, maxRedirects: 0 });
  return { status: response.status(), text: await response.text() };
}
