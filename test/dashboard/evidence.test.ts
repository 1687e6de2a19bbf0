import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import type { UserRole } from '../../src/platform/schema.js';
import { createCharge } from '../helpers/api.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { signedInPage as signIn } from '../helpers/dashboard.js';
import { startGateway, type Gateway, type Merchant, NO_CHARGE_FEES } from '../helpers/gateway.js';

/**
 * Evidence files on Disputas (DESIGN.md §19) in a real browser, at 1280 and 390 px: a PDF and a
 * PNG sent from the form beside the defense (the file chosen, the form sent by keyboard), listed
 * with type and size, and downloaded byte for byte; a renamed executable refused with the API's
 * message; a viewer reads and downloads but has no form, and a posted file is 403; a form without
 * its token is 403; another account's case and file are 404; the back-office's MED page lists
 * the files and downloads them. Nothing is kept after a refusal.
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

const FILE_LABEL = 'Evidência (PDF, PNG ou JPEG, até 10 MB)';

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);
function pngImage(): Buffer {
  const png = new PNG({ width: 2, height: 2 });
  png.data.fill(200);
  return PNG.sync.write(png);
}
const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, ...new Array<number>(40).fill(0)]);

const signedInPage = (accountId: string, role: UserRole) => signIn(gateway, browser, accountId, role, { totp: false });

async function merchantWithCase() {
  const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
  const transactionId = await createCharge(gateway, merchant, { amountCents: 5000 });
  expect((await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey })).status).toBe(200);
  const opened = await gateway.admin('POST', `/admin/v1/transactions/${transactionId}/infractions`, { reason: 'fraud' });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  return { merchant, infractionId: opened.body.infractionId };
}

async function filesThroughApi(merchant: Merchant, infractionId: string) {
  const listed = await gateway.call('GET', `/v1/infractions/${infractionId}/evidence`, { key: merchant.apiKey });
  expect(listed.status).toBe(200);
  return listed.body.evidence;
}

async function openDisputes(page: Page): Promise<void> {
  await page.goto(`${gateway.url}/dashboard/disputas`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Disputas');
}

const evidenceSection = (page: Page, infractionId: string) => page.locator(`section[aria-labelledby="evidencias-${infractionId}"]`);

/** A multipart POST from the signed-in browser: the page's token first (unless left out), then the file. */
async function postFile(page: Page, path: string, file: { name: string; mimeType: string; buffer: Buffer }, withToken = true) {
  const token = (await page.locator('input[name="_csrf"]').first().getAttribute('value')) ?? '';
  const response = await page.request.post(`${gateway.url}${path}`, { multipart: { ...(withToken ? { _csrf: token } : {}), file }, maxRedirects: 0 });
  return { status: response.status(), text: await response.text() };
}

function alertIn(html: string): string | undefined {
  return /<p class="alert" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
}

describe('evidence on Disputas', () => {
  it.each([1280, 390])('at %i px finance sends a PDF and a PNG from the form by keyboard, sees them listed and downloads them', async (width) => {
    const { merchant, infractionId } = await merchantWithCase();
    const page = await signedInPage(merchant.accountId, 'finance');
    await page.setViewportSize({ width, height: 900 });
    await openDisputes(page);
    const section = evidenceSection(page, infractionId);
    expect(await section.getByRole('heading', { level: 3 }).textContent()).toBe('Evidências (0 de 5)');
    expect(await section.getByText('Nenhuma evidência enviada.').count()).toBe(1);
    await expectAccessible(page);

    const sendByKeyboard = async (file: { name: string; mimeType: string; buffer: Buffer }) => {
      const input = evidenceSection(page, infractionId).getByLabel(FILE_LABEL);
      await input.setInputFiles(file);
      await input.focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Enviar evidência');
      const answered = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/evidencias'));
      await page.keyboard.press('Enter');
      expect((await answered).status()).toBe(200);
      await page.waitForLoadState();
      await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.evidenceUploaded);
    };
    await sendByKeyboard({ name: 'nota fiscal.pdf', mimeType: 'application/pdf', buffer: PDF });
    const png = pngImage();
    // The declared type is not what decides: the bytes are a PNG.
    await sendByKeyboard({ name: 'foto da entrega.png', mimeType: 'application/octet-stream', buffer: png });

    const files = await filesThroughApi(merchant, infractionId);
    expect(files.map((file) => [file.fileName, file.contentType, file.sizeBytes])).toEqual([
      ['nota fiscal.pdf', 'application/pdf', PDF.length],
      ['foto da entrega.png', 'image/png', png.length],
    ]);
    const listed = evidenceSection(page, infractionId);
    expect(await listed.getByRole('heading', { level: 3 }).textContent()).toBe('Evidências (2 de 5)');
    const links = listed.getByRole('link');
    expect(await links.allTextContents()).toEqual(['nota fiscal.pdf', 'foto da entrega.png']);
    expect(await listed.locator('li').first().textContent()).toMatch(/^nota fiscal\.pdf · PDF, \d+ bytes · enviada em \d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}$/);

    for (const [index, expected] of [PDF, png].entries()) {
      const href = (await links.nth(index).getAttribute('href')) ?? '';
      expect(href).toBe(`/dashboard/disputas/${infractionId}/evidencias/${files[index]?.evidenceId}`);
      const response = await page.request.get(`${gateway.url}${href}`);
      expect(response.status()).toBe(200);
      expect(Buffer.from(await response.body()).equals(expected)).toBe(true);
      expect(response.headers()['content-type']).toBe(index === 0 ? 'application/pdf' : 'image/png');
      expect(response.headers()['content-disposition']).toMatch(/^attachment; filename="/);
      expect(response.headers()['x-content-type-options']).toBe('nosniff');
    }
    // The browser's own download of a link.
    const download = await Promise.all([page.waitForEvent('download'), links.first().click()]).then(([event]) => event);
    expect(download.suggestedFilename()).toBe('nota fiscal.pdf');

    await expectAccessible(page);
    await screenshot(page, `disputas-evidencias-${width}`);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
    await page.context().close();
  });

  it('a renamed executable is refused on the page with the API message; nothing is kept; the form is offered until 5', async () => {
    const { merchant, infractionId } = await merchantWithCase();
    const page = await signedInPage(merchant.accountId, 'owner');
    await openDisputes(page);
    await evidenceSection(page, infractionId).getByLabel(FILE_LABEL).setInputFiles({ name: 'contrato.pdf', mimeType: 'application/pdf', buffer: ELF });
    await evidenceSection(page, infractionId).getByRole('button', { name: 'Enviar evidência' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.evidenceTypeNotAccepted);
    expect(await filesThroughApi(merchant, infractionId)).toEqual([]);
    await expectAccessible(page);

    for (let index = 1; index <= 5; index++) {
      const sent = await postFile(page, `/dashboard/disputas/${infractionId}/evidencias`, {
        name: `doc-${index}.pdf`,
        mimeType: 'application/pdf',
        buffer: PDF,
      });
      expect(sent.status).toBe(200);
    }
    await openDisputes(page);
    expect(await evidenceSection(page, infractionId).getByRole('heading', { level: 3 }).textContent()).toBe('Evidências (5 de 5)');
    expect(await evidenceSection(page, infractionId).getByLabel(FILE_LABEL).count()).toBe(0);
    const sixth = await postFile(page, `/dashboard/disputas/${infractionId}/evidencias`, { name: 'doc-6.pdf', mimeType: 'application/pdf', buffer: PDF });
    expect(sixth.status).toBe(422);
    expect(alertIn(sixth.text)).toBe(messages.evidenceLimitReached);
    await page.context().close();
  });

  it('a viewer reads and downloads the files but has no form, and a posted file is 403', async () => {
    const { merchant, infractionId } = await merchantWithCase();
    const owner = await signedInPage(merchant.accountId, 'owner');
    await openDisputes(owner);
    expect((await postFile(owner, `/dashboard/disputas/${infractionId}/evidencias`, { name: 'a.pdf', mimeType: 'application/pdf', buffer: PDF })).status).toBe(
      200,
    );
    await owner.context().close();

    const page = await signedInPage(merchant.accountId, 'viewer');
    await openDisputes(page);
    const section = evidenceSection(page, infractionId);
    expect(await section.getByLabel(FILE_LABEL).count()).toBe(0);
    expect(await section.getByRole('button', { name: 'Enviar evidência' }).count()).toBe(0);
    const href = (await section.getByRole('link', { name: 'a.pdf' }).getAttribute('href')) ?? '';
    const response = await page.request.get(`${gateway.url}${href}`);
    expect(Buffer.from(await response.body()).equals(PDF)).toBe(true);

    const refused = await postFile(page, `/dashboard/disputas/${infractionId}/evidencias`, { name: 'b.pdf', mimeType: 'application/pdf', buffer: PDF });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(messages.roleNotAllowed('viewer'));
    expect(await filesThroughApi(merchant, infractionId)).toHaveLength(1);
    await expectAccessible(page);
    await page.context().close();
  });

  it('a file posted without the form token, or with it after the file, is 403; nothing is kept', async () => {
    const { merchant, infractionId } = await merchantWithCase();
    const page = await signedInPage(merchant.accountId, 'finance');
    await openDisputes(page);
    const path = `/dashboard/disputas/${infractionId}/evidencias`;
    const missing = await postFile(page, path, { name: 'a.pdf', mimeType: 'application/pdf', buffer: PDF }, false);
    expect(missing.status).toBe(403);
    expect(missing.text).toContain(messages.formExpired);

    const token = (await page.locator('input[name="_csrf"]').first().getAttribute('value')) ?? '';
    const after = await page.request.post(`${gateway.url}${path}`, {
      multipart: { file: { name: 'a.pdf', mimeType: 'application/pdf', buffer: PDF }, _csrf: token },
      maxRedirects: 0,
    });
    expect(after.status()).toBe(403);
    const forged = await page.request.post(`${gateway.url}${path}`, {
      multipart: { _csrf: 'forjado', file: { name: 'a.pdf', mimeType: 'application/pdf', buffer: PDF } },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    expect(await filesThroughApi(merchant, infractionId)).toEqual([]);
    await page.context().close();
  });

  it("another account's case and file are 404", async () => {
    const owner = await merchantWithCase();
    const ownerPage = await signedInPage(owner.merchant.accountId, 'owner');
    await openDisputes(ownerPage);
    expect(
      (await postFile(ownerPage, `/dashboard/disputas/${owner.infractionId}/evidencias`, { name: 'a.pdf', mimeType: 'application/pdf', buffer: PDF })).status,
    ).toBe(200);
    const [file] = await filesThroughApi(owner.merchant, owner.infractionId);
    await ownerPage.context().close();

    const other = await merchantWithCase();
    const page = await signedInPage(other.merchant.accountId, 'owner');
    await openDisputes(page);
    const upload = await postFile(page, `/dashboard/disputas/${owner.infractionId}/evidencias`, { name: 'b.pdf', mimeType: 'application/pdf', buffer: PDF });
    expect(upload.status).toBe(404);
    expect(upload.text).toContain(messages.infractionNotFound);
    const direct = await page.request.get(`${gateway.url}/dashboard/disputas/${owner.infractionId}/evidencias/${file?.evidenceId}`);
    expect(direct.status()).toBe(404);
    const throughOwn = await page.request.get(`${gateway.url}/dashboard/disputas/${other.infractionId}/evidencias/${file?.evidenceId}`);
    expect(throughOwn.status()).toBe(404);
    expect(await throughOwn.text()).toContain(messages.evidenceNotFound);
    expect(await filesThroughApi(owner.merchant, owner.infractionId)).toHaveLength(1);
    await page.context().close();
  });
});

describe('evidence on the back-office', () => {
  it("the MED page lists a running case's files and downloads them, for a support operator too", async () => {
    const { merchant, infractionId } = await merchantWithCase();
    const sent = await fetch(`${gateway.url}/v1/infractions/${infractionId}/evidence`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}` },
      body: (() => {
        const form = new FormData();
        form.append('file', new Blob([pngImage()]), 'print.png');
        return form;
      })(),
    });
    expect(sent.status).toBe(201);
    const { page } = await signedInOperator(gateway, browser, 'support');
    await page.goto(`${gateway.url}/backoffice/med`);
    const section = evidenceSection(page, infractionId);
    expect(await section.getByRole('heading', { level: 3 }).textContent()).toBe('Evidências (1 de 5)');
    const href = (await section.getByRole('link', { name: 'print.png' }).getAttribute('href')) ?? '';
    expect(href).toMatch(new RegExp(`^/backoffice/med/${infractionId}/evidencias/`));
    const response = await page.request.get(`${gateway.url}${href}`);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('image/png');
    expect(Buffer.from(await response.body()).equals(pngImage())).toBe(true);
    expect((await page.request.get(`${gateway.url}/backoffice/med/${infractionId}/evidencias/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b`)).status()).toBe(404);
    await expectAccessible(page);
    await screenshot(page, 'backoffice-med-evidencias');
    await page.context().close();
  });
});
