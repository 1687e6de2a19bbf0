import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import type { OpenApiDocument } from '../helpers/contract.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';

/**
 * The API reference pages (docs/openapi.md, DESIGN.md §24): /docs is the merchant's API,
 * /docs/sandbox and /docs/operador the others; each page shows only its part, the viewer's files
 * come from this server, and the pages read on a phone.
 */

let gateway: Gateway;
let browser: Browser;

beforeAll(async () => {
  gateway = await startGateway();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

const pageDocument = async (prefix: string): Promise<OpenApiDocument & { tags?: { name: string }[]; info: { title: string; description: string } }> => {
  const response = await fetch(`${gateway.url}${prefix}/json`);
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument & { tags?: { name: string }[]; info: { title: string; description: string } };
};

describe('the pages’ documents', () => {
  it('/docs lists the merchant API only, its tags in a merchant’s order, and the webhooks', async () => {
    const document = await pageDocument('/docs');
    const paths = Object.keys(document.paths);
    expect(paths).toContain('/v1/pix');
    expect(paths).toContain('/v1/withdraw');
    expect(paths).toContain('/v1/balance');
    expect(paths.filter((path) => !path.startsWith('/v1/'))).toEqual([]);
    expect(document.tags?.map((tag) => tag.name)).toEqual([
      'Cobranças',
      'QR Codes estáticos',
      'Pix Automático',
      'Saques',
      'Destinatários',
      'Saldo',
      'Transações',
      'Devoluções',
      'Disputas MED',
      'Webhooks',
    ]);
    expect(Object.keys(document.webhooks ?? {})).toContain('transaction.paid');
    expect(document.info.title).toBe('API do lojista · PIX gateway');
    expect(document.info.description).toContain('[API do operador](/docs/operador)');
    expect(document.info.description).toContain('[Sandbox](/docs/sandbox)');
    expect(document.paths['/v1/pix']?.post?.summary).toBe('Cria uma cobrança PIX dinâmica');
    expect(document.paths['/v1/pix']?.post?.operationId).toBe('createCharge');
  });

  it('/docs/sandbox lists the sandbox only; /docs/operador the operator API, then the probes', async () => {
    const sandbox = await pageDocument('/docs/sandbox');
    expect(Object.keys(sandbox.paths).length).toBeGreaterThan(10);
    expect(Object.keys(sandbox.paths).filter((path) => !path.startsWith('/sandbox/v1/'))).toEqual([]);
    expect(sandbox.webhooks).toBeUndefined();
    expect(sandbox.info.description).toContain('[API do lojista](/docs)');

    const operator = await pageDocument('/docs/operador');
    const paths = Object.keys(operator.paths);
    expect(paths).toContain('/admin/v1/accounts');
    expect(paths.filter((path) => !path.startsWith('/admin/v1/')).sort()).toEqual(['/healthz', '/metrics', '/readyz']);
    expect(operator.tags?.map((tag) => tag.name).at(0)).toBe('Operador: contas');
    expect(operator.tags?.map((tag) => tag.name).at(-1)).toBe('Operação');
  });

  it('the pages allow scripts, styles and requests to this server only', async () => {
    for (const path of ['/docs', '/docs/sandbox', '/docs/operador', '/docs/static/swagger-ui-bundle.js']) {
      const response = await fetch(gateway.url + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-security-policy'), path).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
    }
    // The dashboard keeps its own policy.
    expect((await fetch(`${gateway.url}/dashboard/entrar`)).headers.get('content-security-policy')).not.toContain('connect-src');
  });

  it('/openapi.json stays the whole document', async () => {
    const document = (await gateway.call<OpenApiDocument>('GET', '/openapi.json')).body;
    const paths = Object.keys(document.paths);
    expect(paths).toContain('/v1/pix');
    expect(paths).toContain('/sandbox/v1/pix/{id}/pay');
    expect(paths).toContain('/admin/v1/accounts');
    expect(paths).toContain('/healthz');
  });
});

type Visit = { page: Page; outside: string[]; failed: string[]; errors: string[] };

/** Opens a reference page at the width given, recording every request and console error. */
async function visit(path: string, width: number): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width, height: 844 } });
  const page = await context.newPage();
  const origin = new URL(gateway.url).origin;
  const outside: string[] = [];
  const failed: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:')) outside.push(url);
  });
  page.on('requestfailed', (request) => failed.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  const response = await page.goto(gateway.url + path);
  expect(response?.status()).toBe(200);
  await page.locator('.opblock').first().waitFor();
  await page.waitForLoadState('networkidle');
  return { page, outside, failed, errors };
}

describe('the pages in a browser', () => {
  it('/docs: the merchant’s operations in Portuguese, nothing fetched outside the server, no vendor logo, no console error', async () => {
    const { page, outside, failed, errors } = await visit('/docs', 1280);
    expect(outside).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    expect(await page.locator('html').getAttribute('lang')).toBe('pt-BR');
    expect(await page.title()).toBe('API do lojista · PIX gateway');
    // Swagger UI's bar and logo are not there; nor is any image of the vendor's.
    expect(await page.locator('.topbar').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/theme\/favicon\.svg$/);
    const tags = await page.locator('.opblock-tag-section h3').allInnerTexts();
    expect(tags.map((tag) => tag.split('\n')[0]?.trim()).slice(0, 3)).toEqual(['Cobranças', 'QR Codes estáticos', 'Pix Automático']);
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    expect(paths.length).toBeGreaterThan(20);
    // The webhooks are listed by their event's name; every path is the merchant's.
    expect(paths.map((path) => path.replace(/\u200b/g, '')).filter((path) => path.startsWith('/') && !path.startsWith('/v1/'))).toEqual([]);
    expect(paths.map((path) => path.replace(/\u200b/g, ''))).toContain('transaction.paid');
    expect(await page.getByText('Cria uma cobrança PIX dinâmica').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'API do operador' }).getAttribute('href')).toBe('/docs/operador');
    expect(await page.getByRole('link', { name: 'Sandbox' }).getAttribute('href')).toBe('/docs/sandbox');
    // Creating a charge shows its example request and answer.
    await page.locator('#operations-Cobranças-createCharge .opblock-summary-control').click();
    const body = page.locator('#operations-Cobranças-createCharge .opblock-body');
    await body.waitFor();
    const examples = await body.locator('.microlight').allInnerTexts();
    expect(examples.some((text) => text.includes('"externalRef": "pedido-1234"') && text.includes('"amountCents": 15000'))).toBe(true);
    expect(examples.some((text) => text.includes('"status": "pending"') && text.includes('"pixPayload": "000201'))).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'docs-merchant-desktop');
    await page.context().close();
  });

  it.each([
    ['/docs', 'docs-merchant-phone'],
    ['/docs/operador', 'docs-operator-phone'],
    ['/docs/sandbox', 'docs-sandbox-phone'],
  ])('%s at 390 px: no sideways scrolling, an open operation included; axe clean', async (path, name) => {
    const { page, outside, errors } = await visit(path, 390);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    // The first operation open: its parameters, body and answers fit too.
    await page.locator('.opblock-summary-control').first().click();
    await page.locator('.opblock-body').first().waitFor();
    const widths = await page.evaluate<{ scroll: number; viewport: number }>('({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth })');
    expect(widths.scroll).toBeLessThanOrEqual(widths.viewport);
    await expectAccessible(page);
    await screenshot(page, name);
    await page.context().close();
  });

  it('/docs/operador lists the operator API and the probes, not the merchant’s paths', async () => {
    const { page } = await visit('/docs/operador', 1280);
    const paths = (await page.locator('.opblock-summary-path').allInnerTexts()).map((path) => path.replace(/\u200b/g, ''));
    expect(paths).toContain('/admin/v1/accounts');
    expect(paths.slice(-3).sort()).toEqual(['/healthz', '/metrics', '/readyz']);
    expect(paths.filter((path) => path.startsWith('/v1/') || path.startsWith('/sandbox/'))).toEqual([]);
    expect(await page.title()).toBe('API do operador · PIX gateway');
    await page.context().close();
  });
});
