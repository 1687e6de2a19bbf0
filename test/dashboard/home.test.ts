import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCharge, withdraw } from '../helpers/api.js';
import { breakableMoney, expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { signedInPage } from '../helpers/dashboard.js';
import { NO_CHARGE_FEES, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * Início (DESIGN.md §24) in a real browser at 390 and 1280 px: the last 30 days' money as an SVG
 * image with its summary, one pair of bars a day, and the same figures in "Ver como tabela"; what
 * needs attention (a dispute near its defense deadline, a held charge, a failing webhook URL), each
 * linking to its page; an empty state when nothing does. axe on each; screenshots.
 */
let gateway: Gateway;
let browser: Browser;
let receiver: Receiver;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', WEBHOOK_ALLOW_PRIVATE: 'true', SANDBOX_SETTLE_MS: 'manual' });
  browser = await launchBrowser();
  receiver = await startReceiver();
  receiver.answerWith(() => ({ status: 503 }));
});
afterAll(async () => {
  await browser.close();
  await receiver.close();
  await gateway.close();
});

const HOUR = 3_600_000;
const brazilianDate = (at: number) =>
  new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' }).format(new Date(at));
/** DD/MM of an instant in Brazil. */
const dayMonth = (at: number) => new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit' }).format(new Date(at));

async function paid(merchant: Merchant, amountCents: number, body: Record<string, unknown> = {}) {
  const transactionId = await createCharge(gateway, merchant, { amountCents });
  const reply = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey, body });
  expect(reply.status).toBe(200);
  return { transactionId, heldUntil: reply.body.heldUntil ?? 0 };
}

/** The table alternative's row of a day: [DD/MM, received, sent]. */
async function tableRow(page: Page, day: string): Promise<string[]> {
  const row = page.getByRole('region', { name: 'Recebido e enviado por dia' }).locator('tr', { has: page.locator(`td:text-is("${day}")`) });
  return (await row.locator('td').allTextContents()).map((text) => text.trim());
}

describe('Início', () => {
  it('draws 30 days of money with a table alternative, and lists what needs attention with links', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const disputed = await paid(merchant, 12_345);
    const opened = await gateway.call('POST', `/sandbox/v1/pix/${disputed.transactionId}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud' } });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const disputeDay = dayMonth(gateway.clock.now().getTime());
    // 40 h before the defense deadline: days after the case opened.
    gateway.clock.advance(opened.body.defenseDeadline - 40 * HOUR - gateway.clock.now().getTime());
    const endpoint = await gateway.admin<{ endpointId: string }>('POST', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints`, {
      url: receiver.url('/inicio'),
    });
    expect(endpoint.status).toBe(201);
    await paid(merchant, 1_500);
    const held = await paid(merchant, 2_000, { held: true });
    const sent = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 500 }));
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const sentCents = 500 + (sent.body as { feeCents: number }).feeCents;
    await gateway.services.webhookDispatcher.deliverDue();
    const attempts = await gateway.database.db
      .selectFrom('webhookAttempts')
      .select('attemptedAt')
      .where('accountId', '=', merchant.accountId)
      .orderBy('attemptedAt', 'desc')
      .execute();
    expect(attempts.length).toBeGreaterThan(1);
    const today = dayMonth(gateway.clock.now().getTime());
    const brl = (cents: number) => `R$ ${(cents / 100).toLocaleString('pt-BR', { minimumFractionDigits: 2 })}`;

    const page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${gateway.url}/dashboard`);
      const chart = page.getByRole('img', { name: /^Recebido e enviado por dia de \d\d\/\d\d a \d\d\/\d\d: / });
      expect(await chart.getAttribute('aria-label')).toBe(
        `Recebido e enviado por dia de ${dayMonth(gateway.clock.now().getTime() - 29 * 24 * HOUR)} a ${today}: ${brl(12_345 + 3_500)} recebidos e ${brl(sentCents)} enviados no total.`,
      );
      expect(await page.locator('svg[role="img"] g.day').count()).toBe(30);
      expect(await page.locator('svg[role="img"] g.day').last().getAttribute('data-day')).toMatch(/^\d{4}-\d\d-\d\d$/);
      // The table alternative: 30 days, today's and the dispute's day with their amounts.
      await page.getByText('Ver como tabela').click();
      const table = page.getByRole('region', { name: 'Recebido e enviado por dia' });
      expect(await table.locator('tbody tr').count()).toBe(30);
      expect(await tableRow(page, today)).toEqual([today, 'R$ 35,00', brl(sentCents)]);
      expect(await tableRow(page, disputeDay)).toEqual([disputeDay, 'R$ 123,45', 'R$ 0,00']);

      const attention = page.getByRole('region', { name: 'O que precisa de atenção' });
      const items = (await attention.locator('li').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
      expect(items).toEqual([
        `Disputa MED de R$ 123,45 aguarda sua defesa: o prazo termina em ${brazilianDate(opened.body.defenseDeadline)}. Defender a disputa`,
        `R$ 20,00 de uma cobrança retidos pelo PSP (bloqueio cautelar) até ${brazilianDate(held.heldUntil)}. Ver a cobrança retida`,
        `As últimas ${attempts.length} tentativas de entrega a ${receiver.url('/inicio')} falharam (a última em ${brazilianDate(attempts[0]!.attemptedAt.getTime())}). Ver as entregas do webhook`,
      ]);
      expect(await attention.getByRole('link', { name: 'Defender a disputa' }).getAttribute('href')).toBe(
        `/dashboard/disputas#caso-${opened.body.infractionId}`,
      );
      expect(await attention.getByRole('link', { name: 'Ver a cobrança retida' }).getAttribute('href')).toBe(`/dashboard/cobrancas/${held.transactionId}`);
      expect(await attention.getByRole('link', { name: 'Ver as entregas do webhook' }).getAttribute('href')).toBe('/dashboard/webhooks');
      expect(await breakableMoney(page)).toEqual([]);
      const scroll = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(scroll).toBeLessThanOrEqual(width);
      await expectAccessible(page);
      await screenshot(page, `home-${width}`);
    }
    await page.context().close();
  });

  it('says nothing needs attention, and draws 30 empty days, for a new account', async () => {
    const merchant = await gateway.createMerchant();
    const page = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${gateway.url}/dashboard`);
      expect(await page.locator('svg[role="img"] g.day').count()).toBe(30);
      expect(await page.getByText('Nenhum dinheiro recebido ou enviado nos últimos 30 dias.').count()).toBe(1);
      expect(
        await page
          .getByText('Nada precisa de atenção agora: nenhuma disputa perto do prazo de defesa, nenhum dinheiro retido e nenhum webhook falhando.')
          .count(),
      ).toBe(1);
      await expectAccessible(page);
      await screenshot(page, `home-empty-${width}`);
    }
    await page.context().close();
  });
});
