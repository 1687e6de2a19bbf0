import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCharge, registerEndpoint } from '../helpers/api.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';

/**
 * An account's webhook deliveries on its back-office page: each attempt's own result (delivered,
 * failed with its HTTP status, a retry scheduled) and its error, never a charge's status; a resend
 * through the operator API is in the account's audit log.
 */
let gateway: Gateway;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', WEBHOOK_ALLOW_PRIVATE: 'true', SANDBOX_SETTLE_MS: 'manual' });
  browser = await launchBrowser();
  receiver = await startReceiver();
  receiver.answerWith((request) => ({ status: request.path === '/ok' ? 200 : request.path === '/gone' ? 410 : 500 }));
});
afterAll(async () => {
  await browser.close();
  await receiver.close();
  await gateway.close();
});

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The Resultado cell of the delivery to `url`. */
async function resultOf(page: Page, url: string): Promise<string> {
  const row = page.getByRole('region', { name: 'Entregas de webhook' }).getByRole('row').filter({ hasText: url });
  return normalized(await row.getByRole('cell').nth(3).innerText());
}

describe('webhook deliveries on the account page', { timeout: 120_000 }, () => {
  it("show each attempt's result and error, in Portuguese; a resend by the operator API is audited with its account", async () => {
    const merchant = await gateway.createMerchant();
    const urls = { ok: receiver.url('/ok'), gone: receiver.url('/gone'), error: receiver.url('/erro'), refused: 'http://127.0.0.1:1/fechado' };
    for (const url of Object.values(urls)) await registerEndpoint(gateway, merchant, { url, events: ['transaction.paid'] });
    const chargeId = await createCharge(gateway, merchant, { amountCents: 1_000 });
    expect((await gateway.call('POST', `/sandbox/v1/pix/${chargeId}/pay`, { key: merchant.apiKey })).status).toBe(200);
    await gateway.services.webhookDispatcher.deliverDue();

    const { page } = await signedInOperator(gateway, browser, 'admin');
    for (const width of [1280, 390] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${gateway.url}/backoffice/contas/${merchant.accountId}`);
      expect(await resultOf(page, urls.ok)).toBe('Entregue (HTTP 200)');
      expect(await resultOf(page, urls.gone)).toBe('Falhou (HTTP 410)');
      expect(await resultOf(page, urls.error)).toBe('Falhou (HTTP 500); nova tentativa agendada');
      expect(await resultOf(page, urls.refused)).toBe('Falhou (sem resposta); nova tentativa agendada network error: ECONNREFUSED');
      const html = await page.content();
      expect(html).not.toContain('Aguardando pagamento');
      await expectAccessible(page);
      await screenshot(page, `backoffice-conta-webhooks-${width}`);
    }

    // The resend through the operator API: the audit log has it under the account (the API's filter and the page's).
    const { attempts } = (await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-deliveries`)).body as {
      attempts: { deliveryId: string; url: string }[];
    };
    const failed = attempts.find((attempt) => attempt.url === urls.gone);
    expect((await gateway.admin('POST', `/admin/v1/webhook-deliveries/${failed?.deliveryId}/resend`)).status).toBe(202);
    const entries = (await gateway.admin('GET', `/admin/v1/audit?accountId=${merchant.accountId}`)).body.entries as {
      action: string;
      accountId: string;
      objectId: string;
    }[];
    expect(entries[0]).toMatchObject({
      action: 'POST /admin/v1/webhook-deliveries/:deliveryId/resend',
      accountId: merchant.accountId,
      objectId: failed?.deliveryId,
    });
    await page.goto(`${gateway.url}/backoffice/auditoria?conta=${merchant.accountId}`);
    await expect(page.getByRole('region', { name: 'Registro de auditoria' }).getByText('Webhook reenviado').count()).resolves.toBe(1);
    await page.context().close();
  });
});
