import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { postFromPage, signedInUser } from '../helpers/dashboard.js';
import { backend, startGateway, type Gateway } from '../helpers/gateway.js';

/**
 * Marcações de fraude in the back-office (DESIGN.md §19): compliance adds and removes marks (the
 * API's rules and messages, documents masked on the page and in the audit log), support reads and
 * a forged POST from it is refused; CSRF; axe. And the dashboard's recipient form answers a marked
 * key with the refusal's exact text.
 */
let gateway: Gateway;
let browser: Browser;

const REFUSED = 'Chave PIX com restrição por suspeita de fraude. Saque não realizado.';

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();

async function markRows(page: Page): Promise<string[][]> {
  const rows = page.getByRole('region', { name: 'Marcações ativas' }).locator('tbody tr');
  const texts: string[][] = [];
  for (const row of await rows.all()) texts.push((await row.getByRole('cell').allInnerTexts()).map(normalized).slice(0, 3));
  return texts;
}

const activeMarks = async () => (await gateway.admin('GET', '/admin/v1/fraud-marks?limit=100')).body.marks as { id: string; kind: string; value: string }[];
const auditBy = async (operatorId: string) =>
  (await gateway.admin('GET', `/admin/v1/audit?actor=operator:${operatorId}`)).body.entries as {
    action: string;
    objectId: string | null;
    changes: Record<string, unknown>;
  }[];

async function addMark(page: Page, kind: 'Chave PIX' | 'Documento (CPF/CNPJ)', value: string, reason: string) {
  await page.getByLabel('Tipo').selectOption({ label: kind });
  await page.getByLabel('Chave ou documento').fill(value);
  await page.getByLabel('Motivo').fill(reason);
  await page.getByRole('button', { name: 'Marcar' }).click();
}

describe(`back-office: Marcações de fraude (${backend})`, () => {
  it('compliance adds a document and a key, sees them masked, is told what is wrong, and removes one; each change audited', async () => {
    const { page, operatorId } = await signedInOperator(gateway, browser, 'compliance');
    // Reached from Alertas (the menu has no room for one more item at 1280 px with its queue counts).
    await (await menuLink(page, 'Alertas')).click();
    await page.getByRole('link', { name: 'Marcações de fraude' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/marcacoes`);
    expect(await page.getByText('Nenhuma marcação ativa.').count()).toBe(1);
    await expectAccessible(page);

    await addMark(page, 'Documento (CPF/CNPJ)', '390.533.447-05', 'golpe do falso parente');
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.fraudMarkAdded);
    await addMark(page, 'Chave PIX', 'Laranja@Example.com', 'conta laranja');
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.fraudMarkAdded);
    expect(await markRows(page)).toEqual([
      ['Chave PIX (email)', 'laranja@example.com', 'conta laranja'],
      ['Documento (CPF/CNPJ)', '***.533.447-**', 'golpe do falso parente'],
    ]);
    expect(await page.content()).not.toContain('39053344705');
    await expectAccessible(page);
    await screenshot(page, 'backoffice-marcacoes');

    // A value that is not a key: the API's message, the form kept, nothing written.
    await addMark(page, 'Chave PIX', 'não é chave', 'teste');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.fraudMarkKeyInvalid);
    expect(await page.getByLabel('Chave ou documento').inputValue()).toBe('não é chave');
    await expectAccessible(page);
    await addMark(page, 'Documento (CPF/CNPJ)', '39053344705', 'de novo');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.fraudMarkExists);
    expect(await activeMarks()).toHaveLength(2);

    const email = (await activeMarks()).find((mark) => mark.kind === 'key');
    await page.getByRole('region', { name: 'Marcações ativas' }).locator('tbody tr').first().getByRole('button', { name: 'Remover' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.fraudMarkRemoved);
    expect(await markRows(page)).toEqual([['Documento (CPF/CNPJ)', '***.533.447-**', 'golpe do falso parente']]);
    expect((await activeMarks()).map((mark) => mark.value)).toEqual(['39053344705']);

    const entries = await auditBy(operatorId);
    expect(entries.map((entry) => entry.action)).toEqual(['DELETE /admin/v1/fraud-marks/:id', 'POST /admin/v1/fraud-marks', 'POST /admin/v1/fraud-marks']);
    expect(entries[0]).toMatchObject({ objectId: email?.id, changes: { before: { id: email?.id, value: 'laranja@example.com' } } });
    expect(entries[2]?.changes).toMatchObject({
      input: { kind: 'document', value: '***.533.447-**', reason: 'golpe do falso parente' },
      after: { kind: 'document', value: '***.533.447-**', createdBy: `operator:${operatorId}` },
    });
    expect(JSON.stringify(entries)).not.toContain('39053344705');
    await page.context().close();
  });

  it('support reads the list; a forged POST from it is refused (403), changing and auditing nothing', async () => {
    const { page, operatorId } = await signedInOperator(gateway, browser, 'support');
    await page.goto(`${gateway.url}/backoffice/marcacoes`);
    expect(await page.getByText('Seu papel (support) permite ver, não alterar.').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Marcar' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remover' }).count()).toBe(0);
    await expectAccessible(page);
    const before = await activeMarks();
    const refused = await postFromPage(gateway, page, '/backoffice/marcacoes', { kind: 'document', value: '11144477735', reason: 'forjado' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(messages.roleNotAllowed('support'));
    const [first] = before;
    const removal = await postFromPage(gateway, page, `/backoffice/marcacoes/${first?.id}/remover`);
    expect(removal.status).toBe(403);
    expect(await activeMarks()).toEqual(before);
    expect(await auditBy(operatorId)).toEqual([]);
    await page.context().close();
  });

  it('a POST without the CSRF token is refused (403)', async () => {
    const { page } = await signedInOperator(gateway, browser, 'admin');
    const before = await activeMarks();
    const noToken = await page.request.post(`${gateway.url}/backoffice/marcacoes`, {
      form: { kind: 'document', value: '11144477735', reason: 'x' },
      maxRedirects: 0,
    });
    expect(noToken.status()).toBe(403);
    expect(await noToken.text()).toContain(messages.formExpired);
    expect(await activeMarks()).toEqual(before);
    await page.context().close();
  });
});

describe(`dashboard: a recipient with a fraud-marked key (${backend})`, () => {
  it('the form shows the refusal, keeps what was typed and registers nothing', async () => {
    expect((await gateway.admin('POST', '/admin/v1/fraud-marks', { kind: 'key', value: 'golpe@example.com', reason: 'denúncia' })).status).toBe(201);
    const merchant = await gateway.createMerchant();
    const { page } = await signedInUser(gateway, browser, merchant.accountId, 'finance', { totp: true });
    await (await menuLink(page, 'Destinatários')).click();
    await page.getByLabel('Nome ou razão social').fill('Recebedor Suspeito');
    await page.getByLabel('Documento (CPF ou CNPJ)').fill('111.444.777-35');
    await page.getByLabel('Tipo da chave PIX').selectOption('email');
    await page.getByLabel('Chave PIX', { exact: true }).fill('Golpe@Example.com');
    await page.getByRole('button', { name: 'Enviar para análise' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(REFUSED);
    expect(await page.getByLabel('Chave PIX', { exact: true }).inputValue()).toBe('Golpe@Example.com');
    const recipients = await gateway.admin('GET', `/admin/v1/recipients?accountId=${merchant.accountId}`);
    expect(recipients.body.recipients).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, 'dashboard-destinatario-marcado');
    await page.context().close();
  });
});
