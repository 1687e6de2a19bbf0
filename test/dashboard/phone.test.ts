import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { createCharge, fund, settleWithdrawal, withdraw } from '../helpers/api.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { expectAccessible, launchBrowser, menuLayout, screenshot } from '../helpers/browser.js';
import { signedInUser } from '../helpers/dashboard.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * DESIGN.md §24, phone first: at 390 px every list is a card per row and every page fits the
 * screen (nothing to scroll sideways), each row's status and main action inside the viewport; the
 * menu folds into one Menu button the keyboard opens. At 1280 px the lists stay tables and the
 * menu shows its groups. Every object has its page: a withdrawal (another account's is not found),
 * a charge with its customer and externalRef.
 */
let gateway: Gateway;
let browser: Browser;
let merchant: Merchant;
let chargeId: string;
let paidWithdrawalId: string;
let failedWithdrawalId: string;
let otherWithdrawalId: string;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
  merchant = await gateway.createMerchant();
  await fund(gateway, merchant, 50_000);
  // A company customer with an alphanumeric CNPJ (IN RFB 2.229/2024), as the API takes it.
  chargeId = await createCharge(gateway, merchant, {
    amountCents: 12_345,
    externalRef: 'pedido-4321',
    customer: {
      name: 'Empresa Cliente LTDA',
      email: 'financeiro@cliente.example',
      phone: '11987654321',
      document: { number: '12.ABC.345/01DE-35', type: 'cnpj' },
    },
  });
  expect((await gateway.call('POST', `/sandbox/v1/pix/${chargeId}/pay`, { key: merchant.apiKey })).status).toBe(200);
  const opened = await gateway.admin('POST', `/admin/v1/transactions/${chargeId}/infractions`, { reason: 'fraud' });
  expect(opened.status).toBe(201);

  const paid = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 2_500, externalRef: 'saque-1' }));
  expect(paid.status).toBe(201);
  paidWithdrawalId = paid.body.transactionId;
  const settled = await settleWithdrawal(gateway, merchant, paidWithdrawalId, { outcome: 'paid' });
  expect(settled.status, JSON.stringify(settled.body)).toBe(200);
  gateway.clock.advance(61_000); // the account's pace of withdrawals (one per second, a few per minute)
  const failed = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_500 }));
  expect(failed.status, JSON.stringify(failed.body)).toBe(201);
  failedWithdrawalId = failed.body.transactionId;
  expect((await settleWithdrawal(gateway, merchant, failedWithdrawalId, { outcome: 'failed' })).status).toBe(200);

  const other = await gateway.createMerchant();
  await fund(gateway, other, 10_000);
  otherWithdrawalId = (await withdraw(gateway, other, withdrawalToHolder({ amountCents: 1_000 }))).body.transactionId;
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const WIDTHS = [390, 1280] as const;

async function atWidth(page: Page, width: 390 | 1280) {
  await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
}

/** The element is showing and lies inside the viewport's width (scrolled to vertically, never sideways). */
async function expectInsideWidth(page: Page, element: Locator, what: string) {
  await element.scrollIntoViewIfNeeded();
  await expect(element.isVisible(), what).resolves.toBe(true);
  const box = await element.boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  expect(box, what).not.toBeNull();
  expect(box!.x, what).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, what).toBeLessThanOrEqual(width);
}

/** How the page's lists show: each table's display (table, or block for cards) and its first cell's label. */
const tableDisplays = (page: Page) =>
  page.evaluate<{ display: string; label: string }[]>(`[...document.querySelectorAll('main table')].map((table) => ({
    display: getComputedStyle(table).display,
    label: getComputedStyle(table.querySelector('tbody td'), '::before').content,
  }))`);

const noSidewaysScroll = (page: Page) => page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');

/**
 * The elements reaching past the screen's right edge (tag, class and text), to name what makes a
 * page scroll sideways; a card list's headers are left out (clipped to 1 px, for screen readers only).
 */
const pastTheEdge = (page: Page) =>
  page.evaluate<string[]>(`[...document.body.querySelectorAll('*')]
    .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5 && element.checkVisibility() && !element.closest('thead'))
    .map((element) => element.tagName.toLowerCase() + '.' + element.className + ' ' + (element.textContent ?? '').trim().slice(0, 40))`);

/** A page to check: where, its status text and its main action. */
type Checked = { name: string; path: () => string; status: (page: Page) => Locator; action: (page: Page) => Locator };

const DASHBOARD_PAGES: Checked[] = [
  {
    name: 'inicio',
    path: () => '/dashboard',
    status: (page) => page.getByRole('region', { name: 'Últimas transações' }).getByText('Pago', { exact: true }).first(),
    action: (page) => page.getByRole('region', { name: 'Últimas transações' }).getByRole('cell').first(),
  },
  {
    name: 'cobrancas',
    path: () => '/dashboard/cobrancas',
    status: (page) => page.getByRole('region', { name: 'Cobranças' }).getByText('Paga', { exact: true }).first(),
    action: (page) => page.getByRole('link', { name: 'Ver a cobrança de R$ 123,45' }),
  },
  {
    name: 'chaves',
    path: () => '/dashboard/chaves',
    status: (page) => page.getByRole('region', { name: 'Chaves da conta' }).getByText('Ativa', { exact: true }).first(),
    action: (page) => page.getByRole('button', { name: /^Revogar a chave/ }).first(),
  },
  {
    name: 'saques',
    path: () => '/dashboard/saques',
    status: (page) => page.getByRole('region', { name: 'Saques' }).getByText('Pago', { exact: true }).first(),
    action: (page) => page.getByRole('link', { name: 'Ver o saque de R$ 25,00' }),
  },
  {
    name: 'transacoes',
    path: () => '/dashboard/transacoes',
    status: (page) => page.getByRole('region', { name: 'Transações' }).getByText('Pago', { exact: true }).first(),
    action: (page) => page.getByRole('link', { name: 'Ver o saque de R$ 25,00' }),
  },
  {
    name: 'cobranca',
    path: () => `/dashboard/cobrancas/${chargeId}`,
    status: (page) => page.locator('dl').getByText('Paga', { exact: true }),
    action: (page) => page.getByRole('button', { name: 'Devolver ao pagador' }),
  },
  {
    name: 'saque',
    path: () => `/dashboard/saques/${paidWithdrawalId}`,
    status: (page) => page.locator('dl').getByText('Pago', { exact: true }),
    action: (page) => page.getByRole('link', { name: 'Voltar aos saques' }),
  },
];

/** The text of a term's definition on an object's page. */
const definition = (page: Page, term: string) => page.locator(`dt:text-is("${term}") + dd`).innerText();

describe('phone first (390 px) and desktop (1280 px)', { timeout: 180_000 }, () => {
  it('the dashboard: no sideways scroll, status and main action inside the screen, lists as cards at 390 px and tables at 1280 px, axe passes', async () => {
    const { page } = await signedInUser(gateway, browser, merchant.accountId, 'owner', { totp: true });
    for (const width of WIDTHS) {
      await atWidth(page, width);
      for (const checked of DASHBOARD_PAGES) {
        const response = await page.goto(`${gateway.url}${checked.path()}`);
        expect(response?.status(), checked.name).toBe(200);
        expect(await pastTheEdge(page), `${checked.name} at ${width}`).toEqual([]);
        expect(await noSidewaysScroll(page), `${checked.name} at ${width}`).toBe(true);
        await expectInsideWidth(page, checked.status(page), `${checked.name}: status at ${width}`);
        await expectInsideWidth(page, checked.action(page), `${checked.name}: main action at ${width}`);
        for (const table of await tableDisplays(page)) {
          if (width === 390) expect(table).toMatchObject({ display: 'block', label: expect.stringMatching(/^"\S/) });
          else expect(table.display).toBe('table');
        }
        expect((await menuLayout(page)).folded).toBe(width === 390);
        await expectAccessible(page);
        await screenshot(page, `celular-${checked.name}-${width}`);
      }
    }
  });

  it('the Menu button: Enter and Space open it at 390 px, showing the groups with the current page marked; Escape folds it; at 1280 px no button, the groups show', async () => {
    const { page } = await signedInUser(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await atWidth(page, 390);
    await page.goto(`${gateway.url}/dashboard/cobrancas/vencimento`);
    const nav = page.getByRole('navigation', { name: 'Principal' });
    const button = nav.getByText('Menu', { exact: true });
    await expect(nav.getByRole('link', { name: 'Saques' }).isVisible()).resolves.toBe(false);
    await button.focus();
    await page.keyboard.press('Enter');
    expect((await menuLayout(page)).groups).toEqual(['Receber', 'Pagar', 'Conta', 'Desenvolvedores']);
    await expect(nav.getByRole('link', { name: 'Saques' }).isVisible()).resolves.toBe(true);
    await expect(nav.getByRole('link', { name: 'Vencimento' }).getAttribute('aria-current')).resolves.toBe('page');
    await expect(nav.getByRole('link', { name: 'Cobranças' }).getAttribute('aria-current')).resolves.toBeNull();
    expect(await noSidewaysScroll(page)).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'celular-menu-aberto-390');
    await page.keyboard.press('Escape');
    expect((await menuLayout(page)).folded).toBe(true);
    expect((await page.locator(':focus').textContent())?.trim()).toBe('Menu');
    await page.keyboard.press('Space');
    expect((await menuLayout(page)).folded).toBe(false);
    await nav.getByRole('link', { name: 'QR estáticos' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/qr-estaticos`);
    expect((await menuLayout(page)).folded).toBe(true);

    await atWidth(page, 1280);
    await page.goto(`${gateway.url}/dashboard/saques/${paidWithdrawalId}`);
    const layout = await menuLayout(page);
    expect(layout).toMatchObject({ folded: false, groups: ['Receber', 'Pagar', 'Conta', 'Desenvolvedores'] });
    await expect(nav.getByText('Menu', { exact: true }).isVisible()).resolves.toBe(false);
    // A withdrawal's page is under Saques: marked as the current section, not as the page itself.
    await expect(nav.getByRole('link', { name: 'Saques' }).getAttribute('aria-current')).resolves.toBe('true');
    for (const [name, path] of [
      ['Vencimento', '/dashboard/cobrancas/vencimento'],
      ['QR estáticos', '/dashboard/qr-estaticos'],
      ['Recorrências', '/dashboard/recorrencias'],
      ['Extratos', '/dashboard/extratos'],
    ] as const) {
      await expect(nav.getByRole('link', { name, exact: true }).getAttribute('href')).resolves.toBe(path);
    }
  });

  it("a withdrawal's page shows its fields; a failed one says why in Portuguese; another account's is the 404 page", async () => {
    const { page } = await signedInUser(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await page.goto(`${gateway.url}/dashboard/saques`);
    await page.getByRole('link', { name: 'Ver o saque de R$ 25,00' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/saques/${paidWithdrawalId}`);
    await expect(page.locator('h1').innerText()).resolves.toBe('Saque de R$ 25,00');
    const withdrawal = (await gateway.call('GET', `/v1/transactions/${paidWithdrawalId}`, { key: merchant.apiKey })).body;
    expect(await definition(page, 'Status')).toBe('Pago');
    expect(await definition(page, 'Valor')).toBe('R$ 25,00');
    expect(await definition(page, 'Tarifa')).toBe('R$ 1,00');
    expect(await definition(page, 'Favorecido')).toBe(`${String(withdrawal.beneficiary?.name)} · CPF ***.982.247-**`);
    expect(await definition(page, 'Destino')).toBe('Conta do titular');
    expect(await definition(page, 'Chave PIX')).toBe('CPF: ***.982.247-**');
    expect(await definition(page, 'Referência externa')).toBe('saque-1');
    expect(await definition(page, 'EndToEndId')).toBe(withdrawal.endToEndId);
    expect(await definition(page, 'Criado em')).toMatch(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}$/);
    expect(await definition(page, 'Pago em')).toMatch(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}$/);
    expect(await page.locator('dt:text-is("Motivo")').count()).toBe(0);
    // The CPF never shows whole.
    expect(await page.locator('body').innerText()).not.toContain('52998224725');

    await page.goto(`${gateway.url}/dashboard/saques/${failedWithdrawalId}`);
    expect(await definition(page, 'Status')).toBe('Falhou');
    expect(await definition(page, 'Motivo')).toBe(messages.withdrawalFailure.failed);
    expect(await definition(page, 'Pago em')).toBe('—');
    expect(await definition(page, 'Titular esperado')).toBe('Maria Responsável · CPF ***.982.247-**');

    // Transações links a withdrawal's row to its page.
    await page.goto(`${gateway.url}/dashboard/transacoes`);
    await page.getByRole('link', { name: 'Ver o saque de R$ 15,00' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/saques/${failedWithdrawalId}`);

    for (const id of [otherWithdrawalId, chargeId, 'nao-e-um-id']) {
      const response = await page.goto(`${gateway.url}/dashboard/saques/${id}`);
      expect(response?.status(), id).toBe(404);
      expect(await page.getByRole('alert').innerText()).toBe(messages.transactionNotFound);
      expect(await page.locator('body').innerText()).not.toContain('R$ 10,00');
    }
  });

  it("a charge's page shows its customer (alphanumeric CNPJ masked as the API masks it), externalRef, fee, net and its dispute", async () => {
    const { page } = await signedInUser(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    await page.goto(`${gateway.url}/dashboard/cobrancas/${chargeId}`);
    expect(await definition(page, 'Cliente')).toBe('Empresa Cliente LTDA');
    expect(await definition(page, 'Documento')).toBe('CNPJ **.ABC.345/01DE-**');
    expect(await definition(page, 'E-mail')).toBe('financeiro@cliente.example');
    expect(await definition(page, 'Referência externa')).toBe('pedido-4321');
    const charge = (await gateway.call('GET', `/v1/transactions/${chargeId}`, { key: merchant.apiKey })).body;
    const brl = (cents: number) => `R$ ${(cents / 100).toFixed(2).replace('.', ',')}`;
    expect(await definition(page, 'Tarifa')).toBe(brl(charge.feeCents));
    expect(await definition(page, 'Líquido')).toBe(brl(charge.netCents));
    const disputes = page.getByRole('region', { name: 'Disputas da cobrança' });
    expect(await disputes.getByRole('cell', { name: 'Aberta', exact: true }).count()).toBe(1);
    await disputes.getByRole('link', { name: /^Ver a disputa aberta em/ }).click();
    expect(page.url()).toMatch(new RegExp(`/dashboard/disputas#caso-`));
  });

  it('a back-office list at 390 and 1280 px: cards then a table, the menu folded then open, axe passes', async () => {
    const { page } = await signedInOperator(gateway, browser, 'admin');
    for (const width of WIDTHS) {
      await atWidth(page, width);
      await page.goto(`${gateway.url}/backoffice/contas`);
      expect(await noSidewaysScroll(page)).toBe(true);
      const accounts = page.getByRole('region', { name: 'Contas' });
      await expectInsideWidth(page, accounts.getByText('Aprovado', { exact: true }).first(), `KYC at ${width}`);
      await expectInsideWidth(page, accounts.getByRole('link').first(), `account link at ${width}`);
      for (const table of await tableDisplays(page)) expect(table.display).toBe(width === 390 ? 'block' : 'table');
      const layout = await menuLayout(page);
      expect(layout.folded).toBe(width === 390);
      if (width === 390) {
        await page.getByRole('navigation', { name: 'Principal' }).getByText('Menu', { exact: true }).focus();
        await page.keyboard.press('Enter');
        await expect(page.getByRole('link', { name: 'Contas' }).getAttribute('aria-current')).resolves.toBe('page');
        await screenshot(page, 'celular-backoffice-menu-390');
        await page.keyboard.press('Escape');
      }
      await expectAccessible(page);
      await screenshot(page, `celular-backoffice-contas-${width}`);
    }
  });
});
