import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf, createCharge, eventNames, fund, registerEndpoint, registerRecipient, withdraw } from '../helpers/api.js';
import { signedInOperator } from '../helpers/backoffice.js';
import { expectAccessible, launchBrowser, screenshot } from '../helpers/browser.js';
import { codeFor, nextCode, PASSWORD, postFromPage } from '../helpers/dashboard.js';
import { NO_CHARGE_FEES, startGateway, withdrawalToHolder, type Gateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';
import { errorOf, withField } from '../helpers/contract.js';

/**
 * The back-office in a real browser (DESIGN.md §11): an operator's first sign-in enrols TOTP; the
 * queues (recipients, manual withdrawals, MED) worked from their pages with the merchant API and
 * webhooks seeing the result; a limit changed and enforced; every action in the audit log with the
 * operator as actor; the role rules enforced on the server; CSRF; axe on each page.
 */
let gateway: Gateway;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', WEBHOOK_ALLOW_PRIVATE: 'true', SANDBOX_SETTLE_MS: 'manual' });
  browser = await launchBrowser();
  receiver = await startReceiver();
});
afterAll(async () => {
  await browser.close();
  await receiver.close();
  await gateway.close();
});

const RECIPIENT = {
  legalName: 'Fornecedor Auditado LTDA',
  document: '11222333000181',
  documentType: 'cnpj',
  pixKey: 'pagamentos@fornecedor.example',
  pixKeyType: 'email',
};

type AuditEntry = { actor: string; action: string; accountId: string | null; objectId: string | null; changes: Record<string, unknown> };

/** The audit log's entries of an account, newest first, as the operator API reads them (every actor). */
async function auditLogOf(accountId: string): Promise<AuditEntry[]> {
  const reply = await gateway.admin('GET', `/admin/v1/audit?accountId=${accountId}`);
  expect(reply.status).toBe(200);
  return reply.body.entries;
}

/** The operators' entries of an account (those of the back-office; the test's setup acts with the admin token). */
const auditOf = async (accountId: string) => (await auditLogOf(accountId)).filter((entry) => entry.actor.startsWith('operator:'));

const menuCount = (page: Page, title: string) => page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: new RegExp(`^${title}`) });

describe('signing in', () => {
  it('the first sign-in enrols TOTP (QR and key); a wrong code is refused; the next sign-in asks only the code; sign-out ends the session', async () => {
    const email = `primeiro-${Date.now()}@example.com`;
    await gateway.services.operators.createWithPassword({ email, role: 'support' }, PASSWORD);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${gateway.url}/backoffice/contas`);
    expect(page.url()).toBe(`${gateway.url}/backoffice/entrar`);
    await expectAccessible(page);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/entrar/codigo`);
    await expect(page.getByText('A verificação em duas etapas é obrigatória aqui: ative-a para entrar.').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('img', { name: 'QR para o aplicativo autenticador' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'backoffice-enrolment');
    // Not signed in yet: the pages still send to the sign-in.
    await page.goto(`${gateway.url}/backoffice`);
    expect(page.url()).toBe(`${gateway.url}/backoffice/entrar`);
    await page.goto(`${gateway.url}/backoffice/entrar/codigo`);
    const secret = (await page.locator('code.secret').textContent())?.trim() ?? '';

    await page.getByLabel('Código').fill('000000');
    await page.getByRole('button', { name: 'Ativar e entrar' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.totpCodeInvalid);
    expect((await page.locator('code.secret').textContent())?.trim()).toBe(secret);
    await page.getByLabel('Código').fill(codeFor(gateway, secret));
    await page.getByRole('button', { name: 'Ativar e entrar' }).click();
    await page.waitForURL(`${gateway.url}/backoffice`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Filas');
    await expectAccessible(page);
    await screenshot(page, 'backoffice-queues');

    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/entrar`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(`${gateway.url}/backoffice/entrar/codigo`);
    expect(await page.locator('code.secret').count()).toBe(0);
    await page.getByLabel('Código').fill(nextCode(gateway, secret));
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.waitForURL(`${gateway.url}/backoffice`);
  });

  it('a merchant user cannot sign in to the back-office, nor an operator to the dashboard', async () => {
    const merchant = await gateway.createMerchant();
    const userEmail = `lojista-${Date.now()}@example.com`;
    await gateway.services.users.createWithPassword(merchant.accountId, { email: userEmail, role: 'owner' }, PASSWORD);
    const operatorEmail = `operador-x-${Date.now()}@example.com`;
    await gateway.services.operators.createWithPassword({ email: operatorEmail, role: 'admin' }, PASSWORD);
    const page = await (await browser.newContext()).newPage();
    for (const [site, email] of [
      ['backoffice', userEmail],
      ['dashboard', operatorEmail],
    ] as const) {
      await page.goto(`${gateway.url}/${site}/entrar`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Senha').fill(PASSWORD);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.signInFailed);
    }
  });
});

describe('the queues', () => {
  it('compliance approves a recipient with a label: the merchant API lists it active, the menu count drops, the audit log has the operator', async () => {
    const merchant = await gateway.createMerchant();
    const registered = await registerRecipient(gateway, merchant, { ...RECIPIENT, label: 'Fornecedor' });
    expect(registered.status).toBe(201);
    const recipientId: string = registered.body.recipientId;
    expect((await gateway.call('GET', '/v1/recipients', { key: merchant.apiKey })).body.recipients).toEqual([]);
    const { page, operatorId } = await signedInOperator(gateway, browser, 'compliance');

    await page.goto(`${gateway.url}/backoffice/destinatarios`);
    const before = Number(await menuCount(page, 'Destinatários').locator('.count').textContent());
    expect(before).toBeGreaterThanOrEqual(1);
    const card = page.getByRole('article', { name: RECIPIENT.legalName }).last();
    await expect(card.getByRole('link', { name: `…${merchant.accountId.slice(-8)}`, exact: true }).getAttribute('href')).resolves.toBe(
      `/backoffice/contas/${merchant.accountId}`,
    );
    await expectAccessible(page);
    await screenshot(page, 'backoffice-recipients');
    await card.getByLabel('Apelido que o lojista verá').fill('Fornecedor aprovado');
    await card.getByRole('button', { name: 'Aprovar' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.recipientApproved);
    const after = await menuCount(page, 'Destinatários').locator('.count').count();
    if (after > 0) expect(Number(await menuCount(page, 'Destinatários').locator('.count').textContent())).toBe(before - 1);

    const listed = await gateway.call('GET', '/v1/recipients', { key: merchant.apiKey });
    expect(listed.body.recipients).toEqual([expect.objectContaining({ recipientId, legalName: RECIPIENT.legalName, label: 'Fornecedor aprovado' })]);
    const [entry] = await auditOf(merchant.accountId);
    expect(entry).toMatchObject({
      actor: `operator:${operatorId}`,
      action: 'POST /admin/v1/accounts/:accountId/recipients/:recipientId/approve',
      accountId: merchant.accountId,
      objectId: recipientId,
      changes: {
        after: expect.objectContaining({ status: 'active', approvedLabel: 'Fornecedor aprovado', document: '**.222.333/0001-**' }),
        input: { label: 'Fornecedor aprovado' },
      },
    });
  });

  it('an admin approves a manual withdrawal: its status, the balance and the webhook follow; the audit log has it', async () => {
    const merchant = await gateway.createMerchant({ withdrawalMode: 'manual', limits: { withdrawMinCents: 100 } });
    await fund(gateway, merchant, 10_000);
    await registerEndpoint(gateway, merchant, { url: receiver.url('/saques'), events: ['transfer.approved'] });
    const created = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 2_000 }));
    expect(created.body.status).toBe('pending_approval');
    const transactionId: string = created.body.transactionId;
    const { page, operatorId } = await signedInOperator(gateway, browser, 'admin');

    await page.goto(`${gateway.url}/backoffice/saques`);
    const row = page.getByRole('row').filter({ hasText: transactionId });
    await expect(row.getByRole('link').first().getAttribute('href')).resolves.toBe(`/backoffice/contas/${merchant.accountId}`);
    await expectAccessible(page);
    await screenshot(page, 'backoffice-withdrawals');
    await row.getByRole('button', { name: 'Aprovar' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(`${messages.withdrawalApproved} (processing)`);
    expect(await page.getByRole('row').filter({ hasText: transactionId }).count()).toBe(0);

    const read = await gateway.call('GET', `/v1/transactions/${transactionId}`, { key: merchant.apiKey });
    expect(read.body.status).toBe('processing');
    expect(await balanceOf(gateway, merchant)).toBe(10_000 - 2_000 - withField(created.body, 'feeCents').feeCents);
    expect(await eventNames(gateway, transactionId)).toContain('transfer.approved');
    await gateway.services.webhookDispatcher.deliverDue();
    await receiver.waitFor(1);
    expect(receiver.received.some((hook) => hook.path === '/saques' && JSON.parse(hook.body).event === 'transfer.approved')).toBe(true);
    const [entry] = await auditOf(merchant.accountId);
    expect(entry).toMatchObject({
      actor: `operator:${operatorId}`,
      action: 'POST /admin/v1/transactions/:id/approve',
      accountId: merchant.accountId,
      objectId: transactionId,
      changes: { after: expect.objectContaining({ status: 'processing' }) },
    });
  });

  it('compliance opens a MED case from its form, starts the analysis and rejects it: the amount is blocked, then released; three audit rows', async () => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const chargeId = await createCharge(gateway, merchant, { amountCents: 5_000 });
    expect((await gateway.call('POST', `/sandbox/v1/pix/${chargeId}/pay`, { key: merchant.apiKey })).status).toBe(200);
    const { page, operatorId } = await signedInOperator(gateway, browser, 'compliance');

    await page.goto(`${gateway.url}/backoffice/med`);
    const malformed = await postFromPage(gateway, page, '/backoffice/med', { transactionId: 'nao-e-id', reason: 'fraud', amount: '' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain(messages.transactionIdInvalid);
    await page.getByLabel('Cobrança (transactionId)').fill(chargeId);
    await page.getByLabel('Valor contestado (vazio = o que resta da cobrança)').fill('30,00');
    await page.getByRole('button', { name: 'Abrir caso' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.infractionOpened);
    const balance = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
    expect(balance.body).toMatchObject({ available: 5_000, blocked: 3_000 });
    const card = page.getByRole('article').filter({ hasText: chargeId });
    await expectAccessible(page);
    await screenshot(page, 'backoffice-med');
    await card.getByRole('button', { name: 'Iniciar análise' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.infractionUnderAnalysis);
    await expect(page.getByRole('article').filter({ hasText: chargeId }).getByText('Em análise').isVisible()).resolves.toBe(true);
    await page.getByRole('article').filter({ hasText: chargeId }).getByRole('button', { name: 'Rejeitar (liberar)' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.infractionRejected);
    expect(await page.getByRole('article').filter({ hasText: chargeId }).count()).toBe(0);

    const cases = await gateway.call('GET', '/v1/infractions', { key: merchant.apiKey });
    expect(cases.body.infractions).toEqual([expect.objectContaining({ transactionId: chargeId, status: 'rejected', amountCents: 3_000 })]);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ available: 5_000, blocked: 0 });
    const entries = await auditOf(merchant.accountId);
    expect(entries.map((entry) => [entry.actor, entry.action])).toEqual([
      [`operator:${operatorId}`, 'POST /admin/v1/infractions/:id/reject'],
      [`operator:${operatorId}`, 'POST /admin/v1/infractions/:id/analysis'],
      [`operator:${operatorId}`, 'POST /admin/v1/transactions/:id/infractions'],
    ]);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});

describe('an account', () => {
  it('an admin lowers the maximum withdrawal: the API then refuses above it; the audit row has before and after', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 50_000);
    const { page, operatorId } = await signedInOperator(gateway, browser, 'admin');
    await page.goto(`${gateway.url}/backoffice/contas`);
    await page.getByRole('link', { name: 'Loja Teste' }).first().waitFor();
    await page.goto(`${gateway.url}/backoffice/contas/${merchant.accountId}`);
    await expectAccessible(page);
    await screenshot(page, 'backoffice-account');
    await page.getByLabel('Saque máximo (centavos)').fill('1500');
    await page.getByRole('button', { name: 'Salvar configuração' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.accountSaved);
    await expect(page.getByLabel('Saque máximo (centavos)').inputValue()).resolves.toBe('1500');

    const refused = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 2_000 }));
    expect(refused.status).toBe(400);
    expect(errorOf(refused.body)).toBe(messages.withdrawalAboveMaximum(1_500));
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_500 }))).status).toBe(201);

    const [entry] = await auditOf(merchant.accountId);
    expect(entry).toMatchObject({ actor: `operator:${operatorId}`, action: 'PATCH /admin/v1/accounts/:accountId', objectId: merchant.accountId });
    const changes = entry?.changes as { before: { limits: Record<string, number> }; after: { limits: Record<string, number>; responsible: { cpf: string } } };
    expect(changes.before.limits.withdrawMaxCents).not.toBe(1_500);
    expect(changes.after.limits.withdrawMaxCents).toBe(1_500);
    expect(changes.after.responsible.cpf).toMatch(/^\*\*\*\.\d{3}\.\d{3}-\*\*$/);

    await page.getByLabel('Saque máximo (centavos)').fill('15,00');
    await page.getByRole('button', { name: 'Salvar configuração' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.wholeNumberInvalid('limits.withdrawMaxCents'));
    expect((await auditOf(merchant.accountId)).length).toBe(1);
  });

  it('blocks, adjustments, a dashboard invitation and a webhook resend from the account page, each audited', async () => {
    const merchant = await gateway.createMerchant();
    await registerEndpoint(gateway, merchant, { url: receiver.url('/conta'), events: ['transaction.paid'] });
    const chargeId = await createCharge(gateway, merchant, { amountCents: 1_000 });
    await gateway.call('POST', `/sandbox/v1/pix/${chargeId}/pay`, { key: merchant.apiKey });
    await gateway.services.webhookDispatcher.deliverDue();
    const { page } = await signedInOperator(gateway, browser, 'admin');
    await page.goto(`${gateway.url}/backoffice/contas/${merchant.accountId}`);

    await page.getByLabel('Valor (R$; negativo para debitar, ex.: -10,00)').fill('25,00');
    await page.getByLabel('Motivo do ajuste').fill('crédito de teste');
    await page.getByRole('button', { name: 'Lançar ajuste' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.adjustmentPosted);
    await page.getByLabel('Valor a bloquear (R$)').fill('10,00');
    await page.getByLabel('Motivo do bloqueio').fill('precaução');
    await page.getByRole('button', { name: 'Bloquear' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.blockPlaced);
    const balance = (await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body;
    expect(balance.blocked).toBe(1_000);
    await page.getByRole('row').filter({ hasText: 'precaução' }).getByRole('button', { name: 'Liberar' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.blockReleased);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body.blocked).toBe(0);

    await page.getByLabel('E-mail do usuário').fill(`convidado-${Date.now()}@example.com`);
    await page.getByRole('button', { name: 'Convidar usuário' }).click();
    await expect(page.locator('code.secret').textContent()).resolves.toMatch(/^http:\/\/localhost\/dashboard\/convite\/[\w-]{43}$/);

    await page.getByRole('row').filter({ hasText: 'transaction.paid' }).first().getByRole('button', { name: 'Reenviar' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(messages.webhookResendQueued);

    const actions = (await auditOf(merchant.accountId)).map((entry) => entry.action);
    expect(actions).toEqual([
      'POST /admin/v1/webhook-deliveries/:deliveryId/resend',
      'POST /admin/v1/accounts/:accountId/users',
      'DELETE /admin/v1/blocks/:blockId',
      'POST /admin/v1/accounts/:accountId/blocks',
      'POST /admin/v1/accounts/:accountId/adjustments',
    ]);
    const invitation = (await auditOf(merchant.accountId))[1];
    expect(JSON.stringify(invitation?.changes)).not.toContain('/dashboard/convite/');
  });
});

describe('role rules, CSRF and the audit page', () => {
  it('support sees no approve button and the server refuses its approval (403), changing nothing and auditing nothing', async () => {
    const merchant = await gateway.createMerchant();
    const recipientId: string = (await registerRecipient(gateway, merchant, RECIPIENT)).body.recipientId;
    const { page } = await signedInOperator(gateway, browser, 'support');
    await page.goto(`${gateway.url}/backoffice/destinatarios`);
    expect(await page.getByRole('button', { name: 'Aprovar' }).count()).toBe(0);
    await expect(page.getByText('Seu papel (support) permite ver, não alterar.').first().isVisible()).resolves.toBe(true);
    const refused = await postFromPage(gateway, page, `/backoffice/destinatarios/${merchant.accountId}/${recipientId}/aprovar`, { label: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(messages.roleNotAllowed('support'));
    const listed = await gateway.admin('GET', `/admin/v1/recipients?accountId=${merchant.accountId}`);
    expect(listed.body.recipients).toEqual([expect.objectContaining({ recipientId, status: 'pending_review' })]);

    const adjust = await postFromPage(gateway, page, `/backoffice/contas/${merchant.accountId}/ajustes`, { amount: '10,00', reason: 'x' });
    expect(adjust.status).toBe(403);
    expect(await auditOf(merchant.accountId)).toEqual([]);
  });

  it('compliance may not change the configuration nor approve withdrawals (403); a form without its CSRF token is refused (403)', async () => {
    const merchant = await gateway.createMerchant();
    const { page } = await signedInOperator(gateway, browser, 'compliance');
    await page.goto(`${gateway.url}/backoffice/contas/${merchant.accountId}`);
    expect(await page.getByRole('button', { name: 'Salvar configuração' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Salvar situação' }).count()).toBe(1);
    const configuration = await postFromPage(gateway, page, `/backoffice/contas/${merchant.accountId}/configuracao`, { withdrawalMode: 'manual' });
    expect(configuration.status).toBe(403);
    const noToken = await page.request.post(`${gateway.url}/backoffice/contas/${merchant.accountId}/situacao`, {
      form: { kycStatus: 'rejected' },
      maxRedirects: 0,
    });
    expect(noToken.status()).toBe(403);
    expect(await noToken.text()).toContain(messages.formExpired);
    const account = await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`);
    expect(account.body).toMatchObject({ withdrawalMode: 'automatic', kycStatus: 'approved' });
    expect(await auditOf(merchant.accountId)).toEqual([]);
  });

  it("the audit page lists an account's actions with the operator API's too, filters by actor, and refuses a malformed account id (400)", async () => {
    const merchant = await gateway.createMerchant();
    await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: 500, reason: 'via API' });
    const { page, operatorId, email } = await signedInOperator(gateway, browser, 'admin');
    await page.goto(`${gateway.url}/backoffice/contas/${merchant.accountId}`);
    await page.getByRole('button', { name: 'Salvar situação' }).click();
    await page.getByRole('link', { name: 'Auditoria desta conta' }).click();
    const rows = page.getByRole('region', { name: 'Registro de auditoria' }).getByRole('row');
    const logged = await auditLogOf(merchant.accountId);
    expect(logged.map((entry) => entry.actor).slice(0, 2)).toEqual([`operator:${operatorId}`, 'admin-token']);
    await expect(rows.count()).resolves.toBe(logged.length + 1);
    await expect(rows.nth(1).textContent()).resolves.toContain(`operator:${operatorId}`);
    await expect(rows.nth(2).textContent()).resolves.toContain('POST /admin/v1/accounts/:accountId/adjustments');
    // Read as a person reads them: the operator's e-mail, the action's name (the raw ones above are in the full record).
    await expect(rows.nth(1).getByRole('cell').nth(1).textContent()).resolves.toBe(email);
    await expect(rows.nth(1).getByRole('cell').nth(2).textContent()).resolves.toBe('Conta alterada');
    await expect(rows.nth(2).getByRole('cell').nth(1).textContent()).resolves.toBe('Token de operação');
    await expect(rows.nth(2).getByRole('cell').nth(2).textContent()).resolves.toBe('Ajuste de saldo lançado');
    await expectAccessible(page);
    await screenshot(page, 'backoffice-audit');
    await page.getByLabel('Ator').fill('admin-token');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect(rows.count()).resolves.toBe(logged.length);
    const response = await page.goto(`${gateway.url}/backoffice/auditoria?conta=nao-e-id`);
    expect(response?.status()).toBe(400);
    await expect(page.getByRole('alert').textContent()).resolves.toBe(messages.accountIdInvalid);
  });

  it('an admin invites an operator, who sets a password from the link and must enrol TOTP; the last admin cannot be demoted', async () => {
    const { page, operatorId } = await signedInOperator(gateway, browser, 'admin');
    await page.goto(`${gateway.url}/backoffice/operadores`);
    await expectAccessible(page);
    const email = `novo-operador-${Date.now()}@example.com`;
    await page.getByLabel('E-mail', { exact: true }).fill(email);
    await page.locator('form[action="/backoffice/operadores"] select[name="role"]').selectOption('support');
    await page.getByRole('button', { name: 'Convidar' }).click();
    const link = (await page.locator('code.secret').textContent())?.trim() ?? '';
    expect(link).toMatch(/^http:\/\/localhost\/backoffice\/convite\/[\w-]{43}$/);

    const invited = await (await browser.newContext()).newPage();
    await invited.goto(link.replace('http://localhost', gateway.url));
    await invited.getByLabel('Nova senha').fill(PASSWORD);
    await invited.getByRole('button', { name: 'Definir senha' }).click();
    await invited.waitForURL(`${gateway.url}/backoffice/entrar?senha=definida`);
    await invited.getByLabel('E-mail').fill(email);
    await invited.getByLabel('Senha').fill(PASSWORD);
    await invited.getByRole('button', { name: 'Entrar' }).click();
    await invited.waitForURL(`${gateway.url}/backoffice/entrar/codigo`);
    await expect(invited.getByRole('button', { name: 'Ativar e entrar' }).isVisible()).resolves.toBe(true);

    const entries = (await gateway.admin('GET', `/admin/v1/audit?actor=operator:${operatorId}`)).body.entries;
    expect(entries[0]).toMatchObject({ action: 'POST /admin/v1/operators', changes: { input: { email, role: 'support' } } });

    // Only admins of the tests exist besides; demoting every other admin first is not needed: the
    // rule is checked under a lock against the admins who can sign in.
    const admins = (await gateway.services.operators.list()).filter((operator) => operator.role === 'admin' && !operator.invitationPending);
    for (const other of admins.filter((operator) => operator.operatorId !== operatorId)) await gateway.services.operators.remove(other.operatorId);
    const demoted = await postFromPage(gateway, page, `/backoffice/operadores/${operatorId}/papel`, { role: 'support' });
    expect(demoted.status).toBe(422);
    expect(demoted.text).toContain(messages.lastAdmin);
  });
});

describe('Envios: sends to the PSP without an outcome', () => {
  // A gateway of its own: the other tests' withdrawals (settled by hand) would be in its queue.
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway({ PUBLIC_BASE_URL: 'http://localhost', SANDBOX_SETTLE_MS: 'manual' });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('an empty queue says so; a withdrawal unknown past 24 hours is listed with its attempts and checks, counted on the menu and on Filas', async () => {
    const early = await signedInOperator(gateway, browser, 'support');
    await early.page.goto(`${gateway.url}/backoffice/envios`);
    await expect(early.page.getByText('Nenhum envio aguardando a equipe.').isVisible()).resolves.toBe(true);
    await expectAccessible(early.page);

    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 5_000);
    expect((await gateway.call('POST', '/sandbox/v1/provider/next-withdrawal', { key: merchant.apiKey, body: { outcome: 'unknown' } })).status).toBe(201);
    const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(created.status).toBe(202);
    // The network never answers: checked on the schedule for a day, then the operator is told.
    for (let hour = 0; hour < 25; hour++) {
      gateway.clock.advance(3_600_000);
      await gateway.services.withdrawals.reconcile();
    }
    const alerts = (await gateway.admin('GET', `/admin/v1/alerts?accountId=${merchant.accountId}`)).body.alerts;
    expect(alerts).toMatchObject([{ kind: 'withdrawal_outcome_unknown_24h', severity: 'high', transactionId: created.body.transactionId }]);

    // A day later (the first session has expired), another operator looks.
    const { page } = await signedInOperator(gateway, browser, 'support');
    await page.goto(`${gateway.url}/backoffice/envios`);
    const row = page.getByRole('row').filter({ hasText: created.body.transactionId });
    await expect(row.getByRole('cell', { name: 'sem desfecho' }).isVisible()).resolves.toBe(true);
    await expect(row.getByText(/send: unknown/).isVisible()).resolves.toBe(true);
    await expect(row.getByText(/vezes — check: unknown/).isVisible()).resolves.toBe(true);
    await expect(menuCount(page, 'Envios').textContent()).resolves.toBe('Envios1');
    await expectAccessible(page);
    await screenshot(page, 'backoffice-envios');
    await page.goto(`${gateway.url}/backoffice`);
    await expect(page.getByRole('link', { name: 'Envios ao PSP sem desfecho' }).isVisible()).resolves.toBe(true);

    const one = await gateway.admin('GET', `/admin/v1/provider-sends/${created.body.transactionId}`);
    expect(one).toMatchObject({ status: 200, body: { kind: 'withdrawal', state: 'sent', acknowledged: false, attempts: 1 } });
    expect((await gateway.admin('GET', '/admin/v1/provider-sends/nao-e-um-id')).body).toEqual({ error: 'id do envio inválido.' });
    expect((await gateway.admin('GET', `/admin/v1/provider-sends/${merchant.accountId}`)).body).toEqual({ error: 'Envio ao PSP não encontrado.' });
  });
});
