import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_ACTION_LABELS } from '../../src/backoffice/auditViews.js';
import { messages } from '../../src/messages.js';
import { formatBrl } from '../../src/messages.js';
import { createCharge, fund, registerRecipient, withdraw } from '../helpers/api.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { breakableMoney, expectAccessible, launchBrowser, menuLayout, screenshot, tableRegions } from '../helpers/browser.js';
import { postFromPage } from '../helpers/dashboard.js';
import { accountBody, NO_CHARGE_FEES, startGateway, withdrawalToHolder, type Gateway } from '../helpers/gateway.js';

/**
 * The back-office at 390 and 1280 px in a real browser, on a gateway of its own (a new operator's
 * first look: nothing in any list): each empty list says what to do next; the menu with its queue
 * counts on one line at 1280 px and wrapping inside the screen at 390 px; tables that fit at 1280
 * px; Auditoria readable — the action's name, the operator's e-mail or "Token de operação", the
 * account's name linked, a short summary of what changed (masked) — and every audited route named.
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

const MENU = ['Filas', 'Destinatários', 'Saques', 'MED', 'Envios', 'Contas', 'Transações', 'Alertas', 'Provedores', 'Auditoria', 'Operadores', 'Sair'];

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();
const emptyStates = async (page: Page) => (await page.locator('.empty').allInnerTexts()).map(normalized);

async function atWidth(page: Page, width: 390 | 1280) {
  await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
}

/** The menu: every item showing inside the screen at 1280 px; folded into the Menu button at 390 px. */
async function expectMenuFits(page: Page, width: 390 | 1280, labels: string[] = MENU) {
  const layout = await menuLayout(page);
  expect(layout.labels).toEqual(labels);
  expect(layout.scrollWidth).toBe(width);
  expect(Math.max(...layout.rights)).toBeLessThanOrEqual(width);
  expect(layout.folded).toBe(width === 390);
  expect(layout.rights).toHaveLength(width === 390 ? 2 : labels.length + 1);
}

const EMPTY_PAGES: { path: string; name: string; empty: string[] }[] = [
  { path: '/backoffice', name: 'filas', empty: Array<string>(4).fill('Nada na fila: nada a fazer aqui agora.') },
  {
    path: '/backoffice/destinatarios',
    name: 'destinatarios',
    empty: ['Nenhum destinatário aguardando análise. Os cadastros dos lojistas (painel ou API) chegam aqui; os aprovados estão em Ver os aprovados.'],
  },
  {
    path: '/backoffice/destinatarios?status=active',
    name: 'destinatarios-aprovados',
    empty: ['Nenhum destinatário aprovado. Aprove os que aguardam em Ver a fila de análise.'],
  },
  {
    path: '/backoffice/saques',
    name: 'saques',
    empty: [
      'Nenhum saque aguardando aprovação. Só as contas com saques por aprovação manual (em Contas, Configuração) pedem aprovação; os pedidos delas chegam aqui.',
    ],
  },
  { path: '/backoffice/med', name: 'med', empty: ['Nenhum caso em andamento. Para contestar uma cobrança paga, use Abrir caso abaixo com o id da cobrança.'] },
  {
    path: '/backoffice/envios',
    name: 'envios',
    empty: ['Nenhum envio aguardando a equipe. Um saque ou devolução sem resposta do PSP por 24 horas aparece aqui e em Filas.'],
  },
  { path: '/backoffice/contas', name: 'contas', empty: ['Nenhuma conta ainda. Crie a primeira em Nova conta.'] },
  {
    path: '/backoffice/alertas',
    name: 'alertas',
    empty: ['Nenhum alerta. Saques a terceiros e envios sem desfecho geram alertas aqui; as filas de trabalho estão em Filas.'],
  },
  { path: '/backoffice/marcacoes', name: 'marcacoes', empty: ['Nenhuma marcação ativa.'] },
  {
    path: '/backoffice/auditoria',
    name: 'auditoria',
    empty: ['Nenhuma ação registrada ainda. Cada ação de operador — aqui ou pela API — aparecerá nesta lista, com quem a fez e o que mudou.'],
  },
];

describe('the page stack under each site', () => {
  it('each site links and serves the one stylesheet and script under its own base', async () => {
    for (const base of ['/dashboard', '/backoffice']) {
      const signIn = await gateway.call('GET', `${base}/entrar`);
      expect(signIn.status).toBe(200);
      expect(signIn.body).toContain(`<link rel="stylesheet" href="${base}/assets/app.css"/>`);
      expect(signIn.body).toContain(`<script src="${base}/assets/app.js" defer></script>`);
      const css = await gateway.call('GET', `${base}/assets/app.css`);
      expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
      expect(css.body).toContain('.money');
      const script = await gateway.call('GET', `${base}/assets/app.js`);
      expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    }
  });
});

describe('a new operator on an empty back-office', { timeout: 120_000 }, () => {
  it('every list is empty and says what to do next; the menu fits at both widths; axe passes', async () => {
    const { page } = await signedInOperator(gateway, browser, 'admin');
    for (const width of [390, 1280] as const) {
      await atWidth(page, width);
      for (const entry of EMPTY_PAGES) {
        const response = await page.goto(`${gateway.url}${entry.path}`);
        expect(response?.status()).toBe(200);
        expect(await emptyStates(page), entry.path).toEqual(entry.empty);
        await expectMenuFits(page, width);
        await expectAccessible(page);
        await screenshot(page, `backoffice-vazio-${entry.name}-${width}`);
      }
      // The operators' list always holds whoever looks: not empty.
      await page.goto(`${gateway.url}/backoffice/operadores`);
      await expectMenuFits(page, width);
      await screenshot(page, `backoffice-operadores-${width}`);
    }
    await page.goto(`${gateway.url}/backoffice/auditoria?ator=ninguem`);
    expect(await emptyStates(page)).toEqual(['Nenhuma ação registrada com esses filtros. Ver todas as ações.']);
    await page.goto(`${gateway.url}/backoffice/contas?busca=nada`);
    expect(await emptyStates(page)).toEqual(['Nenhuma conta com esse nome ou e-mail. Ver todas as contas.']);
  });

  it("a new account's page says what to do with its empty blocks, users and deliveries", async () => {
    const created = await gateway.admin('POST', '/admin/v1/accounts', accountBody({ name: 'Loja Recém-Criada' }));
    expect(created.status).toBe(201);
    const { page } = await signedInOperator(gateway, browser, 'admin');
    for (const width of [390, 1280] as const) {
      await atWidth(page, width);
      await page.goto(`${gateway.url}/backoffice/contas/${created.body.accountId}`);
      expect(await emptyStates(page)).toEqual([
        'Nenhum bloqueio. Para reter parte do saldo (sem sacar), use Bloquear abaixo.',
        'Nenhum usuário ainda. Convide o primeiro dono em Convidar usuário: ele recebe um link que vale 72 horas.',
        'Nenhuma entrega. As tentativas de webhook da conta aparecem aqui depois que o lojista cadastrar uma URL (painel ou API).',
      ]);
      await expectMenuFits(page, width);
      expect(await breakableMoney(page)).toEqual([]);
      await expectAccessible(page);
      await screenshot(page, `backoffice-conta-nova-${width}`);
    }
  });
});

describe('the menu with its queue counts', { timeout: 120_000 }, () => {
  it('stays on one line at 1280 px and inside the screen at 390 px; tables fit at 1280 px; amounts never break', async () => {
    const merchant = await gateway.createMerchant({ withdrawalMode: 'manual', limits: { withdrawMinCents: 100 }, ...NO_CHARGE_FEES });
    await fund(gateway, merchant, 10_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 777 }))).body.status).toBe('pending_approval');
    expect(
      (
        await registerRecipient(gateway, merchant, {
          legalName: 'Fornecedor Contado LTDA',
          document: '11222333000181',
          documentType: 'cnpj',
          pixKey: 'contado@fornecedor.example',
          pixKeyType: 'email',
        })
      ).status,
    ).toBe(201);
    const chargeId = await createCharge(gateway, merchant, { amountCents: 5_000 });
    expect((await gateway.call('POST', `/sandbox/v1/pix/${chargeId}/pay`, { key: merchant.apiKey })).status).toBe(200);
    expect((await gateway.admin('POST', `/admin/v1/transactions/${chargeId}/infractions`, { reason: 'fraud' })).status).toBe(201);

    const { page } = await signedInOperator(gateway, browser, 'support');
    const withCounts = [
      'Filas',
      'Destinatários',
      'Saques',
      'MED',
      'Envios',
      'Contas',
      'Transações',
      'Alertas',
      'Provedores',
      'Auditoria',
      'Operadores',
      'Sair',
    ];
    for (const width of [1280, 390] as const) {
      await atWidth(page, width);
      for (const path of ['/backoffice', '/backoffice/saques', '/backoffice/contas', '/backoffice/auditoria', '/backoffice/operadores']) {
        await page.goto(`${gateway.url}${path}`);
        await expectMenuFits(page, width, withCounts);
        // Each queue's length beside its name, said to screen readers as "N na fila".
        expect(
          await page
            .locator('header nav .menu a:has(.count)')
            .evaluateAll((links) => links.map((link) => [link.querySelector('span')?.textContent, link.querySelector('.count')?.getAttribute('aria-label')])),
        ).toEqual([
          ['Destinatários', '1 na fila'],
          ['Saques', '1 na fila'],
          ['MED', '1 na fila'],
        ]);
        const regions = await tableRegions(page);
        for (const region of regions) expect(region).toMatchObject({ role: 'region', label: expect.stringMatching(/\S/), tabIndex: 0 });
        if (width === 1280)
          expect(
            regions.map((region) => region.scrolls),
            path,
          ).toEqual(regions.map(() => false));
        expect(await breakableMoney(page), path).toEqual([]);
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
        await expectAccessible(page);
        await screenshot(page, `backoffice-contagens${path.replace('/backoffice', '').replaceAll('/', '-') || '-filas'}-${width}`);
      }
    }
    await page.goto(`${gateway.url}/backoffice/saques`);
    expect(await page.getByRole('row').filter({ hasText: 'R$ 7,77' }).count()).toBe(1);
  });
});

describe('Auditoria reads as sentences', { timeout: 120_000 }, () => {
  it('names the action, the operator by e-mail or the token, the account by name (linked) and what changed — masked, no secrets; fits at 1280 px', async () => {
    const merchant = await gateway.createMerchant();
    const accountName = (await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).body.name;
    expect((await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: 500, reason: 'via API' })).status).toBe(201);
    const recipientId: string = (
      await registerRecipient(gateway, merchant, {
        legalName: 'Fornecedor Auditado LTDA',
        document: '11222333000181',
        documentType: 'cnpj',
        pixKey: 'auditado@fornecedor.example',
        pixKeyType: 'email',
      })
    ).body.recipientId;
    const { page, email, operatorId } = await signedInOperator(gateway, browser, 'admin');

    await page.goto(`${gateway.url}/backoffice/destinatarios`);
    expect(
      (await postFromPage(gateway, page, `/backoffice/destinatarios/${merchant.accountId}/${recipientId}/aprovar`, { label: 'Fornecedor aprovado' })).status,
    ).toBe(200);
    await page.goto(`${gateway.url}/backoffice/contas/${merchant.accountId}`);
    const before = await page.getByLabel('Saque máximo (centavos)').inputValue();
    await page.getByLabel('Saque máximo (centavos)').fill('1500');
    await page.getByRole('button', { name: 'Salvar configuração' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.accountSaved);
    await page.getByLabel('E-mail do usuário').fill(`dono-${Date.now()}@example.com`);
    await page.getByRole('button', { name: 'Convidar usuário' }).click();
    await expect(page.locator('code.secret').textContent()).resolves.toMatch(/\/dashboard\/convite\//);
    await gateway.services.audit.record({
      actor: `operator:${operatorId}`,
      action: 'POST /admin/v1/algo-novo',
      accountId: merchant.accountId,
      objectId: null,
      changes: {},
    });

    for (const width of [1280, 390] as const) {
      await atWidth(page, width);
      await page.goto(`${gateway.url}/backoffice/auditoria?conta=${merchant.accountId}`);
      const rows = auditRows(page);
      expect(await page.getByRole('region', { name: 'Registro de auditoria' }).getByRole('columnheader').allTextContents()).toEqual([
        'Quando',
        'Quem',
        'Ação',
        'Conta',
        'O que mudou',
      ]);
      const cells = async (index: number) =>
        (await rows.nth(index).getByRole('cell').allInnerTexts()).map((text) => normalized(text.replace(/Registro completo[\s\S]*$/, '')));
      // Newest first: the entry of an unknown action, the invitation, the change, the approval, the API's adjustment, then the test's setup (the API's).
      await expect(rows.count()).resolves.toBe((await gateway.admin('GET', `/admin/v1/audit?accountId=${merchant.accountId}`)).body.count + 1);
      const invitation = await cells(2);
      expect(invitation.slice(1, 4)).toEqual([email, 'Usuário do painel convidado', accountName]);
      expect(invitation[4]).toMatch(/^e-mail: dono-\d+@example\.com papel: owner$/);
      expect((await cells(1)).slice(1, 4)).toEqual([email, 'Outra ação: POST /admin/v1/algo-novo', accountName]);
      expect(await cells(3)).toEqual([expect.any(String), email, 'Conta alterada', accountName, `saque máximo: ${formatBrl(Number(before))} → R$ 15,00`]);
      expect((await cells(4)).slice(1)).toEqual([email, 'Destinatário aprovado', accountName, 'apelido: Fornecedor aprovado situação: Aprovado']);
      expect((await cells(5)).slice(1)).toEqual(['Token de operação', 'Ajuste de saldo lançado', accountName, 'valor: R$ 5,00 motivo: via API']);
      await expect(rows.nth(5).getByRole('link', { name: accountName }).getAttribute('href')).resolves.toBe(`/backoffice/contas/${merchant.accountId}`);
      await expect(rows.nth(4).getByText('Destinatário aprovado').getAttribute('title')).resolves.toBe(
        'POST /admin/v1/accounts/:accountId/recipients/:recipientId/approve',
      );
      // No secret and no full document anywhere on the page, the full records included.
      const html = await page.content();
      expect(html).not.toContain('/dashboard/convite/');
      expect(html).not.toContain('11222333000181');
      expect(html).not.toContain('11.222.333/0001-81');
      expect(html).toContain('**.222.333/0001-**');
      const regions = await tableRegions(page);
      expect(regions).toEqual([{ role: 'region', label: 'Registro de auditoria', tabIndex: 0, scrolls: width === 390 ? regions[0]?.scrolls : false }]);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
      await expectAccessible(page);
      await screenshot(page, `backoffice-auditoria-${width}`);
    }
    // The full record, one click away, keeps the raw actor and route for the API's filters.
    await auditRows(page).nth(4).getByText('Registro completo').click();
    await expect(
      auditRows(page).nth(4).getByText(`Ator: operator:${operatorId} · rota: POST /admin/v1/accounts/:accountId/recipients/:recipientId/approve`).isVisible(),
    ).resolves.toBe(true);

    // The Ator filter takes the operator's e-mail, in any case, as it takes operator:<id>: the same entries, all of that operator.
    const whoColumn = async (actor: string) => {
      await page.goto(`${gateway.url}/backoffice/auditoria?ator=${encodeURIComponent(actor)}`);
      const rows = page.getByRole('region', { name: 'Registro de auditoria' }).locator('tbody tr');
      return Promise.all((await rows.all()).map(async (row) => normalized(await row.getByRole('cell').nth(1).innerText())));
    };
    const byEmail = await whoColumn(email.toUpperCase());
    expect(byEmail.length).toBeGreaterThanOrEqual(4);
    expect(byEmail).toEqual(byEmail.map(() => email));
    expect(await whoColumn(`operator:${operatorId}`)).toEqual(byEmail);
  });

  it('every route of the operator API that changes something, the simulator’s outage switch, and the back-office actions on operators, has its label', async () => {
    const spec = (await gateway.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const audited = Object.entries(spec.paths)
      .filter(([path]) => path.startsWith('/admin/v1/') || path === '/sandbox/v1/providers/{providerId}/outage')
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => ['post', 'patch', 'put', 'delete'].includes(method))
          .map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      );
    expect(audited.length).toBeGreaterThan(20);
    const named = [...audited, 'PATCH /backoffice/operators/:operatorId', 'DELETE /backoffice/operators/:operatorId'];
    expect(named.filter((action) => AUDIT_ACTION_LABELS[action] === undefined)).toEqual([]);
    expect(Object.keys(AUDIT_ACTION_LABELS).sort()).toEqual([...named].sort());
  });
});

const auditRows = (page: Page) => page.getByRole('region', { name: 'Registro de auditoria' }).getByRole('row');
