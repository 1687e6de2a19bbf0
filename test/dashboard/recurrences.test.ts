import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { dayAfter, dayOf } from '../../src/platform/saoPauloDay.js';
import type { UserRole } from '../../src/platform/schema.js';
import { breakableMoney, expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { postFromPage, signedInPage as signIn } from '../helpers/dashboard.js';
import { backend, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Recorrências (Pix Automático, DESIGN.md §17) in a real browser: recurrences created through the
 * API, authorized and debited through the sandbox as the gateway's clock moves, listed a page at a
 * time and shown with their cycles (a skipped one, one paid after a failed debit, a pending one,
 * each linking to its charge); cancellation with the keyboard through the API's service; roles,
 * CSRF, other accounts' and malformed ids refused; axe at 390 and 1280 px.
 */
let gateway: Gateway;
let browser: Browser;

const DAY_MS = 86_400_000;
/** 1% of each cycle, so a cycle's fee shows on its charge's page. */
const FEES = { fees: { pixIn: { fixedCents: 0, bps: 100, minCents: 0, maxCents: 1_000_000 } }, limits: { chargeMaxCents: 1_000_000 } };

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const signedInPage = (accountId: string, role: UserRole) => signIn(gateway, browser, accountId, role, { totp: false });
const today = () => dayOf(gateway.clock.now());
const advanceDays = (days: number) => gateway.clock.advance(days * DAY_MS);
const brazilian = (day: string) => day.split('-').reverse().join('/');

const createByApi = async (merchant: Merchant, overrides: Record<string, unknown> = {}) => {
  const created = await gateway.call('POST', '/v1/recurrences', {
    key: merchant.apiKey,
    body: {
      contract: 'ACADEMIA-001',
      debtor: { name: 'Maria Pagadora', document: { number: '529.982.247-25', type: 'cpf' } },
      object: 'Mensalidade academia',
      frequency: 'weekly',
      amountCents: 5_000,
      startDate: dayAfter(today(), 12),
      retryPolicy: 'three_in_seven_days',
      ...overrides,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
};
const sandbox = async <P extends string>(merchant: Merchant, path: P, body?: Record<string, unknown>) => {
  const answer = await gateway.call('POST', `/sandbox/v1/recurrences/${path}`, { key: merchant.apiKey, body });
  expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
};
const readByApi = async (merchant: Merchant, id: string) => (await gateway.call('GET', `/v1/recurrences/${id}`, { key: merchant.apiKey })).body;
/** The worker's step, run until it has nothing left to do. */
const runWorker = async () => {
  while ((await gateway.services.recurrences.createDueCycles()) > 0);
};

/**
 * A weekly recurrence with three cycles: cycle 1 skipped (the worker reached it a day before its
 * date), cycle 2 debited after one failed attempt (paid), cycle 3 pending. The clock moves 12 days.
 */
async function recurrenceWithCycles(merchant: Merchant, overrides: Record<string, unknown> = {}) {
  const start = dayAfter(today(), 4);
  const id = await createByApi(merchant, { startDate: start, externalRef: `academia-${Date.now()}`, ...overrides });
  await sandbox(merchant, `${id}/authorize`);
  advanceDays(3);
  await runWorker(); // cycle 1 skipped (1 day left), cycle 2 charged
  advanceDays(8); // cycle 2's day
  await runWorker(); // cycle 3 charged (7 days ahead)
  expect((await sandbox(merchant, `${id}/cycles/2/debit`, { outcome: 'failed' })).status).toBe('pending'); // retried tomorrow
  advanceDays(1);
  expect((await sandbox(merchant, `${id}/cycles/2/debit`, { outcome: 'paid' })).status).toBe('paid');
  const recurrence = await readByApi(merchant, id);
  expect(recurrence.cycles.map((cycle) => cycle.status)).toEqual(['skipped', 'paid', 'pending']);
  return { id, start, recurrence };
}

/** The page does not scroll sideways (a phone's 390 px). */
const scrollWidth = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth');

/** The value beside a term of the page's description list. */
const valueOf = (page: Page, term: string) => page.locator(`xpath=//dt[normalize-space()="${term}"]/following-sibling::dd[1]`).textContent();
const rowsOf = async (page: Page, region: string) => {
  const rows = page.getByRole('region', { name: region }).locator('tbody tr');
  const cells: string[][] = [];
  for (const row of await rows.all()) cells.push((await row.locator('td').allTextContents()).map((cell) => cell.trim()));
  return cells;
};

describe(`Recorrências (${backend})`, () => {
  it('lists recurrences from Cobranças and shows one with its cycles: skipped, paid after a failure, pending, each linking to its charge', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const { id, start, recurrence } = await recurrenceWithCycles(merchant);
    const variable = await createByApi(merchant, {
      contract: 'CLUBE-VINHO-7',
      debtor: { name: 'João Assinante', document: { number: '11.222.333/0001-81', type: 'cnpj' } },
      frequency: 'monthly',
      amountCents: 9_990,
      maxAmountCents: 15_000,
      retryPolicy: 'none',
    });
    const page = await signedInPage(merchant.accountId, 'finance');
    await (await menuLink(page, 'Cobranças')).click();
    await page.getByRole('link', { name: 'Recorrências (Pix Automático)' }).click();
    await page.waitForURL(/\/dashboard\/recorrencias$/);
    const variableRow = await readByApi(merchant, variable);
    // Newest first: the variable one, awaiting the payer; then the weekly one, authorized.
    const rows = await rowsOf(page, 'Recorrências');
    expect(rows.map((row) => row.slice(0, 6))).toEqual([
      ['CLUBE-VINHO-7', 'João Assinante', 'Mensal', 'R$ 99,90, variável até R$ 150,00', 'Aguardando autorização', brazilian(variableRow.startDate)],
      ['ACADEMIA-001', 'Maria Pagadora', 'Semanal', 'R$ 50,00', 'Autorizada', brazilian(recurrence.nextCycleDate!)],
    ]);
    expect(rows.map((row) => row[6])).toEqual(rows.map(() => expect.stringMatching(/^\d{2}\/\d{2}\/\d{4}/)));
    expect(await page.getByRole('navigation', { name: 'Páginas' }).count()).toBe(0);
    expect(await breakableMoney(page)).toEqual([]);
    expect(await scrollWidth(page)).toBe(390);
    await expectAccessible(page);
    await screenshot(page, 'recorrencias-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page);
    await screenshot(page, 'recorrencias-1280');

    await page.getByRole('link', { name: 'Ver a recorrência ACADEMIA-001 de Maria Pagadora' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/recorrencias/${id}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Recorrência ACADEMIA-001');
    expect(await valueOf(page, 'Status')).toBe('Autorizada');
    expect(await valueOf(page, 'Pagador')).toBe('Maria Pagadora (CPF ***.982.247-**)');
    expect(await valueOf(page, 'Objeto')).toBe('Mensalidade academia');
    expect(await valueOf(page, 'Frequência')).toBe('Semanal');
    expect(await valueOf(page, 'Valor por ciclo')).toBe('R$ 50,00');
    expect(await valueOf(page, 'Início')).toBe(brazilian(start));
    expect(await valueOf(page, 'Fim')).toBe('Sem data de fim');
    expect(await valueOf(page, 'Novas tentativas')).toBe('Até 3 novas tentativas, em até 7 dias após o vencimento');
    expect(await valueOf(page, 'Próximo ciclo')).toBe(brazilian(recurrence.nextCycleDate!));
    expect(await valueOf(page, 'idRec')).toBe(recurrence.providerRecurrenceId);
    expect(await valueOf(page, 'externalRef')).toBe(recurrence.externalRef);
    const { cycles } = recurrence;
    expect(await rowsOf(page, 'Ciclos da recorrência')).toEqual([
      ['1', brazilian(start), brazilian(start), '0', '—', 'Pulado', 'Sem cobrança'],
      ['2', brazilian(dayAfter(start, 7)), brazilian(dayAfter(start, 8)), '1', 'R$ 50,00', 'Pago', 'Ver'],
      ['3', brazilian(dayAfter(start, 14)), brazilian(dayAfter(start, 14)), '0', 'R$ 50,00', 'Aguardando débito', 'Ver'],
    ]);
    expect(await page.getByText('Pulado: o ciclo foi alcançado a menos de 2 dias da data').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Cancelar recorrência' }).count()).toBe(1);
    expect(await breakableMoney(page)).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, 'recorrencia-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await scrollWidth(page)).toBe(390);
    await expectAccessible(page);
    await screenshot(page, 'recorrencia-390');

    // A cycle's charge: its page, which links back and offers no plain cancellation (the recurrence's page cancels).
    await page.getByRole('link', { name: 'Ver a cobrança do ciclo 3' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/cobrancas/${cycles[2]!.transactionId}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Cobrança de R$ 50,00');
    expect(await valueOf(page, 'Status')).toBe('Aguardando pagamento');
    expect(await page.getByRole('button', { name: 'Cancelar cobrança' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Ver a recorrência (ciclo 3)' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/recorrencias/${id}`);
    await page.getByRole('link', { name: 'Ver a cobrança do ciclo 2' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/cobrancas/${cycles[1]!.transactionId}`);
    expect(await valueOf(page, 'Status')).toBe('Paga');
    expect(await valueOf(page, 'Líquido')).toBe('R$ 49,50');

    // The variable one, before any cycle: its terms and what happens next.
    await page.goto(`${gateway.url}/dashboard/recorrencias/${variable}`);
    expect(await valueOf(page, 'Status')).toBe('Aguardando autorização');
    expect(await valueOf(page, 'Pagador')).toBe('João Assinante (CNPJ **.222.333/0001-**)');
    expect(await valueOf(page, 'Valor por ciclo')).toBe('R$ 99,90, variável até R$ 150,00');
    expect(await valueOf(page, 'Novas tentativas')).toBe('Não: um débito que falha encerra o ciclo');
    expect(await valueOf(page, 'Autorização até')).toMatch(/^\d{2}\/\d{2}\/\d{4}/);
    expect(await page.locator('.empty').innerText()).toBe(
      `Nenhum ciclo ainda. Depois que o pagador autorizar, a cobrança de cada ciclo é criada de 10 a 2 dias antes da data (o primeiro em ${brazilian(variableRow.startDate)}) e aparece aqui.`,
    );
    expect(await scrollWidth(page)).toBe(390);
    await expectAccessible(page);
    await screenshot(page, 'recorrencia-aguardando-390');
    await page.context().close();
  });

  it('a new account: the list says how to create the first recurrence; a viewer reads it too', async () => {
    const merchant = await gateway.createMerchant(FEES);
    for (const role of ['owner', 'viewer'] as const) {
      const page = await signedInPage(merchant.accountId, role);
      const response = await page.goto(`${gateway.url}/dashboard/recorrencias`);
      expect(response?.status()).toBe(200);
      expect(await page.locator('.empty').innerText()).toBe(
        'Nenhuma recorrência ainda. Crie a primeira pela API (POST /v1/recurrences, veja a referência): depois que o pagador autorizar, cada ciclo aparece aqui.',
      );
      expect(await page.locator('.empty').getByRole('link', { name: 'a referência' }).getAttribute('href')).toBe('/docs');
      await expectAccessible(page);
      if (role === 'owner') await screenshot(page, 'recorrencias-vazio-390');
      await page.context().close();
    }
  });

  it('cancels a recurrence with the keyboard: its pending cycle is cancelled with it, by the API service; again is refused (422)', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const { id } = await recurrenceWithCycles(merchant);
    const page = await signedInPage(merchant.accountId, 'owner');
    await page.goto(`${gateway.url}/dashboard/recorrencias/${id}`);
    // Right after the menu (folded into its Menu button at 390 px), the first stop of the content is the cancel button.
    await page.getByRole('navigation', { name: 'Principal' }).getByText('Menu', { exact: true }).focus();
    await page.keyboard.press('Tab');
    expect((await page.locator(':focus').textContent())?.trim()).toBe('Cancelar recorrência');
    await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith(`/dashboard/recorrencias/${id}/cancelar`) && answer.status() === 200),
      page.keyboard.press('Enter'),
    ]);
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.recurrenceCancelledNotice);
    expect(await valueOf(page, 'Status')).toBe('Cancelada');
    expect(await valueOf(page, 'Cancelada por')).toBe('Recebedor (você)');
    expect(await valueOf(page, 'Próximo ciclo')).toBe('—');
    expect((await rowsOf(page, 'Ciclos da recorrência')).map((row) => row[5])).toEqual(['Pulado', 'Pago', 'Cancelado']);
    expect(await page.getByRole('button', { name: 'Cancelar recorrência' }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'recorrencia-cancelada-390');

    const read = await readByApi(merchant, id);
    expect(read).toMatchObject({ status: 'cancelled', cancelledBy: 'merchant', nextCycleDate: null });
    expect(read.cycles.map((cycle) => cycle.status)).toEqual(['skipped', 'paid', 'cancelled']);
    const events = await gateway.database.db.selectFrom('events').select(['name', 'payload']).where('name', '=', 'recurrence.cancelled').execute();
    expect(events.filter((event) => JSON.parse(event.payload).id === id)).toHaveLength(1);
    const cancelledCharge = await gateway.database.db
      .selectFrom('events')
      .select('name')
      .where('transactionId', '=', read.cycles[2]!.transactionId!)
      .where('name', '=', 'transaction.cancelled')
      .execute();
    expect(cancelledCharge).toHaveLength(1);

    // A page left open from before: the service's refusal, with its status.
    const again = await postFromPage(gateway, page, `/dashboard/recorrencias/${id}/cancelar`);
    expect(again.status).toBe(422);
    expect(again.text).toContain(messages.recurrenceNotCancellable('cancelled'));
    await page.context().close();
  });

  it("changes a variable recurrence's amount with the keyboard: over the ceiling the API's message keeps what was typed; a viewer, a forged or missing token and another account are refused", async () => {
    const merchant = await gateway.createMerchant(FEES);
    const id = await createByApi(merchant, { contract: 'ENERGIA-12', maxAmountCents: 8_000 });
    const fixed = await createByApi(merchant, { contract: 'FIXA-1' });
    const page = await signedInPage(merchant.accountId, 'owner');
    await page.goto(`${gateway.url}/dashboard/recorrencias/${id}`);
    expect(await valueOf(page, 'Dias úteis')).toBe('Não: os ciclos vencem em dias corridos');
    // Right after the menu (its Menu button), the first stop of the content is the amount.
    await page.getByRole('navigation', { name: 'Principal' }).getByText('Menu', { exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('name')).toBe('amount');
    await page.keyboard.type('90,00');
    await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith(`/dashboard/recorrencias/${id}/valor`) && answer.status() === 400),
      page.keyboard.press('Enter'),
    ]);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.recurrenceAmountAboveCeiling(8_000));
    expect(await page.getByLabel('Valor dos próximos ciclos (R$)').inputValue()).toBe('90,00');
    expect((await readByApi(merchant, id)).amountCents).toBe(5_000);
    await expectAccessible(page);
    await screenshot(page, 'recorrencia-valor-recusado-390');

    await page.getByLabel('Valor dos próximos ciclos (R$)').fill('72,50');
    await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith(`/dashboard/recorrencias/${id}/valor`) && answer.status() === 200),
      page.getByLabel('Valor dos próximos ciclos (R$)').press('Enter'),
    ]);
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.recurrenceAmountChangedNotice);
    expect(await valueOf(page, 'Valor por ciclo')).toBe('R$ 72,50, variável até R$ 80,00');
    expect((await readByApi(merchant, id)).amountCents).toBe(7_250);
    expect(await scrollWidth(page)).toBe(390);
    await expectAccessible(page);
    await screenshot(page, 'recorrencia-valor-alterado-390');

    // A fixed recurrence offers no amount to change, and the server refuses one.
    await page.goto(`${gateway.url}/dashboard/recorrencias/${fixed}`);
    expect(await page.getByLabel('Valor dos próximos ciclos (R$)').count()).toBe(0);
    const onFixed = await postFromPage(gateway, page, `/dashboard/recorrencias/${fixed}/valor`, { amount: '60,00' });
    expect(onFixed.status).toBe(422);
    expect(onFixed.text).toContain(messages.recurrenceAmountFixed);
    // Without its token, or with a forged one.
    const tokenless: Record<string, string>[] = [{ amount: '60,00' }, { amount: '60,00', _csrf: 'forjado' }];
    for (const form of tokenless) {
      const refused = await page.request.post(`${gateway.url}/dashboard/recorrencias/${id}/valor`, { form, maxRedirects: 0 });
      expect(refused.status()).toBe(403);
    }
    await page.context().close();

    const viewer = await signedInPage(merchant.accountId, 'viewer');
    await viewer.goto(`${gateway.url}/dashboard/recorrencias/${id}`);
    expect(await viewer.getByLabel('Valor dos próximos ciclos (R$)').count()).toBe(0);
    expect(await viewer.getByText('Seu papel permite ver, não alterar o valor de recorrências.').count()).toBe(1);
    const forged = await postFromPage(gateway, viewer, `/dashboard/recorrencias/${id}/valor`, { amount: '60,00' });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain(messages.roleNotAllowed('viewer'));
    await viewer.context().close();

    const other = await signedInPage((await gateway.createMerchant(FEES)).accountId, 'owner');
    await other.goto(`${gateway.url}/dashboard/recorrencias`);
    const elsewhere = await postFromPage(gateway, other, `/dashboard/recorrencias/${id}/valor`, { amount: '60,00' });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toContain(messages.recurrenceNotFound);
    await other.context().close();
    expect((await readByApi(merchant, id)).amountCents).toBe(7_250);
  });

  it('a viewer or a developer sees no cancel button and the server refuses their cancellation (403); nothing changes', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const id = await createByApi(merchant);
    for (const role of ['viewer', 'developer'] as const) {
      const page = await signedInPage(merchant.accountId, role);
      await page.goto(`${gateway.url}/dashboard/recorrencias/${id}`);
      expect(await valueOf(page, 'Status')).toBe('Aguardando autorização');
      expect(await page.getByRole('button', { name: 'Cancelar recorrência' }).count()).toBe(0);
      expect(await page.getByText('Seu papel permite ver, não cancelar recorrências.').count()).toBe(1);
      expect(await scrollWidth(page)).toBe(390);
      await expectAccessible(page);
      if (role === 'viewer') await screenshot(page, 'recorrencia-leitor-390');
      const forged = await postFromPage(gateway, page, `/dashboard/recorrencias/${id}/cancelar`);
      expect(forged.status).toBe(403);
      expect(forged.text).toContain(messages.roleNotAllowed(role));
      expect((await readByApi(merchant, id)).status).toBe('awaiting_authorization');
      await page.context().close();
    }
  });

  it('a cancellation without its CSRF token is refused (403): the recurrence stays as it was', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const id = await createByApi(merchant);
    const page = await signedInPage(merchant.accountId, 'owner');
    await page.goto(`${gateway.url}/dashboard/recorrencias/${id}`);
    const refused = await page.request.post(`${gateway.url}/dashboard/recorrencias/${id}/cancelar`, { form: {}, maxRedirects: 0 });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain(messages.formExpired);
    const forgedToken = await page.request.post(`${gateway.url}/dashboard/recorrencias/${id}/cancelar`, { form: { _csrf: 'forjado' }, maxRedirects: 0 });
    expect(forgedToken.status()).toBe(403);
    expect((await readByApi(merchant, id)).status).toBe('awaiting_authorization');
    await page.context().close();
  });

  it("another account's recurrence, its cancellation and a malformed id are not found (404); its list does not show it", async () => {
    const merchant = await gateway.createMerchant(FEES);
    const theirs = await createByApi(merchant, { contract: 'DE-OUTRA-CONTA' });
    const other = await gateway.createMerchant(FEES);
    const page = await signedInPage(other.accountId, 'owner');
    for (const path of [`/dashboard/recorrencias/${theirs}`, '/dashboard/recorrencias/nao-existe', `/dashboard/recorrencias/${theirs.toUpperCase()}x`]) {
      const response = await page.goto(`${gateway.url}${path}`);
      expect(response?.status(), path).toBe(404);
      expect(await page.getByRole('alert').textContent()).toBe(messages.recurrenceNotFound);
    }
    await expectAccessible(page);
    await page.goto(`${gateway.url}/dashboard/recorrencias`);
    expect(await page.getByText('DE-OUTRA-CONTA').count()).toBe(0);
    for (const path of [`/dashboard/recorrencias/${theirs}/cancelar`, '/dashboard/recorrencias/nao-existe/cancelar']) {
      const refused = await postFromPage(gateway, page, path);
      expect(refused.status, path).toBe(404);
      expect(refused.text).toContain(messages.recurrenceNotFound);
    }
    expect((await readByApi(merchant, theirs)).status).toBe('awaiting_authorization');
    await page.context().close();
  });

  it('pages through 51 recurrences 50 at a time (Próxima página, Mais recentes); a cursor not of the account is a 400 with the API message', async () => {
    const merchant = await gateway.createMerchant(FEES);
    const ids: string[] = [];
    for (let index = 1; index <= 51; index++) ids.push(await createByApi(merchant, { contract: `CONTRATO-${String(index).padStart(2, '0')}` }));
    const page = await signedInPage(merchant.accountId, 'viewer');
    await page.goto(`${gateway.url}/dashboard/recorrencias`);
    const contracts = async () => (await rowsOf(page, 'Recorrências')).map((row) => row[0]);
    const first = await contracts();
    expect(first).toHaveLength(50);
    expect(first[0]).toBe('CONTRATO-51');
    expect(first[49]).toBe('CONTRATO-02');
    expect(await page.getByRole('link', { name: 'Mais recentes' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Próxima página' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/recorrencias?apos=${ids[1]}`);
    expect(await contracts()).toEqual(['CONTRATO-01']);
    expect(await page.getByRole('link', { name: 'Próxima página' }).count()).toBe(0);
    await expectAccessible(page);
    await page.goBack();
    await page.waitForURL(`${gateway.url}/dashboard/recorrencias`);
    await page.goForward();
    await page.getByRole('link', { name: 'Mais recentes' }).click();
    await page.waitForURL(`${gateway.url}/dashboard/recorrencias`);
    expect(await contracts()).toEqual(first);

    const elsewhere = await createByApi(await gateway.createMerchant(FEES));
    for (const cursor of ['nao-e-um-id', elsewhere, '01900000-0000-7000-8000-000000000000']) {
      const response = await page.goto(`${gateway.url}/dashboard/recorrencias?apos=${cursor}`);
      expect(response?.status(), cursor).toBe(400);
      expect(await page.getByRole('alert').textContent()).toBe(messages.recurrenceStartingAfterInvalid);
      expect(await page.getByRole('region', { name: 'Recorrências' }).count()).toBe(0);
    }
    await expectAccessible(page);
    await screenshot(page, 'recorrencias-cursor-recusado-390');
    await page.context().close();
  });
});
