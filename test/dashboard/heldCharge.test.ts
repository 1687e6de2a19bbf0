import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDate } from '../../src/pages/components.js';
import { createCharge } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { signedInPage } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * A PIX the PSP held (cautionary block, docs/refunds.md) in a real browser: the charge's page says
 * "Retida até <date>" and offers no refund, Início shows the held part of Bloqueado; once
 * released, the page says so and the refund form is back. Axe and screenshots at 390 and 1280 px.
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

describe('a held charge in the dashboard', () => {
  it('the charge page says Retida até <date> with no refund form, Início the held amount; after the release, Liberada and the form', async () => {
    const id = await createCharge(gateway, merchant, { amountCents: 123_456 });
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey, body: { held: true } });
    expect(paid.status).toBe(200);
    const until = formatDate(paid.body.heldUntil ?? 0);
    const page = await signedInPage(gateway, browser, merchant.accountId, 'owner', { totp: true });

    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${gateway.url}/dashboard/cobrancas/${id}`);
      await expect.poll(() => page.locator('dt', { hasText: 'Bloqueio cautelar' }).locator('+ dd').textContent()).toBe(`Retida até ${until}`);
      expect(await page.getByText('não pode ser sacado nem devolvido até o PSP liberá-lo').count()).toBe(1);
      expect(await page.getByRole('heading', { name: 'Devolver' }).count()).toBe(0);
      expect(await page.getByText('Nenhuma devolução. Retida pelo PSP: pode ser devolvida depois da liberação.').count()).toBe(1);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      await expectAccessible(page);
      await screenshot(page, `cobranca-retida-${width}`);

      await page.goto(`${gateway.url}/dashboard`);
      const blocked = page.locator('.card', { hasText: 'Bloqueado' });
      await expect.poll(() => blocked.locator('.value').textContent()).toBe('R$ 1.222,34');
      expect((await blocked.locator('.muted').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
        'dos quais R$ 1.222,34 retidos pelo PSP (bloqueio cautelar, até 72 h)',
      );
      expect(await page.locator('.card', { hasText: 'Sacável' }).locator('.value').textContent()).toBe('R$ 0,00');
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      await expectAccessible(page);
      await screenshot(page, `inicio-retido-${width}`);
    }

    expect((await gateway.call('POST', `/sandbox/v1/pix/${id}/hold/release`, { key: merchant.apiKey })).status).toBe(200);
    await page.goto(`${gateway.url}/dashboard/cobrancas/${id}`);
    await expect.poll(() => page.locator('dt', { hasText: 'Bloqueio cautelar' }).locator('+ dd').textContent()).toBe('Liberada pelo PSP');
    expect(await page.getByRole('heading', { name: 'Devolver' }).count()).toBe(1);
    await page.goto(`${gateway.url}/dashboard`);
    expect(await page.locator('.card', { hasText: 'Bloqueado' }).locator('.muted').count()).toBe(0);
    await expectAccessible(page);
    await page.context().close();
  });

  it('a held charge returned by the PSP: Devolvida ao pagador pelo PSP, its return listed', async () => {
    const id = await createCharge(gateway, merchant);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey, body: { held: true } })).status).toBe(200);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${id}/hold/return`, { key: merchant.apiKey })).status).toBe(200);
    const page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${gateway.url}/dashboard/cobrancas/${id}`);
    await expect.poll(() => page.locator('dt', { hasText: 'Bloqueio cautelar' }).locator('+ dd').textContent()).toBe('Devolvida ao pagador pelo PSP');
    expect(await page.getByRole('region', { name: 'Devoluções da cobrança' }).locator('tbody tr td').nth(1).textContent()).toBe(
      'Devolvido pelo PSP (bloqueio cautelar)',
    );
    await expectAccessible(page);
    await screenshot(page, 'cobranca-retida-devolvida-1280');
    await page.context().close();
  });
});
