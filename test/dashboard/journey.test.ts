import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { fund } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot, menuLink, openMenu } from '../helpers/browser.js';
import { codeFor, PASSWORD } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * A new merchant's whole way through the dashboard, as a person does it, with only the operator's
 * invitation done outside: invite → password → TOTP enrolment → sign-in with a computed code →
 * an API key used with the API → a webhook URL, a delivery seen and resent → a charge with its QR →
 * a withdrawal with a fresh code → sign-out. Only pages and the merchant API; the state is read
 * back through the API.
 */
let gateway: Gateway;
let browser: Browser;
let receiver: Receiver;
let merchant: Merchant;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', WEBHOOK_ALLOW_PRIVATE: 'true', SANDBOX_SETTLE_MS: 'manual' });
  browser = await launchBrowser();
  receiver = await startReceiver();
  merchant = await gateway.createMerchant({ limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } });
});
afterAll(async () => {
  await browser.close();
  await receiver.close();
  await gateway.close();
});

describe('a new merchant in the dashboard', () => {
  it('invite → password → TOTP → sign-in with a code → key → webhook → charge → withdrawal → sign-out', async () => {
    const email = `dona-${Date.now()}@example.com`;
    const invited = await gateway.admin<{ inviteUrl: string }>('POST', `/admin/v1/accounts/${merchant.accountId}/users`, { email, role: 'owner' });
    expect(invited.status).toBe(201);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const url = (path: string) => `${gateway.url}${path}`;

    // The invitation: a password, then the sign-in page.
    await page.goto(invited.body.inviteUrl.replace('http://localhost', gateway.url));
    await page.getByLabel('Nova senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Definir senha' }).click();
    await page.waitForURL(url('/dashboard/entrar?senha=definida'));
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(url('/dashboard'));

    // TOTP: the secret read from the page, confirmed with the code an authenticator would show.
    await (await menuLink(page, 'Segurança')).click();
    await page.getByRole('button', { name: 'Ativar verificação em duas etapas' }).click();
    const secret = ((await page.locator('code.secret').textContent()) ?? '').trim();
    await page.getByLabel('Código').fill(codeFor(gateway, secret));
    await page.getByRole('button', { name: 'Ativar' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.totpEnrolled);

    // Out and in again, now with the code.
    await openMenu(page);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(url('/dashboard/entrar'));
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(url('/dashboard/entrar/codigo'));
    gateway.clock.advance(30_000);
    await page.getByLabel('Código').fill(codeFor(gateway, secret));
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.waitForURL(url('/dashboard'));

    // An API key, shown once, that the API accepts; its last use appears on the page.
    await (await menuLink(page, 'Chaves de API')).click();
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const apiKey = ((await page.getByRole('status').locator('code.secret').textContent()) ?? '').trim();
    const balance = await gateway.call<{ available: number }>('GET', '/v1/balance', { key: apiKey });
    expect(balance).toMatchObject({ status: 200, body: { available: 0 } });
    await page.reload();
    const keyRow = page.locator('tbody tr', { hasText: apiKey.slice(0, 16) });
    expect(await keyRow.locator('td').nth(2).textContent()).toMatch(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}$/); // its last use
    await expectAccessible(page);

    // A webhook URL; a payment's delivery is in the history and is resent.
    await (await menuLink(page, 'Webhooks')).click();
    await page.getByLabel('URL').fill(receiver.url('/jornada'));
    await page.getByRole('button', { name: 'Adicionar URL' }).click();
    await expect.poll(() => page.getByRole('status').locator('code.secret').count()).toBe(1);
    const paidByApi = await gateway.call<{ transactionId: string }>('POST', '/v1/pix', {
      key: apiKey,
      body: {
        amountCents: 50_000,
        customer: { name: 'Ana', email: 'ana@example.com', phone: '11987654321', document: { number: '52998224725', type: 'cpf' } },
      },
    });
    expect(paidByApi.status).toBe(201);
    expect((await gateway.call('POST', `/sandbox/v1/pix/${paidByApi.body.transactionId}/pay`, { key: apiKey })).status).toBe(200);
    await gateway.services.webhookDispatcher.deliverDue();
    expect(receiver.received.map((request) => JSON.parse(request.body).event)).toEqual(['transaction.paid']);
    await page.reload();
    await page.locator('summary', { hasText: 'transaction.paid' }).click();
    await page.getByRole('button', { name: 'Reenviar' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.webhookResendQueued);
    await gateway.services.webhookDispatcher.deliverDue();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(receiver.received[0]?.headers['webhook-id']);

    // A charge from the form, with its QR image and copy-and-paste code.
    await (await menuLink(page, 'Cobranças')).click();
    await page.getByText('Nova cobrança').click();
    await page.getByLabel('Valor (R$)').fill('25,00');
    await page.getByLabel('Nome do cliente').fill('Bruno Lima');
    await page.getByLabel('E-mail do cliente').fill('bruno@example.com');
    await page.getByLabel('Telefone (DDD + número)').fill('11912345678');
    await page.getByLabel('Documento (CPF ou CNPJ)').fill('111.444.777-35');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    await page.waitForURL(/\/dashboard\/cobrancas\/[0-9a-f-]{36}$/);
    expect(await page.getByRole('img', { name: 'QR Code PIX da cobrança' }).evaluate((element) => Reflect.get(element, 'naturalWidth'))).toBe(256);
    expect((await page.getByLabel('PIX copia e cola').inputValue()).trim()).toMatch(/^000201/);

    // A withdrawal with a fresh code; the balance goes down by the amount and the fee.
    await fund(gateway, merchant, 10_000);
    const before = (await gateway.call<{ available: number }>('GET', '/v1/balance', { key: apiKey })).body.available;
    await (await menuLink(page, 'Saques')).click();
    await page.getByLabel('Valor (R$)').fill('30,00');
    await page.getByLabel('Chave PIX', { exact: true }).fill('52998224725');
    gateway.clock.advance(30_000);
    await page.getByLabel('Código do aplicativo autenticador').fill(codeFor(gateway, secret));
    await page.getByRole('button', { name: 'Sacar' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.withdrawalSent);
    const withdrawals = await gateway.call<{ transactions: { amountCents: number; feeCents: number; status: string }[] }>(
      'GET',
      '/v1/transactions?type=withdrawal',
      { key: apiKey },
    );
    expect(withdrawals.body.transactions).toMatchObject([{ amountCents: 3000, status: 'processing' }]);
    const fee = withdrawals.body.transactions[0]?.feeCents ?? -1;
    expect((await gateway.call<{ available: number }>('GET', '/v1/balance', { key: apiKey })).body.available).toBe(before - 3000 - fee);
    await screenshot(page, 'jornada-saque');

    // Sign-out: the pages ask for the sign-in again.
    await openMenu(page);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(url('/dashboard/entrar'));
    await page.goto(url('/dashboard/saques'));
    expect(page.url()).toBe(url('/dashboard/entrar'));
    await context.close();
  });
});
