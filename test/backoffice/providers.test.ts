import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { expectAccessible, launchBrowser, menuLayout, screenshot, tableRegions } from '../helpers/browser.js';
import { postFromPage } from '../helpers/dashboard.js';
import { ADMIN_TOKEN, backend, chargeBody, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Provedores in the back-office (DESIGN.md §14), on a gateway with two simulated providers: their
 * health as this process sees it, the routing rules in force, and the admin's form that replaces
 * them — PUT /admin/v1/routing's rules, its messages and its audit entry; read-only for the other
 * roles (a forged POST refused with 403), CSRF, axe, and both widths.
 */
let gateway: Gateway;
let browser: Browser;
let merchant: Merchant;

const EVERYONE = [
  { providerId: 'psp-a', weight: 1 },
  { providerId: 'psp-b', weight: 1 },
];
const DEFAULT_RULES = { charges: EVERYONE, withdrawals: EVERYONE, accounts: {} };

beforeAll(async () => {
  const folder = mkdtempSync(join(tmpdir(), 'providers-'));
  const providersFile = join(folder, 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: [
        { id: 'psp-a', kind: 'simulated' },
        { id: 'psp-b', kind: 'simulated' },
      ],
    }),
  );
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', PROVIDERS_FILE: providersFile });
  browser = await launchBrowser();
  merchant = await gateway.createMerchant({ limits: { pixPerHour: 10_000 } });
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A table's body rows as the texts of their cells. */
async function rowsOf(page: Page, region: string): Promise<string[][]> {
  const rows = page.getByRole('region', { name: region }).locator('tbody tr');
  const texts: string[][] = [];
  for (const row of await rows.all()) texts.push((await row.getByRole('cell').allInnerTexts()).map(normalized));
  return texts;
}

const rules = async () => (await gateway.admin('GET', '/admin/v1/routing')).body;

const auditBy = async (operatorId: string) => (await gateway.admin('GET', `/admin/v1/audit?actor=operator:${operatorId}`)).body.entries;

/** The name of the focused field. */
const focusedName = (page: Page) => page.evaluate<string>(`document.activeElement?.getAttribute('name') ?? ''`);

/** Replaces the focused field's text as a keyboard user does. */
async function typeOver(page: Page, text: string) {
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  if (text) await page.keyboard.type(text);
}

/** The rules back to every provider with weight 1 (each test starts from them). */
async function resetRules() {
  expect((await gateway.admin('PUT', '/admin/v1/routing', DEFAULT_RULES)).status).toBe(200);
  // Each process keeps the rules it read for up to 2 s; this one was told at once.
  expect(await rules()).toEqual(DEFAULT_RULES);
}

describe(`Provedores (${backend})`, { timeout: 120_000 }, () => {
  it('shows both providers (up, no error yet) and the default rules; the menu names it and fits; axe passes at 390 and 1280 px', async () => {
    const { page } = await signedInOperator(gateway, browser, 'admin');
    await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Provedores' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/provedores`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Provedores');
    await expect(page.getByText('Como este processo do gateway vê cada provedor').isVisible()).resolves.toBe(true);
    const health = await rowsOf(page, 'Saúde dos provedores');
    expect(health.map((row) => [...row.slice(0, 3), row[5]])).toEqual([
      ['psp-a', 'No ar', '—', 'Simulador'],
      ['psp-b', 'No ar', '—', 'Simulador'],
    ]);
    expect(await rowsOf(page, 'Cobranças: lista padrão')).toEqual([
      ['psp-a', '1', '50%'],
      ['psp-b', '1', '50%'],
    ]);
    expect(await rowsOf(page, 'Saques: lista padrão')).toEqual([
      ['psp-a', '1', '50%'],
      ['psp-b', '1', '50%'],
    ]);
    expect((await page.locator('.empty').allInnerTexts()).map(normalized)).toEqual([
      'Nenhuma conta com regras próprias: todas usam as listas padrão. Para dar a uma conta a sua, use Alterar regras abaixo.',
    ]);
    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.reload();
      const layout = await menuLayout(page);
      expect(layout.labels).toContain('Provedores');
      expect(layout.scrollWidth).toBe(width);
      expect(Math.max(...layout.rights)).toBeLessThanOrEqual(width);
      if (width === 1280) {
        expect(new Set(layout.centres).size, 'the menu on one line at 1280 px').toBe(1);
        expect((await tableRegions(page)).map((region) => region.scrolls)).toEqual([false, false, false]);
      }
      await expectAccessible(page);
      await screenshot(page, `backoffice-provedores-${width}`);
    }
  });

  it('an admin changes the weights with the keyboard and gives an account its own list: the page, the API and the audit log agree', async () => {
    await resetRules();
    const accountName = (await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).body.name as string;
    const { page, operatorId } = await signedInOperator(gateway, browser, 'admin');
    await page.goto(`${gateway.url}/backoffice/provedores`);
    await page.getByRole('group', { name: 'Cobranças (lista padrão)' }).getByLabel('Peso de psp-a').focus();
    await typeOver(page, '3');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('charges.psp-b');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('withdrawals.psp-a');
    await typeOver(page, '0');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('withdrawals.psp-b');
    await typeOver(page, '2');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('newAccount');
    await page.keyboard.type(merchant.accountId);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('newAccount.charges.psp-b');
    await page.keyboard.type('1,5');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    await expect(page.getByRole('status').textContent()).resolves.toBe(messages.routingSaved);

    const saved = {
      charges: [
        { providerId: 'psp-a', weight: 3 },
        { providerId: 'psp-b', weight: 1 },
      ],
      withdrawals: [{ providerId: 'psp-b', weight: 2 }],
      accounts: { [merchant.accountId]: { charges: [{ providerId: 'psp-b', weight: 1.5 }] } },
    };
    expect(await rules()).toEqual(saved);
    expect(await rowsOf(page, 'Cobranças: lista padrão')).toEqual([
      ['psp-a', '3', '75%'],
      ['psp-b', '1', '25%'],
    ]);
    expect(await rowsOf(page, 'Saques: lista padrão')).toEqual([['psp-b', '2', '100%']]);
    expect(await rowsOf(page, 'Contas com regras próprias')).toEqual([[accountName, 'psp-b: peso 1,5 (100%)', 'Lista padrão']]);
    const accountLink = page.getByRole('region', { name: 'Contas com regras próprias' }).getByRole('link', { name: accountName });
    await expect(accountLink.getAttribute('href')).resolves.toBe(`/backoffice/contas/${merchant.accountId}`);
    const entries = await auditBy(operatorId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'PUT /admin/v1/routing', changes: { input: saved, before: DEFAULT_RULES, after: saved } });
    await expectAccessible(page);
    await screenshot(page, 'backoffice-provedores-salvas-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'backoffice-provedores-salvas-390');

    // The account's row in the form: emptied, the account goes back to the default lists.
    const own = page.getByRole('group', { name: `Conta ${accountName}` });
    await expect(own.getByRole('group', { name: 'Cobranças' }).getByLabel('Peso de psp-b').inputValue()).resolves.toBe('1,5');
    await own.getByRole('group', { name: 'Cobranças' }).getByLabel('Peso de psp-b').fill('');
    await page.getByRole('button', { name: 'Salvar regras' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe(messages.routingSaved);
    expect(await rules()).toEqual({ ...saved, accounts: {} });
    expect(await page.getByRole('region', { name: 'Contas com regras próprias' }).count()).toBe(0);
    expect(await auditBy(operatorId)).toHaveLength(2);
  });

  it('a bad weight, an empty list or an unknown account shows the message the API answers, keeps what was typed, and changes nothing', async () => {
    await resetRules();
    const { page, operatorId } = await signedInOperator(gateway, browser, 'admin');
    await page.goto(`${gateway.url}/backoffice/provedores`);
    const charges = page.getByRole('group', { name: 'Cobranças (lista padrão)' });
    const unknownAccount = '0190a000-0000-7000-8000-000000000000';
    const cases: { fill: () => Promise<void>; api: unknown }[] = [
      {
        fill: () => charges.getByLabel('Peso de psp-a').fill('-1'),
        api: { ...DEFAULT_RULES, charges: [{ providerId: 'psp-a', weight: -1 }, EVERYONE[1]] },
      },
      {
        fill: () => charges.getByLabel('Peso de psp-a').fill('abc'),
        api: { ...DEFAULT_RULES, charges: [{ providerId: 'psp-a', weight: 'abc' }, EVERYONE[1]] },
      },
      {
        fill: async () => {
          await charges.getByLabel('Peso de psp-a').fill('0');
          await charges.getByLabel('Peso de psp-b').fill('');
        },
        api: { ...DEFAULT_RULES, charges: [] },
      },
      {
        fill: async () => {
          await page.getByLabel('Id da conta').fill(unknownAccount);
          await page.getByRole('group', { name: 'Regras próprias para uma conta' }).getByLabel('Peso de psp-a').first().fill('1');
        },
        api: { ...DEFAULT_RULES, accounts: { [unknownAccount]: { charges: [EVERYONE[0]] } } },
      },
    ];
    for (const [index, { fill, api }] of cases.entries()) {
      await page.goto(`${gateway.url}/backoffice/provedores`);
      await fill();
      const typed = await charges.getByLabel('Peso de psp-a').inputValue();
      const [response] = await Promise.all([
        page.waitForResponse(`${gateway.url}/backoffice/provedores`),
        page.getByRole('button', { name: 'Salvar regras' }).click(),
      ]);
      const refusal = await gateway.admin('PUT', '/admin/v1/routing', api);
      expect(refusal.status).toBe(400);
      expect(response.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(refusal.body.error);
      await expect(charges.getByLabel('Peso de psp-a').inputValue()).resolves.toBe(typed);
      if (index === 0) {
        expect(refusal.body.error).toBe(messages.routingWeightInvalid('charges[].weight'));
        await expectAccessible(page);
        await screenshot(page, 'backoffice-provedores-erro-1280');
      }
    }
    // What only the form can get wrong: an account's weights without its id, its id without weights.
    await page.goto(`${gateway.url}/backoffice/provedores`);
    const newAccount = page.getByRole('group', { name: 'Regras próprias para uma conta' });
    await newAccount.getByRole('group', { name: 'Saques' }).getByLabel('Peso de psp-b').fill('1');
    await page.getByRole('button', { name: 'Salvar regras' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.routingAccountIdMissing);
    await newAccount.getByLabel('Id da conta').fill(merchant.accountId);
    await newAccount.getByRole('group', { name: 'Saques' }).getByLabel('Peso de psp-b').fill('');
    await page.getByRole('button', { name: 'Salvar regras' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.routingAccountWithoutWeights(merchant.accountId));
    await expect(newAccount.getByLabel('Id da conta').inputValue()).resolves.toBe(merchant.accountId);

    expect(await rules()).toEqual(DEFAULT_RULES);
    expect(await auditBy(operatorId)).toEqual([]);
  });

  it('support and compliance see the page read-only, and a forged POST from them is refused (403), changing and auditing nothing', async () => {
    await resetRules();
    for (const role of ['support', 'compliance'] as const) {
      const { page, operatorId } = await signedInOperator(gateway, browser, role);
      await page.goto(`${gateway.url}/backoffice/provedores`);
      expect(await page.getByRole('button', { name: 'Salvar regras' }).count()).toBe(0);
      expect(await page.locator('input[name^="charges."]').count()).toBe(0);
      await expect(page.getByText(`Seu papel (${role}) permite ver, não alterar.`).isVisible()).resolves.toBe(true);
      expect(await rowsOf(page, 'Cobranças: lista padrão')).toHaveLength(2);
      const refused = await postFromPage(gateway, page, '/backoffice/provedores', { 'charges.psp-a': '9', 'charges.psp-b': '', 'withdrawals.psp-a': '1' });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain(messages.roleNotAllowed(role));
      expect(await rules()).toEqual(DEFAULT_RULES);
      expect(await auditBy(operatorId)).toEqual([]);
      await expectAccessible(page);
    }
  });

  it('a POST without the CSRF token is refused (403)', async () => {
    await resetRules();
    const { page, operatorId } = await signedInOperator(gateway, browser, 'admin');
    const noToken = await page.request.post(`${gateway.url}/backoffice/provedores`, {
      form: { 'charges.psp-a': '9', 'withdrawals.psp-a': '1' },
      maxRedirects: 0,
    });
    expect(noToken.status()).toBe(403);
    expect(await noToken.text()).toContain(messages.formExpired);
    expect(await rules()).toEqual(DEFAULT_RULES);
    expect(await auditBy(operatorId)).toEqual([]);
  });

  it('a provider put down shows "Fora do ar" with its last error, while the charges go to the other', async () => {
    await resetRules();
    const outage = (mode: 'down' | 'up') => gateway.call('POST', '/sandbox/v1/providers/psp-a/outage', { key: ADMIN_TOKEN, body: { mode } });
    expect((await outage('down')).status).toBe(200);
    try {
      const stateOf = async () => {
        const { providers } = (await gateway.admin('GET', '/admin/v1/providers')).body;
        return providers.find((provider: { id: string }) => provider.id === 'psp-a');
      };
      // Each charge that draws psp-a fails over to psp-b; three failures in a row open its breaker.
      for (let attempt = 0; attempt < 40 && (await stateOf()).state !== 'down'; attempt++) {
        const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
        expect(created.status).toBe(201);
        expect((await gateway.admin('GET', `/admin/v1/transactions/${created.body.transactionId}`)).body.providerId).toBe('psp-b');
      }
      const down = await stateOf();
      expect(down.state).toBe('down');

      const { page } = await signedInOperator(gateway, browser, 'support');
      await page.goto(`${gateway.url}/backoffice/provedores`);
      const [first, second] = await rowsOf(page, 'Saúde dos provedores');
      expect(first?.slice(0, 2)).toEqual(['psp-a', 'Fora do ar']);
      expect(first?.[2]).toContain(down.lastError.message);
      expect(first?.[2]).toMatch(/em \d{2}\/\d{2}\/\d{4}/);
      expect(first?.[3]).toMatch(/^\d+(,\d)? ms$/);
      expect(second?.slice(0, 3)).toEqual(['psp-b', 'No ar', '—']);
      await expectAccessible(page);
      await screenshot(page, 'backoffice-provedores-fora-do-ar-1280');
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(390);
      await screenshot(page, 'backoffice-provedores-fora-do-ar-390');
    } finally {
      await outage('up');
    }
  });
});
