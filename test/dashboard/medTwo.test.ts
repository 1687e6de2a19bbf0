import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { createCharge } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { nextCode, signedInUser } from '../helpers/dashboard.js';
import { NO_CHARGE_FEES, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * MED 2.0 as the merchant sees it in a real browser (DESIGN.md §19), at a phone's width and a
 * desktop's: Início tells what running cases still need blocked and what chargebacks left owed;
 * Disputas shows each case's situation, recovery and the amount returned to the victim; the
 * charge's refund form answers the refusal while a case runs.
 */
let gateway: Gateway;
let browser: Browser;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', SANDBOX_SETTLE_MS: 'manual' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const MERCHANT = {
  fees: { ...NO_CHARGE_FEES.fees, withdrawal: { fixedCents: 0, bps: 0, minCents: 0, maxCents: 0 } },
  limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 },
};

async function paidChargeOf(merchant: Merchant, amountCents: number): Promise<string> {
  const transactionId = await createCharge(gateway, merchant, { amountCents });
  expect((await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey })).status).toBe(200);
  return transactionId;
}

describe.each([
  { width: 390, height: 844, name: 'celular' },
  { width: 1280, height: 800, name: 'desktop' },
])('MED 2.0 on the dashboard ($name)', ({ width, height, name }) => {
  it('Início shows what cases still need blocked, then what is owed; Disputas the MED 2.0 fields; refunds wait for the case', async () => {
    const merchant = await gateway.createMerchant(MERCHANT);
    const charge = await paidChargeOf(merchant, 10_000);
    expect((await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 9_000 }) })).status).toBe(201);
    const opened = await gateway.call('POST', `/sandbox/v1/pix/${charge}/infraction`, {
      key: merchant.apiKey,
      body: { reason: 'fraud', amountCents: 6_000, recoveryId: 'REC-2026-77', hop: 2, situation: 'scam' },
    });
    expect(opened.status).toBe(201);

    const user = await signedInUser(gateway, browser, merchant.accountId, 'finance', { totp: true });
    const { page } = user;
    await page.setViewportSize({ width, height });
    await page.goto(`${gateway.url}/dashboard`);
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe('Disputas abertas ainda precisam de R$ 50,00 bloqueados: os próximos créditos ficam bloqueados até completá-los. Ver as disputas');
    expect(await page.getByText('Devido (MED)').count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, `med2-inicio-bloqueio-faltando-${name}`);

    // The charge's refund form: refused while the case runs, with the gateway's message.
    await page.goto(`${gateway.url}/dashboard/cobrancas/${charge}`);
    await page.getByLabel('Valor (R$, vazio = todo o restante)').fill('1,00');
    await page.getByLabel('Código do aplicativo autenticador').fill(nextCode(gateway, user.secret));
    await page.getByLabel('Código do aplicativo autenticador').press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.refundDuringDispute);
    await expectAccessible(page);

    // Closed against the merchant: 60,00 recovered, 10,00 held: 50,00 owed.
    const closed = await gateway.call('POST', `/sandbox/v1/infractions/${opened.body.infractionId}/close`, {
      key: merchant.apiKey,
      body: { outcome: 'accepted' },
    });
    expect(closed.status).toBe(200);
    await page.goto(`${gateway.url}/dashboard`);
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe('Devoluções do MED levaram R$ 50,00 além do seu saldo: os próximos créditos quitam esse valor primeiro. Ver as disputas');
    expect(await page.locator('.card', { hasText: 'Devido (MED)' }).locator('.value').textContent()).toBe('R$ 50,00');
    await expectAccessible(page);
    await screenshot(page, `med2-inicio-devido-${name}`);

    await page.getByRole('link', { name: 'Ver as disputas' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Disputas');
    const card = page.locator(`article[aria-labelledby="caso-${opened.body.infractionId}"]`);
    const field = (term: string) => card.locator(`dt:text-is("${term}") + dd`).textContent();
    expect(await field('Situação')).toBe('Golpe');
    expect(await field('Recuperação')).toBe('REC-2026-77 · 2ª conta no rastreio');
    expect(await field('Devolvido à vítima')).toBe('R$ 60,00');
    await expectAccessible(page);
    await screenshot(page, `med2-disputa-${name}`);

    // The next PIX pays what is owed first: the notice goes.
    await paidChargeOf(merchant, 5_000);
    await page.goto(`${gateway.url}/dashboard`);
    expect(await page.getByText('Devido (MED)').count()).toBe(0);
    expect(await page.getByRole('status').count()).toBe(0);
    await page.context().close();
  });
});
