import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCharge, fund, paidCharge, registerRecipient, withdraw } from '../helpers/api.js';
import { breakableMoney, expectAccessible, launchBrowser, menuLayout, screenshot, tableRegions } from '../helpers/browser.js';
import { signedInUser } from '../helpers/dashboard.js';
import { startGateway, withdrawalToHolder, type Gateway } from '../helpers/gateway.js';

/**
 * Every dashboard page at a phone's width (390 px) and a laptop's (1280 px), in a real browser: the
 * menu on one line at 1280 and wrapping inside the screen at 390, in tab order; each empty list of
 * a new account saying what to do next; tables that fit or scroll inside a named region the
 * keyboard reaches and scrolls; amounts that never break between "R$" and the number.
 */
let gateway: Gateway;
let browser: Browser;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

/** The menu's links in order (DESIGN.md §24), by group; the groups' titles show above theirs. */
const MENU = [
  'Início',
  'Cobranças',
  'Vencimento',
  'QR estáticos',
  'Recorrências',
  'Saques',
  'Destinatários',
  'Transações',
  'Extratos',
  'Disputas',
  'Chaves de API',
  'Webhooks',
  'Equipe',
  'Segurança',
  'Sair',
];
const GROUPS = ['Receber', 'Pagar', 'Conta', 'Desenvolvedores'];

/** The pages of the menu, with the empty states a new account's owner (with TOTP) reads there, exactly. */
const EMPTY_PAGES: { path: string; name: string; empty: string[] }[] = [
  { path: '/dashboard', name: 'inicio', empty: ['Nenhuma transação ainda. Crie uma cobrança ou use a API (POST /v1/pix) e ela aparece aqui.'] },
  {
    path: '/dashboard/cobrancas',
    name: 'cobrancas',
    empty: ['Nenhuma cobrança ainda. Crie a primeira em Nova cobrança ou pela API (POST /v1/pix, veja a referência).'],
  },
  {
    path: '/dashboard/saques',
    name: 'saques',
    empty: ['Nenhum saque ainda. Com saldo sacável, saque pelo formulário acima — para a conta do titular ou para um destinatário aprovado em Destinatários.'],
  },
  {
    path: '/dashboard/destinatarios',
    name: 'destinatarios',
    empty: ['Nenhum destinatário. Para sacar a um terceiro, cadastre-o pelo formulário acima e aguarde a aprovação da equipe do serviço.'],
  },
  {
    path: '/dashboard/disputas',
    name: 'disputas',
    empty: [
      'Nenhuma disputa. Quando um pagador contestar um PIX, o caso aparece aqui e um webhook transaction.infraction é enviado: cadastre uma URL em Webhooks para recebê-lo.',
    ],
  },
  {
    path: '/dashboard/webhooks',
    name: 'webhooks',
    empty: [
      'Nenhuma URL cadastrada. Adicione uma em Adicionar URL para receber os eventos das suas cobranças e saques.',
      'Nenhuma entrega ainda. Cada evento enviado às URLs acima (uma cobrança criada ou paga, um saque…) aparece aqui com o corpo exato e a resposta.',
    ],
  },
  {
    path: '/dashboard/equipe',
    name: 'equipe',
    empty: ['Por enquanto, só você. Convide quem trabalha com você em Convidar: cada pessoa recebe um link que vale 72 horas.'],
  },
];

async function atWidth(page: Page, width: 390 | 1280) {
  await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
}

/** The menu: every item and group title showing inside the screen at 1280 px; folded into the Menu button at 390 px. */
async function expectMenuFits(page: Page, width: 390 | 1280) {
  const layout = await menuLayout(page);
  expect(layout.labels).toEqual(MENU);
  expect(layout.scrollWidth).toBe(width);
  expect(Math.max(...layout.rights)).toBeLessThanOrEqual(width);
  expect(layout.folded).toBe(width === 390);
  expect(layout.groups).toEqual(width === 390 ? [] : GROUPS);
}

describe('dashboard pages at 390 and 1280 px', { timeout: 120_000 }, () => {
  it("a new account's pages: the menu fits, each empty list says what to do next (with its link), axe passes", async () => {
    const merchant = await gateway.createMerchant();
    // The test's merchant comes with an API key: Chaves de API without any is the next test.
    const { page } = await signedInUser(gateway, browser, merchant.accountId, 'owner', { totp: true });
    for (const width of [390, 1280] as const) {
      await atWidth(page, width);
      for (const entry of EMPTY_PAGES) {
        const response = await page.goto(`${gateway.url}${entry.path}`);
        expect(response?.status()).toBe(200);
        expect((await page.locator('.empty').allInnerTexts()).map(normalized)).toEqual(entry.empty);
        expect(await page.locator('.empty a').count()).toBeGreaterThan(0);
        await expectMenuFits(page, width);
        await expectAccessible(page);
        await screenshot(page, `painel-vazio-${entry.name}-${width}`);
      }
    }
    // The links of the empty states lead somewhere: Nova cobrança's form, the API reference.
    await page.goto(`${gateway.url}/dashboard/cobrancas`);
    await page.locator('.empty').getByRole('link', { name: 'Nova cobrança' }).click();
    expect(page.url()).toBe(`${gateway.url}/dashboard/cobrancas#nova-cobranca`);
    await expect(page.getByLabel('Valor (R$)').isVisible()).resolves.toBe(true);
    // Destinatários with none yet: the form the empty state points at is open, not a closed section.
    await page.goto(`${gateway.url}/dashboard/destinatarios`);
    await page.locator('.empty').getByRole('link', { name: 'formulário acima' }).click();
    expect(page.url()).toBe(`${gateway.url}/dashboard/destinatarios#novo-destinatario`);
    await expect(page.getByLabel('Nome ou razão social').isVisible()).resolves.toBe(true);
  });

  it('Chaves de API of an account without keys says how to create the first one', async () => {
    // An account as the operator API creates it: no key yet.
    const created = await gateway.admin('POST', '/admin/v1/accounts', {
      name: 'Loja Sem Chave',
      email: 'semchave@example.com',
      emailVerified: true,
      city: 'Recife',
      responsible: { name: 'João Responsável', cpf: '529.982.247-25' },
      kycStatus: 'approved',
    });
    expect(created.status).toBe(201);
    const accountId: string = created.body.accountId;
    expect(await gateway.services.accounts.listApiKeys(accountId)).toEqual([]);
    const { page } = await signedInUser(gateway, browser, accountId, 'owner', { totp: true });
    for (const width of [390, 1280] as const) {
      await atWidth(page, width);
      await page.goto(`${gateway.url}/dashboard/chaves`);
      expect((await page.locator('.empty').allInnerTexts()).map(normalized)).toEqual([
        'Nenhuma chave ainda. Crie a primeira com o botão Criar chave acima e use-a na API (referência).',
      ]);
      await expectMenuFits(page, width);
      await expectAccessible(page);
      await screenshot(page, `painel-vazio-chaves-${width}`);
    }
  });

  it('the menu is used by keyboard: at 390 px Enter opens the Menu button; Tab goes through every item in order, Enter opens one', async () => {
    const merchant = await gateway.createMerchant();
    const { page } = await signedInUser(gateway, browser, merchant.accountId, 'viewer', { totp: false });
    for (const width of [390, 1280] as const) {
      await atWidth(page, width);
      await page.goto(`${gateway.url}/dashboard`);
      await page.keyboard.press('Tab');
      expect((await page.locator(':focus').textContent())?.trim()).toBe('Pular para o conteúdo');
      if (width === 390) {
        await page.keyboard.press('Tab');
        expect((await page.locator(':focus').textContent())?.trim()).toBe('Menu');
        await page.keyboard.press('Enter');
      }
      const focused: string[] = [];
      for (let step = 0; step < MENU.length; step++) {
        await page.keyboard.press('Tab');
        focused.push((await page.locator(':focus').textContent())?.trim() ?? '');
      }
      expect(focused).toEqual(MENU);
    }
    await page.keyboard.press('Shift+Tab'); // back to Segurança
    await page.keyboard.press('Enter');
    await page.waitForURL(`${gateway.url}/dashboard/seguranca`);
  });

  it('tables with rows: fit at 1280 px; at 390 px a card per row, nothing to scroll; amounts never break', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 50_000);
    await createCharge(gateway, merchant, { amountCents: 777 });
    await paidCharge(gateway, merchant);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_234 }))).status).toBeLessThan(300);
    expect(
      (
        await registerRecipient(gateway, merchant, {
          legalName: 'Fornecedor de Nome Bem Comprido LTDA',
          document: '11222333000181',
          documentType: 'cnpj',
          pixKey: 'pagamentos@fornecedor.example',
          pixKeyType: 'email',
        })
      ).status,
    ).toBe(201);
    const { page } = await signedInUser(gateway, browser, merchant.accountId, 'owner', { totp: true });
    const pages = [
      '/dashboard',
      '/dashboard/cobrancas',
      '/dashboard/saques',
      '/dashboard/destinatarios',
      '/dashboard/chaves',
      '/dashboard/equipe',
      '/dashboard/seguranca',
    ];
    for (const width of [1280, 390] as const) {
      await atWidth(page, width);
      for (const path of pages) {
        await page.goto(`${gateway.url}${path}`);
        const regions = await tableRegions(page);
        expect(regions.length, path).toBeGreaterThan(0);
        for (const region of regions) expect(region).toMatchObject({ role: 'region', label: expect.stringMatching(/\S/), tabIndex: 0 });
        if (width === 1280) expect(regions.map((region) => region.scrolls)).toEqual(regions.map(() => false));
        expect(await breakableMoney(page), path).toEqual([]);
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
        await expectAccessible(page);
        await screenshot(page, `painel-tabela${path.replace('/dashboard', '').replaceAll('/', '-') || '-inicio'}-${width}`);
      }
    }

    // Início at 390 px: the latest transactions are cards, each value after its column's name; the table's headers stay for screen readers.
    await page.goto(`${gateway.url}/dashboard`);
    const region = page.getByRole('region', { name: 'Últimas transações' });
    expect(await region.getByRole('cell', { name: 'R$ 7,77' }).count()).toBe(1);
    // Two tables: the latest transactions and the chart's table alternative; neither scrolls.
    expect((await tableRegions(page)).map((table) => table.scrolls)).toEqual([false, false]);
    expect(await page.evaluate<string>(`getComputedStyle(document.querySelector('[aria-label="Últimas transações"] td'), '::before').content`)).toMatch(
      /^"Data"/,
    );
    await expect(region.getByRole('columnheader', { name: 'Status' }).count()).resolves.toBe(1);
  });
});

/** innerText of a paragraph with its inline links: spaces made plain and runs folded. */
function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
