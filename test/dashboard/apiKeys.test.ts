import type { Browser, Page } from 'playwright-core';
import type { UserRole } from '../../src/platform/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { postFromPage as postWithToken, signedInPage as signIn } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Chaves de API in a real browser: an owner with TOTP creates a key (shown once) and the API
 * accepts it, then revokes it and the API refuses it; the server refuses creation without TOTP and
 * to a viewer, whatever the page shows; a user of another account cannot revoke a key it does not own.
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

const signedInPage = (accountId: string, role: UserRole, options: { totp: boolean }) => signIn(gateway, browser, accountId, role, options);
const postFromPage = (page: Page, path: string) => postWithToken(gateway, page, path);
const balanceWith = (apiKey: string) => fetch(`${gateway.url}/v1/balance`, { headers: { authorization: `Bearer ${apiKey}` } });
describe('Chaves de API', () => {
  it('an owner with TOTP creates a key, shown once, that the API accepts; revoked, the API refuses it', async () => {
    const page = await signedInPage(merchant.accountId, 'owner', { totp: true });
    await (await menuLink(page, 'Chaves de API')).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Chaves de API');
    expect(await page.getByRole('link', { name: '/docs' }).getAttribute('href')).toBe('/docs');
    expect(await page.locator('main code').first().textContent()).toBe('Authorization: Bearer <chave>');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const apiKey = (await page.getByRole('status').locator('code.secret').textContent()) ?? '';
    expect(apiKey).toMatch(/^svck_[0-9a-f]{64}$/);
    await expectAccessible(page);
    await screenshot(page, 'chaves-criada');
    expect((await balanceWith(apiKey)).status).toBe(200);

    // The list read afresh no longer shows the secret.
    await page.goto(`${gateway.url}/dashboard/chaves`);
    expect(await page.locator('code.secret').count()).toBe(0);
    await page.getByRole('button', { name: `Revogar a chave ${apiKey.slice(0, 16)}` }).click();
    await page.waitForURL(`${gateway.url}/dashboard/chaves`);
    await expect.poll(() => page.getByText('Revogada em').count()).toBeGreaterThanOrEqual(1);
    expect((await balanceWith(apiKey)).status).toBe(401);
    await page.context().close();
  });

  it('without TOTP the page says how to enable it, and the server refuses the creation (403)', async () => {
    const page = await signedInPage(merchant.accountId, 'owner', { totp: false });
    await page.goto(`${gateway.url}/dashboard/chaves`);
    expect(await page.getByRole('button', { name: 'Criar chave' }).count()).toBe(0);
    await expect.poll(() => page.getByText('Para criar chaves, ative a verificação em duas etapas').count()).toBe(1);
    const forged = await postFromPage(page, '/dashboard/chaves');
    expect(forged.status).toBe(403);
    expect(forged.text).toContain(messages.totpRequired);
    await page.context().close();
  });

  it('a viewer sees the keys but the server refuses it any change (403)', async () => {
    const owner = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/api-keys`);
    const page = await signedInPage(merchant.accountId, 'viewer', { totp: true });
    await page.goto(`${gateway.url}/dashboard/chaves`);
    expect(await page.getByRole('button', { name: 'Criar chave' }).count()).toBe(0);
    await expect.poll(() => page.getByText(String(owner.body.prefix)).count()).toBe(1);
    await screenshot(page, 'chaves-leitor');
    const create = await postFromPage(page, '/dashboard/chaves');
    expect(create.status).toBe(403);
    expect(create.text).toContain(messages.roleNotAllowed('viewer'));
    const revoke = await postFromPage(page, `/dashboard/chaves/${owner.body.keyId}/revogar`);
    expect(revoke.status).toBe(403);
    expect((await balanceWith(owner.body.apiKey)).status).toBe(200);
    await page.context().close();
  });

  it("another account's owner cannot revoke this account's key (404), nor see it", async () => {
    const mine = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/api-keys`);
    const other = await gateway.createMerchant();
    const page = await signedInPage(other.accountId, 'owner', { totp: true });
    await page.goto(`${gateway.url}/dashboard/chaves`);
    expect(await page.getByText(String(mine.body.prefix)).count()).toBe(0);
    const revoke = await postFromPage(page, `/dashboard/chaves/${mine.body.keyId}/revogar`);
    expect(revoke.status).toBe(404);
    expect(revoke.text).toContain(messages.apiKeyNotFound);
    expect((await balanceWith(mine.body.apiKey)).status).toBe(200);
    await page.context().close();
  });
});
