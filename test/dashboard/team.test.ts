import { createServer } from 'node:net';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import type { UserRole } from '../../src/platform/schema.js';
import { expectAccessible, launchBrowser, screenshot, menuLink } from '../helpers/browser.js';
import { nextCode, PASSWORD, postFromPage, signedInUser, type SignedInUser } from '../helpers/dashboard.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';

/**
 * Equipe, the sessions of Segurança and invitation e-mails in a real browser: an owner with TOTP
 * invites (keyboard only) and the invited person sets a password and signs in; the invitation goes
 * through a real SMTP server with the very link the page shows, and an SMTP server that cannot be
 * reached does not undo it; roles change and members leave (their sessions end) while the account
 * always keeps an owner who can sign in; the server refuses the other roles, owners without TOTP,
 * other accounts, bad forms and forms without their CSRF token; a user ends its other sessions.
 * Every change is read back from the services, not only from the page.
 */
let gateway: Gateway;
let browser: Browser;
let emailCounter = 0;

const PUBLIC_BASE_URL = 'http://localhost';
const INVITE_URL = /^http:\/\/localhost\/dashboard\/convite\/[A-Za-z0-9_-]{43}$/;
/** The notes beside the link (teamViews.tsx): they say whether the e-mail went. */
const NOTE_NOT_CONFIGURED = 'Entregue este link à pessoa convidada: ele vale uma vez, por 72 horas.';
const NOTE_SENT = 'Convite enviado por e-mail. O link abaixo é o mesmo do e-mail: vale uma vez, por 72 horas.';
const NOTE_FAILED = 'O e-mail não pôde ser enviado. Entregue este link à pessoa: ele vale uma vez, por 72 horas.';

beforeAll(async () => {
  gateway = await startGateway({ PUBLIC_BASE_URL });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await gateway.close();
});

const newEmail = (name: string) => `${name}${++emailCounter}-${Date.now()}@example.com`;

const signedIn = (accountId: string, role: UserRole, options: { totp: boolean }, on: Gateway = gateway) => signedInUser(on, browser, accountId, role, options);

/** A member with a password who has not signed in (no page). */
async function memberOf(accountId: string, role: UserRole): Promise<{ userId: string; email: string }> {
  const email = newEmail(role);
  const user = await gateway.services.users.createWithPassword(accountId, { email, role }, PASSWORD);
  return { userId: user.id, email };
}

const membersOf = (accountId: string, on: Gateway = gateway) => on.services.users.listMembers(accountId);
const memberNamed = async (accountId: string, email: string, on: Gateway = gateway) =>
  (await membersOf(accountId, on)).find((member) => member.email === email);

async function openTeam(page: Page, on: Gateway = gateway): Promise<void> {
  await page.goto(`${on.url}/dashboard/equipe`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Equipe');
}

/** Does `act` (a click, a key) and answers the response of the form's POST. */
async function submitted(page: Page, act: () => Promise<void>): Promise<Response> {
  const [response] = await Promise.all([page.waitForResponse((candidate) => candidate.request().method() === 'POST'), act()]);
  await page.waitForLoadState();
  return response;
}

/** Invites from the Equipe page (already open) with the mouse; answers the link shown and the note beside it. */
async function inviteFromPage(page: Page, email: string, role: UserRole): Promise<{ status: number; inviteUrl: string; note: string }> {
  await page.getByLabel('E-mail', { exact: true }).fill(email);
  await page.locator('form[action="/dashboard/equipe"] select[name="role"]').selectOption(role);
  const response = await submitted(page, () => page.getByRole('button', { name: 'Convidar' }).click());
  const shown = page.getByRole('status');
  return {
    status: response.status(),
    inviteUrl: (await shown.locator('code.secret').textContent()) ?? '',
    note: (await shown.locator('p').first().textContent()) ?? '',
  };
}

const rowOf = (page: Page, email: string) => page.getByRole('row').filter({ hasText: email });

/** The texts of the page's alerts (role="alert"), entities decoded: what a person reads. */
function alertsOf(html: string): string[] {
  const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#34;': '"', '&quot;': '"', '&#39;': "'" };
  return [...html.matchAll(/<p class="alert" role="alert">([^<]*)<\/p>/g)].map((match) =>
    (match[1] ?? '').replace(/&(?:amp|lt|gt|quot|#34|#39);/g, (entity) => entities[entity] ?? entity),
  );
}

/** The session token of a browser context (the svc_session cookie), to ask the services about it. */
async function sessionTokenOf(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((candidate) => candidate.name === 'svc_session');
  expect(cookie).toBeDefined();
  return cookie?.value ?? '';
}

/** Signs an existing TOTP user in on a new browser context (a second device), with a fresh code. */
async function signInElsewhere(user: SignedInUser): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await page.goto(`${gateway.url}/dashboard/entrar`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Senha').fill(PASSWORD);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL(`${gateway.url}/dashboard/entrar/codigo`);
  await page.getByLabel('Código').fill(nextCode(gateway, user.secret));
  await page.getByRole('button', { name: 'Confirmar' }).click();
  await page.waitForURL(`${gateway.url}/dashboard`);
  return page;
}

type ReceivedMail = { from: string; to: string[]; raw: string };

/** A real SMTP server on 127.0.0.1 (random port, no TLS, no authentication) keeping every message whole. */
async function startSmtpServer(): Promise<{ port: number; mails: ReceivedMail[]; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope;
        mails.push({ from: mailFrom ? mailFrom.address : '', to: rcptTo.map((recipient) => recipient.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { port: address.port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A port nothing listens on: bound, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

/** A message's header value (unfolded). */
const headerOf = (raw: string, name: string) => {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  return new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim();
};

/** The text of a single-part message, its transfer encoding undone (quoted-printable soft breaks `=\r\n` included). */
function textOf(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  const encoding = headerOf(raw, 'Content-Transfer-Encoding')?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  if (encoding !== 'quoted-printable') return body;
  const bytes: number[] = [];
  const unwrapped = body.replace(/=\r\n/g, '');
  for (let index = 0; index < unwrapped.length; index++) {
    const hex = unwrapped.slice(index + 1, index + 3);
    if (unwrapped[index] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else bytes.push(...Buffer.from(unwrapped[index] ?? '', 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

describe('Equipe: invitations', { timeout: 90_000 }, () => {
  it('an owner with TOTP invites a developer by keyboard; the link, shown once, lets the person set a password and sign in', async () => {
    const merchant = await gateway.createMerchant();
    const owner = await signedIn(merchant.accountId, 'owner', { totp: true });
    const { page } = owner;
    await (await menuLink(page, 'Equipe')).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Equipe');
    expect(await rowOf(page, `${owner.email} (você)`).getByRole('cell').nth(1).textContent()).toBe('Owner');
    await expectAccessible(page);

    // Keyboard only: the e-mail, Tab to the role (Developer is chosen already), Tab to the button, Enter.
    const email = newEmail('convidado');
    await page.getByLabel('E-mail', { exact: true }).focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    const focused = page.locator(':focus');
    expect(await focused.evaluate((element) => element.tagName)).toBe('SELECT');
    expect(await focused.getAttribute('name')).toBe('role');
    expect(await focused.inputValue()).toBe('developer');
    await page.keyboard.press('Tab');
    expect((await page.locator(':focus').textContent())?.trim()).toBe('Convidar');
    const response = await submitted(page, () => page.keyboard.press('Enter'));
    expect(response.status()).toBe(200);

    const shown = page.getByRole('status');
    expect(await shown.locator('p').first().textContent()).toBe(`${email}: ${NOTE_NOT_CONFIGURED}`);
    const inviteUrl = (await shown.locator('code.secret').textContent()) ?? '';
    expect(inviteUrl).toMatch(INVITE_URL);
    const invitedCells = rowOf(page, email).getByRole('cell');
    expect(await invitedCells.nth(1).textContent()).toBe('Developer');
    expect(await invitedCells.nth(2).textContent()).toBe('Convite pendente');
    expect(await memberNamed(merchant.accountId, email)).toMatchObject({ role: 'developer', invitationPending: true, totpEnrolled: false });
    await expectAccessible(page);
    await screenshot(page, 'equipe');

    // The invited person, on another browser: the link (on this test's server), a password, the sign-in.
    const invitedContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const invited = await invitedContext.newPage();
    const link = `${gateway.url}${new URL(inviteUrl).pathname}`;
    await invited.goto(link);
    await expect.poll(() => invited.title()).toBe('Criar senha · Painel PIX');
    await invited.getByLabel('Nova senha').fill(PASSWORD);
    await invited.getByRole('button', { name: 'Definir senha' }).click();
    await invited.waitForURL(`${gateway.url}/dashboard/entrar?senha=definida`);
    await invited.getByLabel('E-mail').fill(email);
    await invited.getByLabel('Senha').fill(PASSWORD);
    await invited.getByRole('button', { name: 'Entrar' }).click();
    await invited.waitForURL(`${gateway.url}/dashboard`);
    await expect.poll(() => invited.getByRole('heading', { level: 1 }).textContent()).toBe('Início');
    expect(await memberNamed(merchant.accountId, email)).toMatchObject({ role: 'developer', invitationPending: false, totpEnrolled: false });

    // The link was good once: refused before any password is typed (410), with no form; a
    // hand-made POST is refused too (test/dashboard/invitations.test.ts).
    const again = await invited.goto(link);
    expect(again?.status()).toBe(410);
    await expect.poll(() => invited.getByRole('alert').textContent()).toBe(messages.inviteInvalid);
    expect(await invited.getByLabel('Nova senha').count()).toBe(0);

    await openTeam(page);
    expect(await rowOf(page, email).getByRole('cell').nth(2).textContent()).toBe('Ativo');
    await invitedContext.close();
    await page.context().close();
  });

  it('e-mails the invitation through SMTP with the very link the page shows; the operator API e-mails one too', async () => {
    const smtp = await startSmtpServer();
    const mailing = await startGateway({ PUBLIC_BASE_URL, SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
    try {
      const merchant = await mailing.createMerchant();
      const { page } = await signedIn(merchant.accountId, 'owner', { totp: true }, mailing);
      await openTeam(page, mailing);
      const email = newEmail('por-email');
      const invitation = await inviteFromPage(page, email, 'finance');
      expect(invitation.status).toBe(200);
      expect(invitation.note).toBe(`${email}: ${NOTE_SENT}`);
      expect(invitation.inviteUrl).toMatch(INVITE_URL);

      expect(smtp.mails).toHaveLength(1);
      const [mail] = smtp.mails;
      expect(mail?.to).toEqual([email]);
      expect(mail?.from).toBe('no-reply@localhost');
      expect(headerOf(mail?.raw ?? '', 'To')).toBe(email);
      expect(headerOf(mail?.raw ?? '', 'Subject')).toBe('Convite para o painel PIX SVC');
      const text = textOf(mail?.raw ?? '');
      expect(text).toContain('Você foi convidado para o painel PIX SVC com o papel finance.');
      expect(text).toContain(`Defina sua senha em até 72 horas (o link vale uma vez): ${invitation.inviteUrl}`);
      expect(await memberNamed(merchant.accountId, email, mailing)).toMatchObject({ role: 'finance', invitationPending: true });

      const operatorEmail = newEmail('pelo-operador');
      const reply = await mailing.admin('POST', `/admin/v1/accounts/${merchant.accountId}/users`, { email: operatorEmail, role: 'viewer' });
      expect(reply.status).toBe(201);
      expect(reply.body.inviteUrl).toMatch(INVITE_URL);
      expect(smtp.mails).toHaveLength(2);
      expect(smtp.mails[1]?.to).toEqual([operatorEmail]);
      expect(textOf(smtp.mails[1]?.raw ?? '')).toContain(`(o link vale uma vez): ${String(reply.body.inviteUrl)}`);
      await page.context().close();
    } finally {
      await mailing.close();
      await smtp.close();
    }
  });

  it('an SMTP server that cannot be reached does not undo the invitation: the link is answered, and the page says the e-mail failed', async () => {
    const unreachable = await startGateway({ PUBLIC_BASE_URL, SMTP_URL: `smtp://127.0.0.1:${await closedPort()}` });
    try {
      const merchant = await unreachable.createMerchant();
      const operatorEmail = newEmail('sem-smtp');
      const reply = await unreachable.admin('POST', `/admin/v1/accounts/${merchant.accountId}/users`, { email: operatorEmail, role: 'owner' });
      expect(reply.status).toBe(201);
      expect(reply.body.inviteUrl).toMatch(INVITE_URL);
      expect(await memberNamed(merchant.accountId, operatorEmail, unreachable)).toMatchObject({ role: 'owner', invitationPending: true });

      const { page } = await signedIn(merchant.accountId, 'owner', { totp: true }, unreachable);
      await openTeam(page, unreachable);
      const email = newEmail('sem-smtp');
      const invitation = await inviteFromPage(page, email, 'viewer');
      expect(invitation.status).toBe(200);
      expect(invitation.note).toBe(`${email}: ${NOTE_FAILED}`);
      expect(invitation.inviteUrl).toMatch(INVITE_URL);
      expect(await rowOf(page, email).getByRole('cell').nth(2).textContent()).toBe('Convite pendente');
      expect(await memberNamed(merchant.accountId, email, unreachable)).toMatchObject({ role: 'viewer', invitationPending: true });
      await page.context().close();
    } finally {
      await unreachable.close();
    }
  });
});

describe('Equipe: roles and removals', { timeout: 90_000 }, () => {
  it("an owner changes a member's role; the only owner can neither demote nor remove itself (422), and nothing changes", async () => {
    const merchant = await gateway.createMerchant();
    const owner = await signedIn(merchant.accountId, 'owner', { totp: true });
    const member = await memberOf(merchant.accountId, 'developer');
    const { page } = owner;
    await openTeam(page);

    const memberRow = rowOf(page, member.email);
    await memberRow.getByRole('combobox').selectOption('finance');
    const changed = await submitted(page, () => memberRow.getByRole('button', { name: 'Alterar' }).click());
    expect(changed.status()).toBe(200);
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.memberRoleChanged);
    expect(await rowOf(page, member.email).getByRole('cell').nth(1).textContent()).toBe('Finance');
    expect(await memberNamed(merchant.accountId, member.email)).toMatchObject({ userId: member.userId, role: 'finance' });

    const ownRow = rowOf(page, `${owner.email} (você)`);
    await ownRow.getByRole('combobox').selectOption('viewer');
    const demoted = await submitted(page, () => ownRow.getByRole('button', { name: 'Alterar' }).click());
    expect(demoted.status()).toBe(422);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.lastOwner);
    expect(await memberNamed(merchant.accountId, owner.email)).toMatchObject({ role: 'owner' });

    const removed = await submitted(page, () => page.getByRole('button', { name: `Remover ${owner.email}` }).click());
    expect(removed.status()).toBe(422);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(messages.lastOwner);
    expect((await membersOf(merchant.accountId)).map(({ email, role }) => ({ email, role }))).toEqual([
      { email: owner.email, role: 'owner' },
      { email: member.email, role: 'finance' },
    ]);
    // Still signed in, still the owner.
    await openTeam(page);
    expect(await page.getByRole('button', { name: 'Convidar' }).count()).toBe(1);
    await page.context().close();
  });

  it('a second owner counts only once it has a password: then the first can demote itself', async () => {
    const merchant = await gateway.createMerchant();
    const owner = await signedIn(merchant.accountId, 'owner', { totp: true });
    const { page } = owner;
    await openTeam(page);
    const secondEmail = newEmail('segundo-owner');
    const invitation = await inviteFromPage(page, secondEmail, 'owner');
    expect(invitation.status).toBe(200);

    // The second owner has not chosen a password yet: it cannot sign in, so it does not count.
    const tooEarly = await postFromPage(gateway, page, `/dashboard/equipe/${owner.userId}/papel`, { role: 'finance' });
    expect(tooEarly.status).toBe(422);
    expect(alertsOf(tooEarly.text)).toEqual([messages.lastOwner]);
    expect(await memberNamed(merchant.accountId, owner.email)).toMatchObject({ role: 'owner' });

    await gateway.services.users.acceptInvite(new URL(invitation.inviteUrl).pathname.split('/').at(-1) ?? '', PASSWORD);
    await openTeam(page);
    const ownRow = rowOf(page, `${owner.email} (você)`);
    await ownRow.getByRole('combobox').selectOption('finance');
    const demoted = await submitted(page, () => ownRow.getByRole('button', { name: 'Alterar' }).click());
    expect(demoted.status()).toBe(200);
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.memberRoleChanged);
    expect((await membersOf(merchant.accountId)).map(({ email, role }) => ({ email, role }))).toEqual([
      { email: owner.email, role: 'finance' },
      { email: secondEmail, role: 'owner' },
    ]);

    // The session follows the new role at once: finance sees the team but may not manage it.
    await openTeam(page);
    expect(await page.getByRole('button', { name: 'Convidar' }).count()).toBe(0);
    await expect.poll(() => page.getByText('Seu papel permite ver, não gerenciar a equipe.').count()).toBe(1);
    const refused = await postFromPage(gateway, page, '/dashboard/equipe', { email: newEmail('depois'), role: 'viewer' });
    expect(refused.status).toBe(403);
    expect(alertsOf(refused.text)).toEqual([messages.roleNotAllowed('finance')]);
    await page.context().close();
  });

  it('an owner removes a member signed in elsewhere: the member is gone and its session ended', async () => {
    const merchant = await gateway.createMerchant();
    const owner = await signedIn(merchant.accountId, 'owner', { totp: true });
    const member = await signedIn(merchant.accountId, 'finance', { totp: false });
    const memberToken = await sessionTokenOf(member.page.context());
    expect(await gateway.services.users.listSessions(member.userId, memberToken)).toHaveLength(1);

    const { page } = owner;
    await openTeam(page);
    const removed = await submitted(page, () => page.getByRole('button', { name: `Remover ${member.email}` }).click());
    expect(removed.status()).toBe(200);
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.memberRemoved);
    expect(await rowOf(page, member.email).count()).toBe(0);
    expect((await membersOf(merchant.accountId)).map((entry) => entry.email)).toEqual([owner.email]);
    expect(await gateway.services.users.listSessions(member.userId, memberToken)).toEqual([]);

    await member.page.goto(`${gateway.url}/dashboard/cobrancas`);
    await member.page.waitForURL(`${gateway.url}/dashboard/entrar`);
    await expect(gateway.services.users.signIn(member.email, PASSWORD)).rejects.toThrow(messages.signInFailed);
    await member.page.context().close();
    await page.context().close();
  });
});

describe('Equipe: what the server refuses', { timeout: 90_000 }, () => {
  it('refuses a developer (403) whatever it posts, and changes nothing', async () => {
    const merchant = await gateway.createMerchant();
    const owner = await memberOf(merchant.accountId, 'owner');
    const developer = await signedIn(merchant.accountId, 'developer', { totp: true });
    const { page } = developer;
    await openTeam(page);
    expect(await page.getByRole('button', { name: 'Convidar' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Alterar' }).count()).toBe(0);
    await expect.poll(() => page.getByText('Seu papel permite ver, não gerenciar a equipe.').count()).toBe(1);
    const before = await membersOf(merchant.accountId);

    const invite = await postFromPage(gateway, page, '/dashboard/equipe', { email: newEmail('intruso'), role: 'owner' });
    const promote = await postFromPage(gateway, page, `/dashboard/equipe/${developer.userId}/papel`, { role: 'owner' });
    const remove = await postFromPage(gateway, page, `/dashboard/equipe/${owner.userId}/remover`);
    for (const refused of [invite, promote, remove]) {
      expect(refused.status).toBe(403);
      expect(alertsOf(refused.text)).toEqual([messages.roleNotAllowed('developer')]);
    }
    expect(await membersOf(merchant.accountId)).toEqual(before);
    await page.context().close();
  });

  it('refuses an owner without TOTP (403): the page says where to enable it', async () => {
    const merchant = await gateway.createMerchant();
    const member = await memberOf(merchant.accountId, 'viewer');
    const owner = await signedIn(merchant.accountId, 'owner', { totp: false });
    const { page } = owner;
    await openTeam(page);
    expect(await page.getByRole('button', { name: 'Convidar' }).count()).toBe(0);
    await expect.poll(() => page.getByText('Para gerenciar a equipe, ative a verificação em duas etapas em').count()).toBe(1);
    const before = await membersOf(merchant.accountId);

    const invite = await postFromPage(gateway, page, '/dashboard/equipe', { email: newEmail('sem-totp'), role: 'viewer' });
    const change = await postFromPage(gateway, page, `/dashboard/equipe/${member.userId}/papel`, { role: 'owner' });
    const remove = await postFromPage(gateway, page, `/dashboard/equipe/${member.userId}/remover`);
    for (const refused of [invite, change, remove]) {
      expect(refused.status).toBe(403);
      expect(alertsOf(refused.text)).toEqual([messages.totpRequired]);
    }
    expect(await membersOf(merchant.accountId)).toEqual(before);
    await page.context().close();
  });

  it("an owner of another account can neither change nor remove this account's users (404), nor see them", async () => {
    const merchant = await gateway.createMerchant();
    const member = await memberOf(merchant.accountId, 'developer');
    const other = await gateway.createMerchant();
    const { page } = await signedIn(other.accountId, 'owner', { totp: true });
    await openTeam(page);
    expect(await rowOf(page, member.email).count()).toBe(0);

    const change = await postFromPage(gateway, page, `/dashboard/equipe/${member.userId}/papel`, { role: 'owner' });
    const remove = await postFromPage(gateway, page, `/dashboard/equipe/${member.userId}/remover`);
    for (const refused of [change, remove]) {
      expect(refused.status).toBe(404);
      expect(alertsOf(refused.text)).toEqual([messages.userNotFound]);
    }
    expect(await membersOf(merchant.accountId)).toEqual([expect.objectContaining({ userId: member.userId, role: 'developer', invitationPending: false })]);
    await page.context().close();
  });

  it('refuses bad forms with the API messages: malformed id (404), unknown role (400), bad e-mail (400), e-mail taken (422), no CSRF token (403)', async () => {
    const merchant = await gateway.createMerchant();
    const member = await memberOf(merchant.accountId, 'viewer');
    const { page } = await signedIn(merchant.accountId, 'owner', { totp: true });
    await openTeam(page);
    const before = await membersOf(merchant.accountId);

    for (const action of ['papel', 'remover']) {
      const malformed = await postFromPage(gateway, page, `/dashboard/equipe/nao-e-um-id/${action}`, { role: 'viewer' });
      expect(malformed.status).toBe(404);
      expect(alertsOf(malformed.text)).toEqual([messages.userNotFound]);
    }

    const badRole = await postFromPage(gateway, page, `/dashboard/equipe/${member.userId}/papel`, { role: 'chefe' });
    expect(badRole.status).toBe(400);
    expect(alertsOf(badRole.text)).toEqual([messages.userRoleInvalid('chefe')]);
    const inviteWithBadRole = await postFromPage(gateway, page, '/dashboard/equipe', { email: newEmail('papel-ruim'), role: 'chefe' });
    expect(inviteWithBadRole.status).toBe(400);
    expect(alertsOf(inviteWithBadRole.text)).toEqual([messages.userRoleInvalid('chefe')]);

    const badEmail = await postFromPage(gateway, page, '/dashboard/equipe', { email: 'nao-e-um-email', role: 'viewer' });
    expect(badEmail.status).toBe(400);
    expect(alertsOf(badEmail.text)).toEqual([messages.userEmailInvalid]);

    // Taken whatever the case it is written in.
    const taken = await postFromPage(gateway, page, '/dashboard/equipe', { email: member.email.toUpperCase(), role: 'developer' });
    expect(taken.status).toBe(422);
    expect(alertsOf(taken.text)).toEqual([messages.userEmailTaken]);

    const withoutToken = await page.request.post(`${gateway.url}/dashboard/equipe/${member.userId}/remover`, { form: {}, maxRedirects: 0 });
    expect(withoutToken.status()).toBe(403);
    expect(alertsOf(await withoutToken.text())).toEqual([messages.formExpired]);
    const inviteWithoutToken = await page.request.post(`${gateway.url}/dashboard/equipe`, {
      form: { email: newEmail('sem-token'), role: 'viewer' },
      maxRedirects: 0,
    });
    expect(inviteWithoutToken.status()).toBe(403);
    expect(alertsOf(await inviteWithoutToken.text())).toEqual([messages.formExpired]);

    expect(await membersOf(merchant.accountId)).toEqual(before);
    await page.context().close();
  });
});

describe('Segurança: sessions', { timeout: 90_000 }, () => {
  it('lists this session and another one; ending the others signs the other browser out and keeps this one', async () => {
    const merchant = await gateway.createMerchant();
    const user = await signedIn(merchant.accountId, 'finance', { totp: true });
    const elsewhere = await signInElsewhere(user);
    const { page } = user;
    const thisToken = await sessionTokenOf(page.context());

    await (await menuLink(page, 'Segurança')).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Segurança');
    const sessions = page.getByRole('region', { name: 'Sessões' }).locator('tbody tr');
    expect((await sessions.locator('td:nth-child(3)').allTextContents()).sort()).toEqual(['Esta sessão', 'Outra sessão']);
    expect((await gateway.services.users.listSessions(user.userId, thisToken)).map((session) => session.current).sort()).toEqual([false, true]);

    const ended = await submitted(page, () => page.getByRole('button', { name: 'Encerrar as outras sessões' }).click());
    expect(ended.status()).toBe(200);
    await expect.poll(() => page.getByRole('status').textContent()).toBe(messages.otherSessionsEnded);
    expect(await sessions.locator('td:nth-child(3)').allTextContents()).toEqual(['Esta sessão']);
    expect(await page.getByRole('button', { name: 'Encerrar as outras sessões' }).count()).toBe(0);
    expect((await gateway.services.users.listSessions(user.userId, thisToken)).map((session) => session.current)).toEqual([true]);

    await elsewhere.reload();
    await elsewhere.waitForURL(`${gateway.url}/dashboard/entrar`);
    await page.goto(`${gateway.url}/dashboard/seguranca`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Segurança');
    await elsewhere.context().close();
    await page.context().close();
  });
});
