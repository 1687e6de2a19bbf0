import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBrl, messages } from '../../src/messages.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { breakableMoney, expectAccessible, launchBrowser, menuLayout, screenshot, tableRegions, menuLink } from '../helpers/browser.js';
import { postFromPage } from '../helpers/dashboard.js';
import { ADMIN_TOKEN, backend, chargeBody, providersFile, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import type { ErrorBody } from '../helpers/contract.js';

/**
 * Provedores in the back-office (DESIGN.md §14), on a gateway with two simulated providers: their
 * health as this process sees it, the routing rules in force, and the admin's form that replaces
 * them — PUT /admin/v1/routing's rules, its messages and its audit entry; the treasury (a reading
 * now) and the reconciliation (a run now, a run's differences, its CSV report); read-only for the
 * other roles (a forged POST refused with 403), CSRF, axe, and both widths.
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
  const providers = providersFile([
    { id: 'psp-a', kind: 'simulated' },
    // A small PSP with a low-cover mark above its balance: the treasury marks it. Its caps: R$ 15.000,00 a withdrawal, R$ 1.000,00 a PIX at night.
    {
      id: 'psp-b',
      kind: 'simulated',
      openingBalanceCents: 50_000,
      lowCoverCents: 100_000,
      maxWithdrawalCents: 1_500_000,
      night: { from: '20:00', to: '06:00', maxCents: 100_000 },
    },
  ]);
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', PROVIDERS_FILE: providers });
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

const DAY = 86_400_000;

/** A UTC day (AAAA-MM-DD), `offset` days from the gateway's today. */
const utcDay = (offset = 0) => new Date(Math.floor(gateway.clock.now().getTime() / DAY) * DAY + offset * DAY).toISOString().slice(0, 10);

/** A UTC day as the page writes it (DD/MM/AAAA). */
const dayText = (day: string) => day.split('-').reverse().join('/');

/** Types a day into the focused date field as a keyboard user does (its parts in the order the browser's locale shows them), then tabs to the next field. */
async function typeDay(page: Page, day: string) {
  const name = await focusedName(page);
  const order = await page.evaluate<string[]>(
    `new Intl.DateTimeFormat(navigator.language).formatToParts(new Date()).map((part) => part.type).filter((type) => ['day', 'month', 'year'].includes(type))`,
  );
  const [year = '', month = '', date = ''] = day.split('-');
  const parts: Record<string, string> = { year, month, day: date };
  for (const part of order) await page.keyboard.type(parts[part] ?? '');
  // Out of the field: Tab walks its parts (and Chromium's calendar button) before the next field.
  for (let presses = 0; presses < 4 && (await focusedName(page)) === name; presses++) await page.keyboard.press('Tab');
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
    await (await menuLink(page, 'Provedores')).click();
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
      'Nenhuma leitura ainda: o worker lê os saldos a cada minuto. Para ler agora, use Ler saldos agora abaixo.',
      'Nenhuma conciliação ainda: o worker concilia o dia anterior uma vez por dia. Para conciliar agora, use Conciliar agora abaixo.',
      'Nenhuma conta com regras próprias: todas usam as listas padrão. Para dar a uma conta a sua, use Alterar regras abaixo.',
    ]);
    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.reload();
      const layout = await menuLayout(page);
      expect(layout.labels).toContain('Provedores');
      expect(layout.scrollWidth).toBe(width);
      expect(Math.max(...layout.rights)).toBeLessThanOrEqual(width);
      expect(layout.folded).toBe(width === 390);
      if (width === 1280) {
        expect((await tableRegions(page)).map((region) => region.scrolls)).toEqual([false, false, false, false]);
      }
      await expectAccessible(page);
      await screenshot(page, `backoffice-provedores-${width}`);
    }
  });

  it('an admin changes the weights with the keyboard and gives an account its own list: the page, the API and the audit log agree', async () => {
    await resetRules();
    const accountName = (await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).body.name;
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
      const refusal = await gateway.admin<ErrorBody>('PUT', '/admin/v1/routing', api);
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
      // One per thing the role cannot do here: read the balances now, run a reconciliation, change the rules.
      expect(await page.getByText(`Seu papel (${role}) permite ver, não alterar.`).count()).toBe(3);
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
    const runsBefore = (await gateway.admin('GET', '/admin/v1/reconciliation')).body.runs.length;
    for (const [path, form] of [
      ['/backoffice/provedores/tesouraria', {}],
      ['/backoffice/provedores/conciliacao', { providerId: 'psp-a', de: utcDay(-1), ate: utcDay(-1) }],
    ] as const) {
      const refused = await page.request.post(`${gateway.url}${path}`, { form, maxRedirects: 0 });
      expect(refused.status(), path).toBe(403);
      expect(await refused.text()).toContain(messages.formExpired);
    }
    expect((await gateway.admin('GET', '/admin/v1/reconciliation')).body.runs).toHaveLength(runsBefore);
    expect(await auditBy(operatorId)).toEqual([]);
  });

  it('an admin runs a reconciliation from the form with the keyboard: the run is listed, its page lists the difference, and its CSV downloads', async () => {
    // Two charges paid at psp-a; then psp-a's records lose the first one.
    expect((await gateway.admin('PUT', '/admin/v1/routing', { ...DEFAULT_RULES, charges: [EVERYONE[0]] })).status).toBe(200);
    const paid: string[] = [];
    for (const amountCents of [1000, 1001]) {
      const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents }) });
      expect(created.status).toBe(201);
      expect((await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, { key: merchant.apiKey })).status).toBe(200);
      paid.push(created.body.transactionId);
    }
    const db = gateway.database.db;
    const lost = await db
      .selectFrom('transactions')
      .select(['id', 'endToEndId', 'providerId'])
      .where('id', '=', paid[0] ?? '')
      .executeTakeFirstOrThrow();
    expect(lost.providerId).toBe('psp-a');
    const endToEndId = lost.endToEndId ?? '';
    expect((await db.deleteFrom('sandboxPayments').where('endToEndId', '=', endToEndId).executeTakeFirst()).numDeletedRows).toBe(1n);
    const accountName = (await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).body.name;

    const { page, operatorId, email } = await signedInOperator(gateway, browser, 'admin');
    await page.goto(`${gateway.url}/backoffice/provedores`);
    // The form proposes yesterday (UTC), every provider.
    await expect(page.getByRole('combobox', { name: 'Provedor', exact: true }).inputValue()).resolves.toBe('');
    await expect(page.getByLabel('Do dia (UTC)').inputValue()).resolves.toBe(utcDay(-1));
    await expect(page.getByLabel('Até o dia (UTC, incluído)').inputValue()).resolves.toBe(utcDay(-1));
    // By keyboard: psp-a, from yesterday to today (whatever the hour, the payments are inside).
    await page.getByRole('combobox', { name: 'Provedor', exact: true }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByRole('combobox', { name: 'Provedor', exact: true }).inputValue()).resolves.toBe('psp-a');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('de');
    await typeDay(page, utcDay(-1));
    expect(await focusedName(page)).toBe('ate');
    await typeDay(page, utcDay(0));
    await expect(page.getByLabel('Do dia (UTC)').inputValue()).resolves.toBe(utcDay(-1));
    await expect(page.getByLabel('Até o dia (UTC, incluído)').inputValue()).resolves.toBe(utcDay(0));
    await expect(page.evaluate(`document.activeElement.textContent`)).resolves.toBe('Conciliar agora');
    await Promise.all([page.waitForResponse(`${gateway.url}/backoffice/provedores/conciliacao`), page.keyboard.press('Enter')]);
    await page.waitForLoadState();
    await expect(page.getByRole('status').textContent()).resolves.toBe(messages.reconciliationRan);
    // What was chosen stays in the form.
    await expect(page.getByRole('combobox', { name: 'Provedor', exact: true }).inputValue()).resolves.toBe('psp-a');
    await expect(page.getByLabel('Até o dia (UTC, incluído)').inputValue()).resolves.toBe(utcDay(0));

    const listed = (await gateway.admin('GET', '/admin/v1/reconciliation')).body.runs[0]!;
    const from = Date.parse(`${utcDay(-1)}T00:00:00Z`);
    const to = Date.parse(`${utcDay(0)}T00:00:00Z`) + DAY;
    expect(listed).toMatchObject({
      providerId: 'psp-a',
      from,
      to,
      requestedBy: `operator:${operatorId}`,
      status: 'done',
      matched: 1,
      differenceCount: 1,
      ledgerInCents: 2001,
      pspInCents: 1001,
      ledgerOutCents: 0,
      pspOutCents: 0,
    });
    const { runId } = listed;
    const [first] = await rowsOf(page, 'Últimas conciliações');
    expect(first).toEqual([
      `${dayText(utcDay(-1))} a ${dayText(utcDay(0))}`,
      'psp-a',
      email,
      'Concluída',
      '1',
      '1',
      'Entradas R$ 20,01 Saídas R$ 0,00',
      'Entradas R$ 10,01 Saídas R$ 0,00',
    ]);
    const entries = await auditBy(operatorId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'POST /admin/v1/reconciliation',
      changes: { input: { providerId: 'psp-a', from, to }, after: { runs: [listed] } },
    });

    // The run's page: its totals and its one difference, the account linked.
    await page.getByRole('region', { name: 'Últimas conciliações' }).getByRole('link').first().click();
    await page.waitForURL(`${gateway.url}/backoffice/provedores/conciliacao/${runId}`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Conciliação de psp-a: ${dayText(utcDay(-1))} a ${dayText(utcDay(0))}`);
    expect(await rowsOf(page, 'Totais do período')).toEqual([
      ['R$ 20,01', 'R$ 10,01', '-R$ 10,00'],
      ['R$ 0,00', 'R$ 0,00', 'nenhuma'],
    ]);
    expect(await rowsOf(page, 'Diferenças')).toEqual([
      ['Falta no PSP', 'PIX recebido', `${endToEndId} transação ${lost.id}`, accountName, 'R$ 10,00 Liquidado', 'Não consta'],
    ]);
    await expect(page.getByRole('region', { name: 'Diferenças' }).getByRole('link', { name: accountName }).getAttribute('href')).resolves.toBe(
      `/backoffice/contas/${merchant.accountId}`,
    );
    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
      if (width === 1280) expect((await tableRegions(page)).map((region) => region.scrolls)).toEqual([false, false]);
      await expectAccessible(page);
      await screenshot(page, `backoffice-provedores-conciliacao-${width}`);
    }

    // The report: what the operator API serves, downloaded as a file.
    const link = page.getByRole('link', { name: 'Baixar relatório (CSV)' });
    await expect(link.getAttribute('href')).resolves.toBe(`/backoffice/provedores/conciliacao/${runId}.csv`);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe(`conciliacao-psp-a-${utcDay(-1)}.csv`);
    const downloaded = readFileSync(await download.path(), 'utf8');
    const api = await gateway.call('GET', `/admin/v1/reconciliation/${runId}/report.csv`, { key: ADMIN_TOKEN });
    expect(downloaded).toBe(api.body);
    const report = await page.request.get(`${gateway.url}/backoffice/provedores/conciliacao/${runId}.csv`);
    expect(report.status()).toBe(200);
    expect(report.headers()['content-type']).toBe('text/csv; charset=utf-8');
    expect(report.headers()['content-disposition']).toBe(`attachment; filename="conciliacao-psp-a-${utcDay(-1)}.csv"`);
    const lines = (await report.text()).split('\r\n');
    const period = `psp-a,${new Date(from).toISOString()},${new Date(to).toISOString()}`;
    expect(lines).toEqual([
      'provedor,periodo_inicio_utc,periodo_fim_utc,linha,movimento,referencia,conta,transacao,valor_razao,valor_psp,status_razao,status_psp',
      `${period},total,entradas,,,,20.01,10.01,,`,
      `${period},total,saidas,,,,0.00,0.00,,`,
      `${period},missing_at_psp,payment,${endToEndId},${merchant.accountId},${lost.id},10.00,,settled,`,
      '',
    ]);

    // An unknown or malformed run: the back-office's 404 page, for the page and the report.
    for (const id of ['not-a-run', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'not-a-run.csv', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.csv']) {
      const response = await page.goto(`${gateway.url}/backoffice/provedores/conciliacao/${id}`);
      expect(response?.status(), id).toBe(404);
      await expect(page.getByText(messages.reconciliationNotFound).isVisible()).resolves.toBe(true);
    }
  });

  it('a period or a provider the API refuses shows the message it answers, keeps what was typed, and runs nothing', async () => {
    const { page, operatorId } = await signedInOperator(gateway, browser, 'admin');
    const runsBefore = (await gateway.admin('GET', '/admin/v1/reconciliation')).body.runs.length;
    const startOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
    const cases = [
      { from: utcDay(0), to: utcDay(-1) },
      { from: utcDay(-40), to: utcDay(-1) },
    ];
    for (const { from, to } of cases) {
      await page.goto(`${gateway.url}/backoffice/provedores`);
      await page.getByLabel('Do dia (UTC)').fill(from);
      await page.getByLabel('Até o dia (UTC, incluído)').fill(to);
      const [response] = await Promise.all([
        page.waitForResponse(`${gateway.url}/backoffice/provedores/conciliacao`),
        page.getByRole('button', { name: 'Conciliar agora' }).click(),
      ]);
      const refusal = await gateway.admin<ErrorBody>('POST', '/admin/v1/reconciliation', { from: startOf(from), to: startOf(to) + DAY });
      expect(refusal.status).toBe(400);
      expect(response.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(refusal.body.error);
      expect(refusal.body.error).toBe(messages.reconciliationPeriodInvalid);
      await expect(page.getByLabel('Do dia (UTC)').inputValue()).resolves.toBe(from);
      await expect(page.getByLabel('Até o dia (UTC, incluído)').inputValue()).resolves.toBe(to);
    }
    await expectAccessible(page);
    await screenshot(page, 'backoffice-provedores-conciliacao-erro-1280');
    const unknown = await postFromPage(gateway, page, '/backoffice/provedores/conciliacao', { providerId: 'psp-z', de: utcDay(-1), ate: utcDay(-1) });
    const apiUnknown = await gateway.admin<ErrorBody>('POST', '/admin/v1/reconciliation', {
      providerId: 'psp-z',
      from: startOf(utcDay(-1)),
      to: startOf(utcDay(0)),
    });
    expect([unknown.status, apiUnknown.status]).toEqual([404, 404]);
    expect(unknown.text).toContain(apiUnknown.body.error);
    expect((await gateway.admin('GET', '/admin/v1/reconciliation')).body.runs).toHaveLength(runsBefore);
    expect(await auditBy(operatorId)).toEqual([]);
  });

  it('an admin reads the balances now: both providers\' figures as the API has them, the low one marked in words; an unreadable PSP shows "—" and why', async () => {
    const { page, operatorId } = await signedInOperator(gateway, browser, 'admin');
    await page.goto(`${gateway.url}/backoffice/provedores`);
    await page.getByRole('button', { name: 'Ler saldos agora' }).click();
    await page.waitForLoadState();
    await expect(page.getByRole('status').textContent()).resolves.toBe(messages.treasuryRead);
    const { providers } = (await gateway.admin('GET', '/admin/v1/treasury')).body;
    // psp-a: R$ 1.000.000,00 opening plus the one payment it still lists; psp-b: its R$ 500,00, under its R$ 1.000,00 mark.
    expect(providers).toMatchObject([
      { providerId: 'psp-a', reportedCents: 100_000_000 + 1001, readError: null, lowCoverCents: 0, low: false },
      { providerId: 'psp-b', ledgerInCents: 0, ledgerOutCents: 0, reportedCents: 50_000, coverCents: 50_000, lowCoverCents: 100_000, low: true },
    ]);
    expect(providers[0]!.ledgerInCents).toBeGreaterThan(0);
    const rows = await rowsOf(page, 'Tesouraria dos provedores');
    expect(rows.map((row) => row.slice(0, 8))).toEqual([
      [
        'psp-a',
        formatBrl(providers[0]!.ledgerInCents),
        formatBrl(providers[0]!.ledgerOutCents),
        formatBrl(providers[0]!.ledgerNetCents),
        'R$ 1.000.010,01',
        'R$ 1.000.010,01',
        'Sem mínimo',
        'Coberto',
      ],
      ['psp-b', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00', 'R$ 500,00', 'R$ 500,00', 'R$ 1.000,00', 'Abaixo do mínimo'],
    ]);
    for (const row of rows) expect(row[8]).toMatch(/^\d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}$/);
    expect(await breakableMoney(page)).toEqual([]);
    const entries = await auditBy(operatorId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'POST /admin/v1/treasury/refresh',
      changes: { after: { providers: [{ providerId: 'psp-a' }, { providerId: 'psp-b' }] } },
    });
    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      const layout = await menuLayout(page);
      expect(layout.scrollWidth).toBe(width);
      if (width === 1280) expect((await tableRegions(page)).every((region) => !region.scrolls)).toBe(true);
      await expectAccessible(page);
      await screenshot(page, `backoffice-provedores-tesouraria-${width}`);
    }

    // psp-a cannot be read: no balance, the reason, and the ledger's net as cover.
    const outage = (mode: 'down' | 'up') => gateway.call('POST', '/sandbox/v1/providers/psp-a/outage', { key: ADMIN_TOKEN, body: { mode } });
    expect((await outage('down')).status).toBe(200);
    try {
      await page.getByRole('button', { name: 'Ler saldos agora' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe(messages.treasuryRead);
      const [unread] = await rowsOf(page, 'Tesouraria dos provedores');
      expect(unread?.[4]).toBe('— Não lido: simulated provider psp-a is down (connection refused)');
      expect(unread?.[5]).toBe(formatBrl(providers[0]!.ledgerNetCents));
      // A reconciliation asked by the admin token meanwhile fails, and says why.
      const day = Date.parse(`${utcDay(-1)}T00:00:00Z`);
      const failed = await gateway.admin('POST', '/admin/v1/reconciliation', { providerId: 'psp-a', from: day, to: day + DAY });
      expect(failed.body.runs).toMatchObject([{ status: 'failed' }]);
      await page.goto(`${gateway.url}/backoffice/provedores`);
      const [latest] = await rowsOf(page, 'Últimas conciliações');
      // Nothing was compared: no figures that could read as "all equal".
      expect(latest).toEqual([
        dayText(utcDay(-1)),
        'psp-a',
        'Token de operação',
        'Falhou simulated provider psp-a is down (connection refused)',
        '—',
        '—',
        '—',
        '—',
      ]);
      await expectAccessible(page);
      await screenshot(page, 'backoffice-provedores-sem-leitura-1280');
      const failedPage = await page.context().newPage();
      await failedPage.goto(`${gateway.url}/backoffice/provedores/conciliacao/${failed.body.runs[0]!.runId}`);
      await expect(failedPage.getByRole('alert').textContent()).resolves.toContain('simulated provider psp-a is down (connection refused)');
      expect(await failedPage.getByRole('link', { name: 'Baixar relatório (CSV)' }).count()).toBe(0);
      await expectAccessible(failedPage);
      await failedPage.close();
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(390);
      await screenshot(page, 'backoffice-provedores-sem-leitura-390');
    } finally {
      expect((await outage('up')).status).toBe(200);
    }
    expect(await auditBy(operatorId)).toHaveLength(2);
  });

  it('support and compliance read the treasury, the runs, a run and its CSV; a forged reading or run from them is refused (403) and audits nothing', async () => {
    const { runs } = (await gateway.admin('GET', '/admin/v1/reconciliation')).body;
    const run = runs.find((listed) => listed.status === 'done')!;
    const runsBefore = runs.length;
    for (const role of ['support', 'compliance'] as const) {
      const { page, operatorId } = await signedInOperator(gateway, browser, role);
      await page.goto(`${gateway.url}/backoffice/provedores`);
      expect(await page.getByRole('button', { name: 'Ler saldos agora' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Conciliar agora' }).count()).toBe(0);
      expect(await page.locator('select[name="providerId"]').count()).toBe(0);
      expect(await rowsOf(page, 'Tesouraria dos provedores')).toHaveLength(2);
      expect((await rowsOf(page, 'Últimas conciliações')).length).toBeGreaterThan(0);
      await page.locator(`a[href="/backoffice/provedores/conciliacao/${run.runId}"]`).click();
      await page.waitForURL(`${gateway.url}/backoffice/provedores/conciliacao/${run.runId}`);
      expect(await rowsOf(page, 'Diferenças')).toHaveLength(1);
      await expect(page.getByRole('link', { name: 'Baixar relatório (CSV)' }).isVisible()).resolves.toBe(true);
      const report = await page.request.get(`${gateway.url}/backoffice/provedores/conciliacao/${run.runId}.csv`);
      expect(report.status()).toBe(200);
      expect(report.headers()['content-type']).toBe('text/csv; charset=utf-8');
      await expectAccessible(page);

      const treasuryBefore = (await gateway.admin('GET', '/admin/v1/treasury')).body.providers;
      for (const [path, form] of [
        ['/backoffice/provedores/tesouraria', {}],
        ['/backoffice/provedores/conciliacao', { providerId: 'psp-a', de: utcDay(-1), ate: utcDay(0) }],
      ] as const) {
        const refused = await postFromPage(gateway, page, path, form);
        expect(refused.status, `${role} ${path}`).toBe(403);
        expect(refused.text).toContain(messages.roleNotAllowed(role));
      }
      expect((await gateway.admin('GET', '/admin/v1/treasury')).body.providers).toEqual(treasuryBefore);
      expect((await gateway.admin('GET', '/admin/v1/reconciliation')).body.runs).toHaveLength(runsBefore);
      expect(await auditBy(operatorId)).toEqual([]);
    }
  });

  it('a provider put down shows "Fora do ar" with its last error, while the charges go to the other', async () => {
    await resetRules();
    const outage = (mode: 'down' | 'up') => gateway.call('POST', '/sandbox/v1/providers/psp-a/outage', { key: ADMIN_TOKEN, body: { mode } });
    expect((await outage('down')).status).toBe(200);
    try {
      const stateOf = async () => {
        const { providers } = (await gateway.admin('GET', '/admin/v1/providers')).body;
        return providers.find((provider) => provider.id === 'psp-a')!;
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
      expect(first?.[2]).toContain(down.lastError?.message);
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

  it('shows each provider’s caps as configured and those in force at this São Paulo hour; axe passes', async () => {
    const capsRows = async (clockTime: string) => {
      // The gateway's clock to the next HH:MM of São Paulo (UTC−3 all year).
      const [hours = 0, minutes = 0] = clockTime.split(':').map(Number);
      const current = (gateway.clock.now().getTime() - 3 * 3_600_000) % DAY;
      gateway.clock.advance((((hours * 3_600_000 + minutes * 60_000 - current) % DAY) + DAY) % DAY);
      const { page } = await signedInOperator(gateway, browser, 'support');
      await page.goto(`${gateway.url}/backoffice/provedores`);
      await page.getByRole('link', { name: 'Limites por transação' }).click();
      return { page, rows: await rowsOf(page, 'Limites por transação dos provedores') };
    };
    const day = await capsRows('14:00');
    expect(day.rows).toEqual([
      ['psp-a', 'Sem limite', 'Sem limite', '—', 'Sem limite', 'Sem limite'],
      ['psp-b', 'Sem limite', 'R$ 15.000,00', 'das 20:00 às 06:00: R$ 1.000,00', 'Sem limite', 'R$ 15.000,00'],
    ]);
    const night = await capsRows('23:30');
    expect(night.rows[1]).toEqual(['psp-b', 'Sem limite', 'R$ 15.000,00', 'das 20:00 às 06:00: R$ 1.000,00', 'R$ 1.000,00', 'R$ 1.000,00']);
    await expectAccessible(night.page);
    await screenshot(night.page, 'backoffice-provedores-limites-1280');
    await night.page.setViewportSize({ width: 390, height: 844 });
    expect(await night.page.evaluate('document.documentElement.scrollWidth')).toBe(390);
    await expectAccessible(night.page);
    await screenshot(night.page, 'backoffice-provedores-limites-390');
  });
});
