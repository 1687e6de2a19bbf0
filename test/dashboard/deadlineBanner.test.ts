import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCharge } from '../helpers/api.js';
import { breakableMoney, expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { signedInPage } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant, NO_CHARGE_FEES } from '../helpers/gateway.js';

/**
 * The MED deadline banner (DESIGN.md §19) in a real browser at 390 and 1280 px: absent while the
 * nearest running case's deadline is more than 48 h away; then on every page (Início, Disputas,
 * Cobranças) as a status with the amount, the deadline, the time left and a link to the case; an
 * alert within the last 6 h; another case that close counted; gone once the case is closed or its
 * deadline passed; never on another account's pages. axe on each; screenshots.
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

const MINUTE = 60_000;
const HOUR = 3_600_000;

const brazilianDate = (at: number) =>
  new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' }).format(new Date(at));

/** Moves the clock to `offsetMs` from `at` (Unix ms). */
const moveTo = (at: number, offsetMs: number) => gateway.clock.advance(at + offsetMs - gateway.clock.now().getTime());

/** A paid charge of the merchant with a MED case on it (amount in cents). */
async function caseOf(merchant: Merchant, amountCents: number) {
  const transactionId = await createCharge(gateway, merchant, { amountCents });
  expect((await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey })).status).toBe(200);
  const opened = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud' } });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  return opened.body;
}

const banner = (page: Page) => page.locator('main .banner');

async function visit(page: Page, path: string, heading: string): Promise<void> {
  await page.goto(`${gateway.url}${path}`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
}

describe('the MED deadline banner', () => {
  it('appears within 48 h of the deadline on every page, links to the case, turns into an alert within 6 h, and goes when the case closes', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const other = await gateway.createMerchant(NO_CHARGE_FEES);
    const opened = await caseOf(merchant, 12_345);
    // A second case, opened just after: its deadline is that close too, and the banner counts it.
    const second = await caseOf(merchant, 5_000);
    const deadline = opened.defenseDeadline;
    const count = ' Outra disputa também tem prazo nas próximas 48 horas.';

    // More than 48 h before: no banner.
    moveTo(deadline, -48 * HOUR - 5 * MINUTE);
    let page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await visit(page, '/dashboard', 'Início');
    expect(await banner(page).count()).toBe(0);
    await visit(page, '/dashboard/disputas', 'Disputas');
    expect(await banner(page).count()).toBe(0);
    await page.context().close();

    // 47 h 30 min before: a status on every page.
    moveTo(deadline, -47 * HOUR - 30 * MINUTE);
    page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    const expected = `Prazo de defesa de disputa MED. A disputa de R$ 123,45 aguarda sua defesa; o prazo termina em ${brazilianDate(deadline)} (faltam 47 horas). Ver a disputa${count}`;
    for (const [path, heading] of [
      ['/dashboard', 'Início'],
      ['/dashboard/cobrancas', 'Cobranças'],
      ['/dashboard/disputas', 'Disputas'],
    ] as const) {
      await visit(page, path, heading);
      expect(await page.getByRole('status').filter({ hasText: 'Prazo de defesa' }).textContent(), path).toBe(expected);
      expect(await page.getByRole('alert').count(), path).toBe(0);
    }
    await visit(page, '/dashboard', 'Início');
    expect(await breakableMoney(page)).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, 'prazo-disputa-inicio-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page);
    await screenshot(page, 'prazo-disputa-inicio-1280');
    // The link reaches the case on Disputas, by keyboard too.
    const link = banner(page).getByRole('link', { name: 'Ver a disputa' });
    expect(await link.getAttribute('href')).toBe(`/dashboard/disputas#caso-${opened.infractionId}`);
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${gateway.url}/dashboard/disputas#caso-${opened.infractionId}`);
    await expect.poll(() => page.locator(`#caso-${opened.infractionId}`).isVisible()).toBe(true);
    await expectAccessible(page);
    await page.context().close();

    // Another account sees nothing of it.
    const stranger = await signedInPage(gateway, browser, other.accountId, 'owner', { totp: false });
    expect(await banner(stranger).count()).toBe(0);
    await stranger.context().close();

    // A defense sent: the banner says so.
    moveTo(deadline, -20 * HOUR - 30 * MINUTE);
    page = await signedInPage(gateway, browser, merchant.accountId, 'finance', { totp: false });
    const defended = await gateway.call('POST', `/v1/infractions/${opened.infractionId}/defense`, {
      key: merchant.apiKey,
      body: { text: 'Produto entregue.' },
    });
    expect(defended.status).toBe(200);
    await visit(page, '/dashboard', 'Início');
    expect(await banner(page).textContent()).toBe(
      `Prazo de defesa de disputa MED. A disputa de R$ 123,45 já tem defesa enviada; o prazo termina em ${brazilianDate(deadline)} (faltam 20 horas). Ver a disputa${count}`,
    );
    await page.context().close();

    // Within 6 h of the first deadline: an alert.
    moveTo(deadline, -5 * HOUR - 30 * MINUTE);
    page = await signedInPage(gateway, browser, merchant.accountId, 'finance', { totp: false });
    await visit(page, '/dashboard/disputas', 'Disputas');
    expect(await page.getByRole('alert').textContent()).toBe(
      `Prazo de defesa de disputa MED. A disputa de R$ 123,45 já tem defesa enviada; o prazo termina em ${brazilianDate(deadline)} (faltam 5 horas). Ver a disputa${count}`,
    );
    await expectAccessible(page);
    await screenshot(page, 'prazo-disputa-urgente-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page);
    await screenshot(page, 'prazo-disputa-urgente-1280');

    // The first case closed: the banner shows the second alone; past its deadline, nothing.
    const closed = await gateway.call('POST', `/sandbox/v1/infractions/${opened.infractionId}/close`, { key: merchant.apiKey, body: { outcome: 'rejected' } });
    expect(closed.status).toBe(200);
    await visit(page, '/dashboard', 'Início');
    expect(await banner(page).textContent()).toContain('A disputa de R$ 50,00 aguarda sua defesa');
    expect(await banner(page).textContent()).not.toContain('Outra disputa');
    await page.context().close();
    moveTo(second.defenseDeadline, MINUTE);
    page = await signedInPage(gateway, browser, merchant.accountId, 'finance', { totp: false });
    await visit(page, '/dashboard', 'Início');
    expect(await banner(page).count()).toBe(0);
    await page.context().close();
  });
});
