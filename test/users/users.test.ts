import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { verifyPassword } from '../../src/users/passwords.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Dashboard users (DESIGN.md §10) through their service and the operator's invitation API:
 * invitations used once, scrypt passwords, TOTP enrolment and sign-in with codes computed here,
 * lock-out, sessions (idle expiry, sign-out, a password change ending the others).
 */
let gateway: Gateway;
let merchant: Merchant;
let counter = 0;

beforeAll(async () => {
  gateway = await startGateway();
  merchant = await gateway.createMerchant();
});
afterAll(() => gateway.close());

const PASSWORD = 'correct horse battery';
const users = () => gateway.services.users;
const tokenOf = (inviteUrl: string) => inviteUrl.split('/').at(-1) ?? '';
/** The code an authenticator shows now (the gateway's clock), `steps` periods away. */
const codeFor = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: gateway.clock.now().getTime() + steps * 30_000 });

async function invited(role = 'owner') {
  const email = `pessoa${++counter}@example.com`;
  const reply = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/users`, { email, role });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { email, userId: reply.body.userId, token: tokenOf(reply.body.inviteUrl), inviteUrl: reply.body.inviteUrl };
}

async function withPassword(role = 'owner') {
  const user = await invited(role);
  await users().acceptInvite(user.token, PASSWORD);
  return user;
}

async function enrolled() {
  const user = await withPassword();
  const { sessionToken } = await users().signIn(user.email, PASSWORD);
  const { secret, uri } = await users().beginTotpEnrolment(user.userId);
  expect(uri).toMatch(/^otpauth:\/\/totp\//);
  await users().confirmTotpEnrolment(user.userId, codeFor(secret));
  gateway.clock.advance(30_000); // the next sign-in needs a code of a later step
  return { ...user, secret, sessionToken };
}

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
};

describe('invitations (POST /admin/v1/accounts/{id}/users)', () => {
  it('answers a one-time link on the public base URL; the password is stored as scrypt only', async () => {
    const user = await invited('developer');
    expect(user.inviteUrl).toMatch(new RegExp(`^${gateway.environment.PUBLIC_BASE_URL ?? 'http'}.*/dashboard/convite/[A-Za-z0-9_-]{43}$`));
    await users().acceptInvite(user.token, PASSWORD);
    const row = await gateway.database.db.selectFrom('users').selectAll().where('id', '=', user.userId).executeTakeFirstOrThrow();
    expect(row.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{88}$/);
    expect(await verifyPassword(PASSWORD, row.passwordHash!)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}!`, row.passwordHash!)).toBe(false);
    const invites = await gateway.database.db.selectFrom('userInvites').select('tokenHash').where('userId', '=', user.userId).execute();
    expect(invites[0]!.tokenHash.toString('base64url')).not.toBe(user.token);
  });

  it('a link works once, and not after 72 hours', async () => {
    const used = await invited();
    await users().acceptInvite(used.token, PASSWORD);
    expect(await refusal(users().acceptInvite(used.token, PASSWORD))).toMatchObject({ message: messages.inviteInvalid });
    const late = await invited();
    gateway.clock.advance(72 * 3_600_000);
    expect(await refusal(users().acceptInvite(late.token, PASSWORD))).toMatchObject({ message: messages.inviteInvalid });
  });

  it.each([
    [{ email: 'x', role: 'owner' }, messages.userEmailInvalid],
    [{ email: 'a@example.com', role: 'admin' }, messages.userRoleInvalid('admin')],
    [{ email: 'a@example.com' }, messages.userRoleInvalid('')],
  ])('%j is 400', async (body, error) => {
    expect(await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/users`, body)).toMatchObject({ status: 400, body: { error } });
  });

  it('an e-mail already in use (any case) is 422; an unknown account 404', async () => {
    const user = await invited();
    expect(await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/users`, { email: user.email.toUpperCase(), role: 'viewer' })).toMatchObject({
      status: 422,
      body: { error: messages.userEmailTaken },
    });
    const unknown = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    expect(await gateway.admin('POST', `/admin/v1/accounts/${unknown}/users`, { email: 'novo@example.com', role: 'owner' })).toMatchObject({
      status: 404,
      body: { error: messages.accountNotFound },
    });
  });

  it('passwords of 12 to 128 characters', async () => {
    const user = await invited();
    expect(await refusal(users().acceptInvite(user.token, 'x'.repeat(11)))).toMatchObject({ message: messages.passwordLength });
    expect(await refusal(users().acceptInvite(user.token, 'x'.repeat(129)))).toMatchObject({ message: messages.passwordLength });
    await users().acceptInvite(user.token, 'x'.repeat(12));
  });
});

describe('sign-in', () => {
  it('without TOTP the session is full at once; wrong password and unknown e-mail read the same', async () => {
    const user = await withPassword('finance');
    const { sessionToken, stage } = await users().signIn(user.email.toUpperCase(), PASSWORD);
    expect(stage).toBe('full');
    expect(await users().session(sessionToken)).toMatchObject({
      userId: user.userId,
      accountId: merchant.accountId,
      role: 'finance',
      stage: 'full',
      totpEnrolled: false,
    });
    expect(await refusal(users().signIn(user.email, 'wrong password!'))).toMatchObject({ message: messages.signInFailed });
    expect(await refusal(users().signIn('ninguem@example.com', PASSWORD))).toMatchObject({ message: messages.signInFailed });
    const stored = await gateway.database.db.selectFrom('sessions').select('idHash').where('userId', '=', user.userId).execute();
    expect(stored.map((row) => row.idHash.toString('base64url'))).not.toContain(sessionToken);
  });

  it('with TOTP: the password gives a session waiting for the code; a right code completes it, once', async () => {
    const user = await enrolled();
    const { sessionToken, stage } = await users().signIn(user.email, PASSWORD);
    expect(stage).toBe('password');
    expect(await users().session(sessionToken)).toMatchObject({ stage: 'password', totpEnrolled: true });
    expect(await refusal(users().completeSignIn(sessionToken, '000000'))).toMatchObject({ message: messages.totpCodeInvalid });
    const code = codeFor(user.secret);
    await users().completeSignIn(sessionToken, code);
    expect(await users().session(sessionToken)).toMatchObject({ stage: 'full' });
    // The same code again (another sign-in within its 30 s) is refused: a code is good once, and the refusal says so.
    const second = await users().signIn(user.email, PASSWORD);
    expect(await refusal(users().completeSignIn(second.sessionToken, code))).toMatchObject({ message: messages.totpCodeReused });
    expect(messages.totpCodeReused).toBe('Este código já foi usado; aguarde o próximo.');
    // One step of drift either way is accepted.
    gateway.clock.advance(30_000);
    await users().completeSignIn(second.sessionToken, codeFor(user.secret, 1));
  });

  it('5 failures lock the user for 15 minutes, even with the right password; then it works again', async () => {
    const user = await withPassword();
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(await refusal(users().signIn(user.email, 'wrong password!'))).toMatchObject({ message: messages.signInFailed });
    }
    expect(await refusal(users().signIn(user.email, PASSWORD))).toMatchObject({ message: messages.userLocked });
    // The manual clock also moves with real time (scrypt takes seconds on a loaded machine): a minute's margin.
    gateway.clock.advance(14 * 60_000);
    expect(await refusal(users().signIn(user.email, PASSWORD))).toMatchObject({ message: messages.userLocked });
    gateway.clock.advance(60_000);
    expect((await users().signIn(user.email, PASSWORD)).stage).toBe('full');
  });

  it('10 concurrent wrong passwords each count: the user ends locked', async () => {
    const user = await withPassword();
    const attempts = await Promise.all(Array.from({ length: 10 }, () => refusal(users().signIn(user.email, 'wrong password!'))));
    expect(attempts.every((error) => error instanceof Error)).toBe(true);
    expect(await refusal(users().signIn(user.email, PASSWORD))).toMatchObject({ message: messages.userLocked });
  });

  it('wrong TOTP codes count towards the lock-out too', async () => {
    const user = await enrolled();
    for (let attempt = 0; attempt < 5; attempt++) {
      const { sessionToken } = await users().signIn(user.email, PASSWORD);
      expect(await refusal(users().completeSignIn(sessionToken, '123456'))).toMatchObject({ message: messages.totpCodeInvalid });
    }
    expect(await refusal(users().signIn(user.email, PASSWORD))).toMatchObject({ message: messages.userLocked });
  });
});

describe('sessions', () => {
  it('end after 12 hours without use, and at sign-out', async () => {
    const user = await withPassword();
    const idle = await users().signIn(user.email, PASSWORD);
    gateway.clock.advance(11 * 3_600_000);
    expect(await users().session(idle.sessionToken)).not.toBeNull();
    gateway.clock.advance(11 * 3_600_000);
    expect(await users().session(idle.sessionToken)).not.toBeNull(); // used 11 h ago, not 22
    gateway.clock.advance(12 * 3_600_000 + 1000);
    expect(await users().session(idle.sessionToken)).toBeNull();
    const active = await users().signIn(user.email, PASSWORD);
    await users().signOut(active.sessionToken);
    expect(await users().session(active.sessionToken)).toBeNull();
    expect(await users().session('not-a-token')).toBeNull();
  });

  it('a password change ends the other sessions and keeps this one', async () => {
    const user = await withPassword();
    const here = await users().signIn(user.email, PASSWORD);
    const elsewhere = await users().signIn(user.email, PASSWORD);
    expect(await refusal(users().changePassword(user.userId, 'not the password', 'a new long password', here.sessionToken))).toMatchObject({
      message: messages.currentPasswordWrong,
    });
    await users().changePassword(user.userId, PASSWORD, 'a new long password', here.sessionToken);
    expect(await users().session(here.sessionToken)).not.toBeNull();
    expect(await users().session(elsewhere.sessionToken)).toBeNull();
    expect(await refusal(users().signIn(user.email, PASSWORD))).toMatchObject({ message: messages.signInFailed });
    expect((await users().signIn(user.email, 'a new long password')).stage).toBe('full');
  });
});

describe('TOTP enrolment', () => {
  it('stores the secret encrypted; a wrong code does not enrol; enrolling twice is refused', async () => {
    const user = await withPassword();
    expect(await refusal(users().confirmTotpEnrolment(user.userId, '123456'))).toMatchObject({ message: messages.totpEnrolmentNotStarted });
    const { secret } = await users().beginTotpEnrolment(user.userId);
    const row = await gateway.database.db.selectFrom('users').select('totpSecretEncrypted').where('id', '=', user.userId).executeTakeFirstOrThrow();
    expect(row.totpSecretEncrypted).toMatch(/^v1:/);
    expect(row.totpSecretEncrypted).not.toContain(secret);
    expect(await refusal(users().confirmTotpEnrolment(user.userId, '000000'))).toMatchObject({ message: messages.totpCodeInvalid });
    await users().confirmTotpEnrolment(user.userId, codeFor(secret));
    expect(await refusal(users().beginTotpEnrolment(user.userId))).toMatchObject({ message: messages.totpAlreadyEnrolled });
  });
});

describe('fresh codes for money actions (verifyCode)', () => {
  it('a code is good once even when requests race with it: one passes, the others are refused', async () => {
    const user = await enrolled();
    const code = codeFor(user.secret);
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() => users().verifyCode(user.userId, code)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const reasons = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as Error).message] : []));
    expect(reasons).toEqual([messages.totpCodeReused, messages.totpCodeReused, messages.totpCodeReused]);
    expect(((await refusal(users().verifyCode(user.userId, code))) as Error).message).toBe(messages.totpCodeReused);
    gateway.clock.advance(30_000);
    await users().verifyCode(user.userId, codeFor(user.secret));
  });
});

describe('team (Equipe)', () => {
  /** A new account with one owner who can sign in. */
  async function teamWithOwner() {
    const account = await gateway.createMerchant();
    const owner = await users().createWithPassword(account.accountId, { email: `dono${++counter}@example.com`, role: 'owner' }, PASSWORD);
    return { accountId: account.accountId, ownerId: owner.id };
  }
  const roles = async (accountId: string) => (await users().listMembers(accountId)).map((member) => member.role).sort();

  it('lists members and pending invitations; roles change', async () => {
    const { accountId, ownerId } = await teamWithOwner();
    const { userId } = await users().invite(accountId, { email: `convidado${++counter}@example.com`, role: 'viewer' });
    expect((await users().listMembers(accountId)).map(({ userId: id, role, invitationPending }) => ({ id, role, invitationPending }))).toEqual([
      { id: ownerId, role: 'owner', invitationPending: false },
      { id: userId, role: 'viewer', invitationPending: true },
    ]);
    await users().changeRole(accountId, userId, 'finance');
    expect(await roles(accountId)).toEqual(['finance', 'owner']);
  });

  it('the last owner who can sign in is neither demoted nor removed (an invited owner does not count)', async () => {
    const { accountId, ownerId } = await teamWithOwner();
    await users().invite(accountId, { email: `dono-convidado${++counter}@example.com`, role: 'owner' });
    for (const change of [() => users().changeRole(accountId, ownerId, 'viewer'), () => users().removeMember(accountId, ownerId)]) {
      const error = (await refusal(change())) as Error;
      expect(error.message).toBe(messages.lastOwner);
    }
    expect(await roles(accountId)).toEqual(['owner', 'owner']);
    await users().changeRole(accountId, ownerId, 'owner'); // staying owner is no change to refuse
  });

  it('two owners demoting each other at once: one change wins, the account keeps an owner', async () => {
    const { accountId, ownerId } = await teamWithOwner();
    const second = await users().createWithPassword(accountId, { email: `dona${++counter}@example.com`, role: 'owner' }, PASSWORD);
    const outcomes = await Promise.allSettled([users().changeRole(accountId, ownerId, 'viewer'), users().changeRole(accountId, second.id, 'viewer')]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as Error).message] : []))).toEqual([messages.lastOwner]);
    expect(await roles(accountId)).toEqual(['owner', 'viewer']);
  });

  it('a removed member loses its sessions at once; a removed invitation no longer works; its e-mail can be invited again', async () => {
    const { accountId } = await teamWithOwner();
    const email = `saindo${++counter}@example.com`;
    const member = await users().createWithPassword(accountId, { email, role: 'finance' }, PASSWORD);
    const { sessionToken } = await users().signIn(email, PASSWORD);
    expect(await users().session(sessionToken)).toMatchObject({ userId: member.id });
    await users().removeMember(accountId, member.id);
    expect(await users().session(sessionToken)).toBeNull();
    expect(((await refusal(users().signIn(email, PASSWORD))) as Error).message).toBe(messages.signInFailed);

    const invitation = await users().invite(accountId, { email, role: 'viewer' });
    await users().removeMember(accountId, invitation.userId);
    expect(((await refusal(users().acceptInvite(tokenOf(invitation.inviteUrl), PASSWORD))) as Error).message).toBe(messages.inviteInvalid);
    expect(await roles(accountId)).toEqual(['owner']);
  });

  it('three invitations of one address at once: one is made, the others read as taken (422)', async () => {
    const { accountId } = await teamWithOwner();
    const email = `concorrido${++counter}@example.com`;
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => users().invite(accountId, { email, role: 'viewer' })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as Error).message] : []))).toEqual([
      messages.userEmailTaken,
      messages.userEmailTaken,
    ]);
    expect(await roles(accountId)).toEqual(['owner', 'viewer']);
  });

  it("another account's member is not found, and stays as it was", async () => {
    const mine = await teamWithOwner();
    const theirs = await teamWithOwner();
    for (const change of [() => users().changeRole(mine.accountId, theirs.ownerId, 'viewer'), () => users().removeMember(mine.accountId, theirs.ownerId)]) {
      expect(((await refusal(change())) as Error).message).toBe(messages.userNotFound);
    }
    expect(await roles(theirs.accountId)).toEqual(['owner']);
  });
});
