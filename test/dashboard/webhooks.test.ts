import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { messages } from '../../src/messages.js';
import type { UserRole } from '../../src/platform/schema.js';
import { paidCharge } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { postFromPage as postWithToken, signedInPage as signIn } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * Webhooks in a real browser: an owner with TOTP adds a URL (secret shown once), a payment is
 * delivered and appears in the history with its exact payload and status, a resend re-fires the
 * same event, the secret rotates and the URL is deleted; a viewer and another account are refused
 * by the server.
 */
let gateway: Gateway;
let browser: Browser;
let receiver: Receiver;
let merchant: Merchant;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', WEBHOOK_ALLOW_PRIVATE: 'true', SANDBOX_SETTLE_MS: 'manual' });
  browser = await launchBrowser();
  receiver = await startReceiver();
  merchant = await gateway.createMerchant();
});
afterAll(async () => {
  await browser.close();
  await receiver.close();
  await gateway.close();
});

const signedInPage = (accountId: string, role: UserRole) => signIn(gateway, browser, accountId, role, { totp: true });
const postFromPage = (page: Page, path: string) => postWithToken(gateway, page, path);

describe('Webhooks page', () => {
  it('add a URL, receive a delivery, read it in the history, resend it, rotate the secret, delete the URL', async () => {
    const page = await signedInPage(merchant.accountId, 'owner');
    await (await menuLink(page, 'Webhooks')).click();
    await expect.poll(() => page.getByText('Nenhuma URL cadastrada').count()).toBe(1);
    await expectAccessible(page);
    await page.getByLabel('URL').fill(receiver.url('/painel'));
    await page.getByLabel(/Eventos/).fill('cashin');
    await page.getByRole('button', { name: 'Adicionar URL' }).click();
    const secret = (await page.getByRole('status').locator('code.secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await expect.poll(() => page.getByText('cashin', { exact: true }).count()).toBe(1);

    const transactionId = await paidCharge(gateway, merchant);
    await gateway.services.webhookDispatcher.deliverDue();
    expect(receiver.received).toHaveLength(1);
    const delivered = receiver.received[0]!;
    const now = vi.spyOn(Date, 'now').mockReturnValue(gateway.clock.now().getTime());
    try {
      expect(new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>)).toMatchObject({
        event: 'transaction.paid',
        transactionId,
      });
    } finally {
      now.mockRestore();
    }

    await page.goto(`${gateway.url}/dashboard/webhooks`);
    const entry = page.locator('main details').first();
    await expect.poll(() => entry.locator('summary').textContent()).toMatch(/transaction\.paid · tentativa 1 · HTTP 200 · \d+ ms/);
    await entry.locator('summary').click();
    expect(await entry.locator('pre').textContent()).toBe(delivered.body);
    await expectAccessible(page);
    await screenshot(page, 'webhooks');

    await entry.getByRole('button', { name: 'Reenviar' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.webhookResendQueued);
    await gateway.services.webhookDispatcher.deliverDue();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(delivered.headers['webhook-id']);
    expect(receiver.received[1]!.body).toBe(delivered.body);

    await page.getByRole('button', { name: `Trocar o segredo de ${receiver.url('/painel')}` }).click();
    const rotated = (await page.getByRole('status').locator('code.secret').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    await page.getByRole('button', { name: `Excluir ${receiver.url('/painel')}` }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.webhookEndpointDeleted);
    await expect.poll(() => page.getByText('Nenhuma URL cadastrada').count()).toBe(1);
    await page.context().close();
  });

  it('a URL the API refuses shows the same message (400)', async () => {
    const page = await signedInPage(merchant.accountId, 'developer');
    await page.goto(`${gateway.url}/dashboard/webhooks`);
    await page.getByLabel('URL').fill('ftp://example.com/x');
    await page.getByRole('button', { name: 'Adicionar URL' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.webhookUrlInvalid);
    await page.getByLabel('URL').fill('https://example.com/x');
    await page.getByLabel(/Eventos/).fill('transfer.unknown');
    await page.getByRole('button', { name: 'Adicionar URL' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.webhookEventsInvalid('transfer.unknown'));
    await page.context().close();
  });

  it('a viewer reads but cannot change (403); another account cannot resend, rotate or delete (404)', async () => {
    const endpoint = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints`, { url: receiver.url('/outro') });
    await paidCharge(gateway, merchant);
    await gateway.services.webhookDispatcher.deliverDue();
    const history = await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-deliveries`);
    const deliveryId = String(history.body.attempts[0]!.deliveryId);

    const viewer = await signedInPage(merchant.accountId, 'viewer');
    await viewer.goto(`${gateway.url}/dashboard/webhooks`);
    expect(await viewer.getByRole('button', { name: 'Adicionar URL' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: 'Reenviar' }).count()).toBe(0);
    const refused = await postFromPage(viewer, `/dashboard/webhooks/entregas/${deliveryId}/reenviar`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(messages.roleNotAllowed('viewer'));
    await viewer.context().close();

    const other = await gateway.createMerchant();
    const stranger = await signedInPage(other.accountId, 'owner');
    await stranger.goto(`${gateway.url}/dashboard/webhooks`);
    expect(await stranger.getByText(receiver.url('/outro')).count()).toBe(0);
    for (const [path, message] of [
      [`/dashboard/webhooks/entregas/${deliveryId}/reenviar`, messages.webhookDeliveryNotFound],
      [`/dashboard/webhooks/${endpoint.body.endpointId}/rotacionar`, messages.webhookEndpointNotFound],
      [`/dashboard/webhooks/${endpoint.body.endpointId}/excluir`, messages.webhookEndpointNotFound],
    ] as const) {
      const answer = await postFromPage(stranger, path);
      expect(answer.status, path).toBe(404);
      expect(answer.text).toContain(message);
    }
    expect((await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints/${endpoint.body.endpointId}`)).status).toBe(200);
    await stranger.context().close();
  });
});
