import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { OperatorRole } from '../../src/platform/schema.js';
import { codeFor, PASSWORD } from './dashboard.js';
import type { Gateway } from './gateway.js';

let counter = 0;

/** A signed-in operator of the browser tests: its page (left on Filas), TOTP secret, id and e-mail. */
export type SignedInOperator = { page: Page; secret: string; operatorId: string; email: string };

/**
 * A new operator with a password, signed in through the pages on a new browser context: the
 * first sign-in enrols TOTP (the key read from the page, its first code completes the sign-in).
 * `base`: another process of the same gateway (a peer), when not the gateway's own address.
 */
export async function signedInOperator(gateway: Gateway, browser: Browser, role: OperatorRole, base = gateway.url): Promise<SignedInOperator> {
  const email = `operador${++counter}-${Date.now()}@example.com`;
  const operator = await gateway.services.operators.createWithPassword({ email, role }, PASSWORD);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${base}/backoffice/entrar`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Senha').fill(PASSWORD);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL(`${base}/backoffice/entrar/codigo`);
  const secret = (await page.locator('code.secret').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByLabel('Código').fill(codeFor(gateway, secret));
  await page.getByRole('button', { name: 'Ativar e entrar' }).click();
  await page.waitForURL(`${base}/backoffice`);
  return { page, secret, operatorId: operator.id, email };
}
