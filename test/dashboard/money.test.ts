import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBrl, messages } from '../../src/messages.js';
import { balanceOf, createCharge, fund, paidCharge, readTransaction, reviewRecipient } from '../helpers/api.js';
import { expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { nextCode, postFromPage, signedInPage, signedInUser } from '../helpers/dashboard.js';
import { NO_CHARGE_FEES, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Money in the dashboard, in a real browser: withdrawals (to the holder and to an approved
 * recipient) need a fresh TOTP code each time and follow the API's rules and messages; recipients
 * are registered for review; charges are filtered, cancelled and refunded (a refund needs a code
 * too). Roles are enforced by the server and another account's ids are not found.
 */
let gateway: Gateway;
let browser: Browser;

const RELAXED = { limits: { withdrawPerSecond: 1000, withdrawPerMinute: 1000, withdrawPerHour: 1000 } };
/** The account's responsible person: a key of the holder (Mode 1). */
const HOLDER_CPF = '52998224725';
/** A third party's CPF (a recipient). */
const THIRD_PARTY_CPF = '11144477735';

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', SANDBOX_SETTLE_MS: 'manual' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

async function fundedMerchant(cents: number): Promise<Merchant> {
  const merchant = await gateway.createMerchant({ ...RELAXED, ...NO_CHARGE_FEES });
  if (cents > 0) await fund(gateway, merchant, cents);
  return merchant;
}

const withdrawalsOf = async (merchant: Merchant) =>
  (await gateway.call<{ transactions: { amountCents: number; status: string }[] }>('GET', '/v1/transactions?type=withdrawal', { key: merchant.apiKey })).body
    .transactions;

async function fillWithdrawal(page: Page, values: { amount: string; key?: string; keyType?: string; destination?: string; code: string }) {
  await page.getByLabel('Valor (R$)').fill(values.amount);
  if (values.destination) await page.getByLabel('Destino').selectOption({ label: values.destination });
  await page.getByLabel('Tipo da chave PIX').selectOption(values.keyType ?? 'cpf');
  await page.getByLabel('Chave PIX', { exact: true }).fill(values.key ?? HOLDER_CPF);
  await page.getByLabel('Código do aplicativo autenticador').fill(values.code);
  await page.getByRole('button', { name: 'Sacar' }).click();
}

describe('Saques', () => {
  it('a withdrawal to the holder with a fresh code: debited, listed; the same code again is refused and withdraws nothing', async () => {
    const merchant = await fundedMerchant(50_000);
    const user = await signedInUser(gateway, browser, merchant.accountId, 'finance', { totp: true });
    const { page } = user;
    await (await menuLink(page, 'Saques')).click();
    expect(await page.getByText('Saldo sacável:').textContent()).toBe('Saldo sacável: R$ 500,00');
    await expect.poll(() => page.getByText('Nenhum saque ainda.').count()).toBe(1);
    await expectAccessible(page);

    const code = nextCode(gateway, user.secret);
    await fillWithdrawal(page, { amount: '100,00', code });
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.withdrawalSent);
    const [withdrawal] = await withdrawalsOf(merchant);
    expect(withdrawal).toMatchObject({ amountCents: 10_000, status: 'processing' });
    const afterFirst = await balanceOf(gateway, merchant);
    expect(afterFirst).toBeLessThanOrEqual(40_000); // the amount and the withdrawal fee left
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr td').nth(1).textContent()).toBe('R$ 100,00');
    expect(await page.locator('tbody tr td').nth(3).textContent()).toBe('Em processamento');
    await expectAccessible(page);
    await screenshot(page, 'saques');

    await fillWithdrawal(page, { amount: '100,00', code });
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.totpCodeReused);
    expect(await withdrawalsOf(merchant)).toHaveLength(1);
    expect(await balanceOf(gateway, merchant)).toBe(afterFirst);
    expect(await page.getByLabel('Valor (R$)').inputValue()).toBe('100,00');
    await page.context().close();
  });

  it("a refusal of the API's rules shows its message and keeps the code unused; a wrong code withdraws nothing", async () => {
    const merchant = await fundedMerchant(1_000);
    const user = await signedInUser(gateway, browser, merchant.accountId, 'owner', { totp: true });
    const { page } = user;
    await page.goto(`${gateway.url}/dashboard/saques`);
    const code = nextCode(gateway, user.secret);

    await fillWithdrawal(page, { amount: '0,50', code });
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.withdrawalAmountInvalid);
    await fillWithdrawal(page, { amount: '5,00', key: 'nao-e-email', keyType: 'email', code });
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.pixKeyNotEmail);
    await fillWithdrawal(page, { amount: '5,00', code: '000000' === code ? '111111' : '000000' });
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.totpCodeInvalid);
    await fillWithdrawal(page, { amount: '50,00', code });
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.insufficientBalance);
    expect(await withdrawalsOf(merchant)).toEqual([]);
    expect(await balanceOf(gateway, merchant)).toBe(1_000);
    await page.context().close();
  });

  it('without TOTP the page says how to enable it and the server refuses (403); viewer and developer are refused by role', async () => {
    const merchant = await fundedMerchant(10_000);
    const withoutTotp = await signedInPage(gateway, browser, merchant.accountId, 'owner', { totp: false });
    await withoutTotp.goto(`${gateway.url}/dashboard/saques`);
    expect(await withoutTotp.getByRole('button', { name: 'Sacar' }).count()).toBe(0);
    await menuLink(withoutTotp, 'Segurança'); // the menu open: its link and the page's
    expect(await withoutTotp.getByRole('link', { name: 'Segurança' }).count()).toBe(2);
    const form = { amount: '10,00', recipientId: '', pixKeyType: 'cpf', pixKey: HOLDER_CPF, description: '', code: '123456' };
    const forged = await postFromPage(gateway, withoutTotp, '/dashboard/saques', form);
    expect(forged.status).toBe(403);
    expect(forged.text).toContain(messages.totpRequired);
    await withoutTotp.context().close();

    for (const role of ['viewer', 'developer'] as const) {
      const page = await signedInPage(gateway, browser, merchant.accountId, role, { totp: true });
      await page.goto(`${gateway.url}/dashboard/saques`);
      expect(await page.getByRole('button', { name: 'Sacar' }).count()).toBe(0);
      const refused = await postFromPage(gateway, page, '/dashboard/saques', form);
      expect(refused.status, role).toBe(403);
      expect(refused.text).toContain(messages.roleNotAllowed(role));
      await page.context().close();
    }
    expect(await withdrawalsOf(merchant)).toEqual([]);
  });

  it('filters by status and creation day; a filter the list does not know is a 400 with its message', async () => {
    const merchant = await fundedMerchant(50_000);
    const user = await signedInUser(gateway, browser, merchant.accountId, 'finance', { totp: true });
    const { page } = user;
    await page.goto(`${gateway.url}/dashboard/saques`);
    await fillWithdrawal(page, { amount: '10,00', code: nextCode(gateway, user.secret) });
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.withdrawalSent);

    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(gateway.clock.now());
    const tomorrow = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date(gateway.clock.now().getTime() + 86_400_000));
    await page.getByLabel('Status').selectOption({ label: 'Em processamento' });
    await page.getByLabel('De', { exact: true }).fill(today);
    await page.getByLabel('Até', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/status=processing/);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.goto(`${gateway.url}/dashboard/saques?status=paid`);
    expect(await page.getByText('Nenhum saque com estes filtros.').count()).toBe(1);
    await page.goto(`${gateway.url}/dashboard/saques?de=${tomorrow}`);
    expect(await page.getByText('Nenhum saque com estes filtros.').count()).toBe(1);

    for (const [query, message] of [
      ['status=pago', messages.filterStatusInvalid],
      ['de=2026-02-30', messages.filterDateInvalid],
      ['ate=ontem', messages.filterDateInvalid],
    ]) {
      const response = await page.goto(`${gateway.url}/dashboard/saques?${query}`);
      expect(response?.status(), query).toBe(400);
      expect(await page.getByRole('alert').textContent()).toBe(message);
    }
    await page.context().close();
  });
});

describe('Destinatários', () => {
  it('registered for review, approved by the operator, then chosen as the destination of a withdrawal', async () => {
    const merchant = await fundedMerchant(50_000);
    const user = await signedInUser(gateway, browser, merchant.accountId, 'finance', { totp: true });
    const { page } = user;
    await (await menuLink(page, 'Destinatários')).click();
    await expect.poll(() => page.getByText('Nenhum destinatário.', { exact: false }).count()).toBe(1);
    // With no recipient yet, the form is open.
    await expect(page.getByLabel('Nome ou razão social').isVisible()).resolves.toBe(true);
    await page.getByLabel('Nome ou razão social').fill('Fornecedora Silva ME');
    await page.getByLabel('Documento (CPF ou CNPJ)').fill('111.444.777-35');
    await page.getByLabel('Tipo da chave PIX').selectOption('cpf');
    await page.getByLabel('Chave PIX', { exact: true }).fill('111.444.777-35');
    await page.getByLabel('Apelido (opcional)').fill('Fornecedora');
    await page.getByRole('button', { name: 'Enviar para análise' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.recipientPendingNote('SVC'));
    expect(await page.locator('tbody tr td').first().textContent()).toBe('Fornecedora (Fornecedora Silva ME)');
    expect(await page.locator('tbody tr td').nth(1).textContent()).toBe('***.444.777-**');
    expect(await page.locator('tbody tr td').nth(3).textContent()).toBe('Em análise');
    await expectAccessible(page);
    await screenshot(page, 'destinatarios');

    const pending = await gateway.admin<{ recipients: { recipientId: string }[] }>('GET', `/admin/v1/recipients?accountId=${merchant.accountId}`);
    const recipientId = pending.body.recipients[0]?.recipientId ?? '';
    expect((await reviewRecipient(gateway, merchant, recipientId, 'approve', { label: 'Fornecedora' })).status).toBe(200);
    await page.reload();
    expect(await page.locator('tbody tr td').nth(3).textContent()).toBe('Aprovado');

    await (await menuLink(page, 'Saques')).click();
    await fillWithdrawal(page, { amount: '20,00', destination: 'Fornecedora · ***.444.777-**', key: THIRD_PARTY_CPF, code: nextCode(gateway, user.secret) });
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.withdrawalSent);
    const withdrawals = await gateway.database.db
      .selectFrom('transactions')
      .select(['recipientId', 'amountCents'])
      .where('accountId', '=', merchant.accountId)
      .where('type', '=', 'withdrawal')
      .execute();
    expect(withdrawals).toEqual([{ recipientId, amountCents: 2000 }]);
    await page.context().close();
  });

  it("the API's message for a bad document (400), the form kept; a viewer is refused (403)", async () => {
    const merchant = await fundedMerchant(0);
    const page = await signedInPage(gateway, browser, merchant.accountId, 'owner', { totp: false });
    await page.goto(`${gateway.url}/dashboard/destinatarios`);
    // With no recipient yet, the form is open.
    await expect(page.getByLabel('Nome ou razão social').isVisible()).resolves.toBe(true);
    await page.getByLabel('Nome ou razão social').fill('Fornecedora Silva ME');
    await page.getByLabel('Documento (CPF ou CNPJ)').fill('111.444.777-00');
    await page.getByLabel('Chave PIX', { exact: true }).fill('111.444.777-00');
    await page.getByRole('button', { name: 'Enviar para análise' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.recipientDocumentCheckDigits('cpf'));
    expect(await page.getByLabel('Nome ou razão social').inputValue()).toBe('Fornecedora Silva ME');
    await page.context().close();

    const viewer = await signedInPage(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await viewer.goto(`${gateway.url}/dashboard/destinatarios`);
    expect(await viewer.getByText('Novo destinatário').count()).toBe(0);
    const refused = await postFromPage(gateway, viewer, '/dashboard/destinatarios', {
      legalName: 'X Ltda',
      document: THIRD_PARTY_CPF,
      documentType: 'cpf',
      pixKeyType: 'cpf',
      pixKey: THIRD_PARTY_CPF,
      label: '',
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(messages.roleNotAllowed('viewer'));
    expect((await gateway.admin('GET', `/admin/v1/recipients?accountId=${merchant.accountId}`)).body.count).toBe(0);
    await viewer.context().close();
  });
});

describe('Destinatários: a company with an alphanumeric CNPJ', () => {
  it('typed in lower case with punctuation: kept normalised, shown masked, a withdrawal to its key; a wrong check digit shows the message', async () => {
    const merchant = await fundedMerchant(50_000);
    const user = await signedInUser(gateway, browser, merchant.accountId, 'finance', { totp: true });
    const { page } = user;
    await (await menuLink(page, 'Destinatários')).click();
    await page.getByLabel('Nome ou razão social').fill('Empresa Nova LTDA');
    await page.getByLabel('Documento (CPF ou CNPJ)').fill('12.abc.345/01de-36');
    await page.getByLabel('Tipo do documento').selectOption('cnpj');
    await page.getByLabel('Tipo da chave PIX').selectOption('cnpj');
    await page.getByLabel('Chave PIX', { exact: true }).fill('12.abc.345/01de-36');
    await page.getByRole('button', { name: 'Enviar para análise' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.recipientDocumentCheckDigits('cnpj'));

    await page.getByLabel('Documento (CPF ou CNPJ)').fill('12.abc.345/01de-35');
    await page.getByLabel('Chave PIX', { exact: true }).fill('12.abc.345/01de-35');
    await page.getByRole('button', { name: 'Enviar para análise' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.recipientPendingNote('SVC'));
    expect(await page.locator('tbody tr td').nth(1).textContent()).toBe('**.ABC.345/01DE-**');
    expect(await page.content()).not.toContain('12ABC34501DE35');
    await expectAccessible(page);
    await screenshot(page, 'destinatarios-cnpj-alfanumerico');

    const pending = await gateway.admin<{ recipients: { recipientId: string; document: string; pixKey: string }[] }>(
      'GET',
      `/admin/v1/recipients?accountId=${merchant.accountId}`,
    );
    expect(pending.body.recipients).toEqual([expect.objectContaining({ document: '12ABC34501DE35', pixKey: '12ABC34501DE35' })]);
    const recipientId = pending.body.recipients[0]?.recipientId ?? '';
    expect((await reviewRecipient(gateway, merchant, recipientId, 'approve')).status).toBe(200);
    await (await menuLink(page, 'Saques')).click();
    await fillWithdrawal(page, {
      amount: '20,00',
      destination: 'Empresa Nova LTDA · **.ABC.345/01DE-**',
      keyType: 'cnpj',
      key: '12abc34501de35',
      code: nextCode(gateway, user.secret),
    });
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.withdrawalSent);
    const withdrawal = await gateway.database.db
      .selectFrom('transactions')
      .select(['recipientId', 'amountCents', 'feeCents'])
      .where('accountId', '=', merchant.accountId)
      .where('type', '=', 'withdrawal')
      .executeTakeFirstOrThrow();
    expect(withdrawal).toMatchObject({ recipientId, amountCents: 2_000 });
    expect(await balanceOf(gateway, merchant)).toBe(50_000 - 2_000 - Number(withdrawal.feeCents));
    await page.context().close();
  });
});

describe('Cobranças: filters, cancel and refund', () => {
  it('cancels a pending charge; a second cancel shows the API message (422); the list filters by status', async () => {
    const merchant = await fundedMerchant(0);
    const pending = await createCharge(gateway, merchant);
    const paid = await paidCharge(gateway, merchant);
    const page = await signedInPage(gateway, browser, merchant.accountId, 'finance', { totp: false });
    await page.goto(`${gateway.url}/dashboard/cobrancas?status=paid`);
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr a').getAttribute('href')).toBe(`/dashboard/cobrancas/${paid}`);
    expect(await page.locator('tbody tr td').nth(2).textContent()).toBe('Paga');

    await page.goto(`${gateway.url}/dashboard/cobrancas/${pending}`);
    expect(await page.getByText('Aguardando pagamento').count()).toBe(1);
    // The button's explanation says what cancelling does, not a status the pending charge does not have.
    expect(await page.getByText('Cancelar: a cobrança deixará de aceitar pagamento; um PIX que chegar depois será devolvido ao pagador.').count()).toBe(1);
    expect(await page.getByText(/^Cancelada,/).count()).toBe(0);
    await page.getByRole('button', { name: 'Cancelar cobrança' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.chargeCancelled);
    expect(await readTransaction(gateway, merchant, pending)).toMatchObject({ status: 'cancelled' });
    expect(await page.getByRole('button', { name: 'Cancelar cobrança' }).count()).toBe(0);
    expect(await page.getByRole('img', { name: 'QR Code PIX da cobrança' }).count()).toBe(0);
    const again = await postFromPage(gateway, page, `/dashboard/cobrancas/${pending}/cancelar`);
    expect(again.status).toBe(422);
    expect(again.text).toContain(messages.chargeNotCancellable('cancelled'));
    await page.context().close();
  });

  it('refunds part of a paid charge with a fresh code: debited, listed on the charge; the code is good once', async () => {
    const merchant = await fundedMerchant(0);
    const paid = await paidCharge(gateway, merchant);
    const user = await signedInUser(gateway, browser, merchant.accountId, 'finance', { totp: true });
    const { page } = user;
    await page.goto(`${gateway.url}/dashboard/cobrancas/${paid}`);
    expect(
      await page
        .getByText('Nenhuma devolução. Para devolver todo o valor ou parte dele ao pagador, use Devolver acima (até 90 dias após o pagamento).')
        .count(),
    ).toBe(1);
    // The amount field's example is what this charge can still give back, whole (no fixed "15,00").
    const { amountCents } = await readTransaction(gateway, merchant, paid);
    const remainderExample = (cents: number) => `${formatBrl(cents).replace(/^R\$\s/, '')} (todo o restante)`;
    expect(await page.getByLabel('Valor (R$, vazio = todo o restante)').getAttribute('placeholder')).toBe(remainderExample(amountCents));
    const code = nextCode(gateway, user.secret);
    await page.getByLabel('Valor (R$, vazio = todo o restante)').fill('3,00');
    await page.getByLabel('Motivo (opcional)').fill('produto devolvido');
    await page.getByLabel('Código do aplicativo autenticador').fill(code);
    await page.getByRole('button', { name: 'Devolver ao pagador' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.refundRequested);
    const refunds = await gateway.call<{ refunds: { amountCents: number; reason: string; kind: string }[] }>('GET', `/v1/transactions/${paid}/refunds`, {
      key: merchant.apiKey,
    });
    expect(refunds.body.refunds).toMatchObject([{ amountCents: 300, reason: 'produto devolvido', kind: 'merchant' }]);
    expect(await balanceOf(gateway, merchant)).toBe(700);
    const row = page.locator('tbody tr').first();
    expect(await row.locator('td').nth(2).textContent()).toBe('R$ 3,00');
    expect(await row.locator('td').nth(4).textContent()).toBe('produto devolvido');
    expect(await page.getByLabel('Valor (R$, vazio = todo o restante)').getAttribute('placeholder')).toBe(remainderExample(amountCents - 300));
    await expectAccessible(page);
    await screenshot(page, 'cobranca-devolucao');

    await page.getByLabel('Valor (R$, vazio = todo o restante)').fill('1,00');
    await page.getByLabel('Código do aplicativo autenticador').fill(code);
    await page.getByRole('button', { name: 'Devolver ao pagador' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.totpCodeReused);
    await page.getByLabel('Valor (R$, vazio = todo o restante)').fill('8,00');
    await page.getByLabel('Código do aplicativo autenticador').fill(nextCode(gateway, user.secret));
    await page.getByRole('button', { name: 'Devolver ao pagador' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.refundAboveRemainder(700));
    expect(await balanceOf(gateway, merchant)).toBe(700);
    await page.context().close();
  });

  it('a developer cannot refund nor cancel (403); another account cannot touch the charge (404)', async () => {
    const merchant = await fundedMerchant(0);
    const paid = await paidCharge(gateway, merchant);
    const pending = await createCharge(gateway, merchant);
    const developer = await signedInPage(gateway, browser, merchant.accountId, 'developer', { totp: true });
    await developer.goto(`${gateway.url}/dashboard/cobrancas/${paid}`);
    expect(await developer.getByRole('button', { name: 'Devolver ao pagador' }).count()).toBe(0);
    const refund = await postFromPage(gateway, developer, `/dashboard/cobrancas/${paid}/devolver`, { amount: '1,00', reason: '', code: '123456' });
    expect(refund.status).toBe(403);
    expect(refund.text).toContain(messages.roleNotAllowed('developer'));
    const cancel = await postFromPage(gateway, developer, `/dashboard/cobrancas/${pending}/cancelar`);
    expect(cancel.status).toBe(403);
    await developer.context().close();

    const other = await gateway.createMerchant();
    const stranger = await signedInPage(gateway, browser, other.accountId, 'owner', { totp: true });
    await stranger.goto(`${gateway.url}/dashboard/cobrancas`);
    for (const path of [`/dashboard/cobrancas/${paid}/devolver`, `/dashboard/cobrancas/${pending}/cancelar`]) {
      const refused = await postFromPage(gateway, stranger, path, { amount: '1,00', reason: '', code: '123456' });
      expect(refused.status, path).toBe(404);
      expect(refused.text).toContain(messages.transactionNotFound);
    }
    expect(await readTransaction(gateway, merchant, pending)).toMatchObject({ status: 'pending' });
    expect(await balanceOf(gateway, merchant)).toBe(1000);
    await stranger.context().close();
  });
});
