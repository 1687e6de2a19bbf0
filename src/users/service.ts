import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { AccountService } from '../accounts/service.js';
import type { Config } from '../config.js';
import { InvalidRequestError, InvalidStateError, NotFoundError, RateLimitedError, UnauthenticatedError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import type { Mailer } from '../platform/mailer.js';
import { newId } from '../platform/ids.js';
import type { SessionStage, UserRole, UserRow } from '../platform/schema.js';
import { decryptSecret, encryptSecret, sha256 } from '../platform/secrets.js';
import { hashPassword, UNMATCHABLE_HASH, verifyPassword } from './passwords.js';
import * as repository from './repository.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** One-time invitation links are good for 72 hours (DESIGN.md §10). */
const INVITE_TTL_MS = 72 * HOUR_MS;
/** Sessions end after 12 hours without a request. */
const SESSION_IDLE_MS = 12 * HOUR_MS;
/** 5 failed attempts (password or code) lock the user for 15 minutes. */
const MAX_FAILED_ATTEMPTS = 5;
const LOCK_MS = 15 * MINUTE_MS;
const TOTP_PERIOD_S = 30;

export const USER_ROLES = ['owner', 'developer', 'finance', 'viewer'] as const satisfies readonly UserRole[];

/** What a request knows of its signed-in user. */
/** An invitation made: the one-time link, and whether it went by e-mail. */
export type Invitation = { userId: string; inviteUrl: string; emailed: 'sent' | 'failed' | 'not_configured'; emailError?: string };

/** A member of an account's team as the Equipe page shows it. */
export type TeamMember = { userId: string; email: string; role: UserRole; invitationPending: boolean; totpEnrolled: boolean; createdAt: number };

export type SessionUser = { userId: string; accountId: string; email: string; role: UserRole; stage: SessionStage; totpEnrolled: boolean };

const newToken = (): string => randomBytes(32).toString('base64url');

/**
 * Merchant dashboard users (DESIGN.md §10): invitations, scrypt passwords, TOTP (RFC 6238, 30 s,
 * 6 digits, ±1 step, each code good once), lock-out and server-side sessions. Tokens (invitation
 * and session) are 32 random bytes; only their SHA-256 is stored.
 */
export class UserService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'secretKey' | 'publicBaseUrl' | 'serviceName'>,
    private readonly accounts: AccountService,
    private readonly mailer: Mailer | null = null,
  ) {}

  /**
   * Invites a user to an account (the operator, or an owner); the link is good once, for 72 h and
   * is e-mailed when SMTP is configured. An e-mail that fails does not undo the invitation: the
   * link is answered either way, and `emailed` says what happened.
   */
  async invite(accountId: string, input: { email: string; role: UserRole }): Promise<Invitation> {
    const { userId, token, email } = await this.createInvitation(accountId, input);
    const inviteUrl = `${this.config.publicBaseUrl}/dashboard/convite/${token}`;
    if (!this.mailer) return { userId, inviteUrl, emailed: 'not_configured' };
    try {
      await this.mailer.send({
        to: email,
        subject: `Convite para o painel PIX ${this.config.serviceName}`,
        text: [
          `Você foi convidado para o painel PIX ${this.config.serviceName} com o papel ${input.role}.`,
          '',
          `Defina sua senha em até 72 horas (o link vale uma vez): ${inviteUrl}`,
          '',
          'Se você não esperava este convite, ignore este e-mail.',
        ].join('\n'),
      });
      return { userId, inviteUrl, emailed: 'sent' };
    } catch (error) {
      return { userId, inviteUrl, emailed: 'failed', emailError: error instanceof Error ? error.message : String(error) };
    }
  }

  /** A user with a password at once (the demo owner of the first start), through the same invitation. */
  async createWithPassword(accountId: string, input: { email: string; role: UserRole }, password: string): Promise<UserRow> {
    const { token } = await this.createInvitation(accountId, input);
    return this.acceptInvite(token, password);
  }

  private async createInvitation(accountId: string, input: { email: string; role: UserRole }): Promise<{ userId: string; token: string; email: string }> {
    await this.accounts.getAccount(accountId);
    const email = input.email.trim();
    if (await repository.findUserByEmail(this.db, email)) throw new InvalidStateError(messages.userEmailTaken);
    const token = newToken();
    const at = this.clock.now();
    const userId = await this.db.transaction().execute(async (tx) => {
      // Two invitations of one address at once: the unique index decides, the loser reads as taken.
      const created = await repository.insertUserIfEmailFree(tx, { id: newId(), accountId, email, role: input.role, at });
      if (!created) throw new InvalidStateError(messages.userEmailTaken);
      await repository.insertInvite(tx, { tokenHash: sha256(token), userId: created.id, expiresAt: new Date(at.getTime() + INVITE_TTL_MS), at });
      return created.id;
    });
    return { userId, token, email };
  }

  /** The invited user chooses a password; the invitation is used up. */
  async acceptInvite(token: string, password: string): Promise<UserRow> {
    checkPasswordLength(password);
    const passwordHash = await hashPassword(password);
    return this.db.transaction().execute(async (tx) => {
      const at = this.clock.now();
      const userId = await repository.takeInvite(tx, sha256(token), at);
      const user = userId ? await repository.lockUser(tx, userId) : undefined;
      if (!user) throw new NotFoundError(messages.inviteInvalid);
      await repository.updateUser(tx, user.id, { passwordHash }, at);
      return { ...user, passwordHash };
    });
  }

  /**
   * E-mail and password. Answers a session token: `full` when the user has no TOTP yet, else
   * `password` (the code comes next, `completeSignIn`). Unknown e-mail and wrong password read
   * the same and take as long.
   */
  async signIn(email: string, password: string): Promise<{ sessionToken: string; stage: SessionStage }> {
    const user = await repository.findUserByEmail(this.db, email.trim());
    const matches = await verifyPassword(password, user?.passwordHash ?? UNMATCHABLE_HASH);
    if (!user?.passwordHash) throw new UnauthenticatedError(messages.signInFailed);
    await this.refuseIfLocked(user);
    if (!matches) {
      await this.recordFailure(user);
      throw new UnauthenticatedError(messages.signInFailed);
    }
    const at = this.clock.now();
    const stage: SessionStage = user.totpEnrolledAt ? 'password' : 'full';
    // The count starts again only once fully signed in: wrong codes after right passwords add up.
    if (stage === 'full') await repository.updateUser(this.db, user.id, { failedAttempts: 0, lockedUntil: null }, at);
    const sessionToken = newToken();
    await repository.insertSession(this.db, { idHash: sha256(sessionToken), userId: user.id, accountId: user.accountId, stage, at });
    return { sessionToken, stage };
  }

  /** The TOTP code after the password: the session becomes `full`. */
  async completeSignIn(sessionToken: string, code: string): Promise<void> {
    const session = await this.requireSession(sessionToken, { stage: 'password' });
    await this.verifyCode(session.userId, code);
    await repository.touchSession(this.db, sha256(sessionToken), { lastSeenAt: this.clock.now(), stage: 'full' });
  }

  /** The session of a token, while live (12 h idle); its last use is refreshed at most once a minute. */
  async session(sessionToken: string): Promise<SessionUser | null> {
    const now = this.clock.now();
    const idHash = sha256(sessionToken);
    const row = await repository.findLiveSession(this.db, idHash, new Date(now.getTime() - SESSION_IDLE_MS));
    if (!row) return null;
    if (now.getTime() - row.lastSeenAt.getTime() > MINUTE_MS) await repository.touchSession(this.db, idHash, { lastSeenAt: now });
    return { userId: row.userId, accountId: row.accountId, email: row.email, role: row.role, stage: row.stage, totpEnrolled: row.totpEnrolledAt !== null };
  }

  async signOut(sessionToken: string): Promise<void> {
    await repository.endSession(this.db, sha256(sessionToken), this.clock.now());
  }

  /** Starts (or restarts) TOTP enrolment: a new secret, kept encrypted until a code confirms it. */
  async beginTotpEnrolment(userId: string): Promise<{ secret: string; uri: string }> {
    const user = await this.requireUser(userId);
    if (user.totpEnrolledAt) throw new InvalidStateError(messages.totpAlreadyEnrolled);
    const secret = new Secret({ size: 20 });
    await repository.updateUser(this.db, userId, { totpSecretEncrypted: encryptSecret(secret.base32, this.config.secretKey) }, this.clock.now());
    return { secret: secret.base32, uri: this.totpFor(user.email, secret).toString() };
  }

  /** The enrolment begun and not yet confirmed, if any: its secret and URI, shown again until confirmed. */
  async pendingTotpEnrolment(userId: string): Promise<{ secret: string; uri: string } | null> {
    const user = await this.requireUser(userId);
    if (user.totpEnrolledAt || !user.totpSecretEncrypted) return null;
    const secret = Secret.fromBase32(decryptSecret(user.totpSecretEncrypted, this.config.secretKey));
    return { secret: secret.base32, uri: this.totpFor(user.email, secret).toString() };
  }

  /** A code from the authenticator confirms the enrolment. */
  async confirmTotpEnrolment(userId: string, code: string): Promise<void> {
    const user = await this.requireUser(userId);
    if (user.totpEnrolledAt) throw new InvalidStateError(messages.totpAlreadyEnrolled);
    if (!user.totpSecretEncrypted) throw new InvalidStateError(messages.totpEnrolmentNotStarted);
    await this.verifyCode(userId, code);
    await repository.updateUser(this.db, userId, { totpEnrolledAt: this.clock.now() }, this.clock.now());
  }

  /** A fresh code for an action that needs one (a dashboard withdrawal or refund): each code once, even under concurrent requests; failures count like sign-in. */
  async verifyCode(userId: string, code: string): Promise<void> {
    const user = await this.requireUser(userId);
    await this.refuseIfLocked(user);
    const now = this.clock.now();
    const step = user.totpSecretEncrypted ? this.matchingStep(user, code, now) : null;
    if (step === null || !(await repository.claimTotpStep(this.db, userId, step, now))) {
      await this.recordFailure(user);
      throw new UnauthenticatedError(messages.totpCodeInvalid);
    }
  }

  /** A new password; every other session of the user ends. */
  async changePassword(userId: string, current: string, next: string, keepSessionToken: string): Promise<void> {
    const user = await this.requireUser(userId);
    checkPasswordLength(next);
    if (!user.passwordHash || !(await verifyPassword(current, user.passwordHash))) throw new UnauthenticatedError(messages.currentPasswordWrong);
    const at = this.clock.now();
    await repository.updateUser(this.db, userId, { passwordHash: await hashPassword(next) }, at);
    await repository.endOtherSessions(this.db, userId, sha256(keepSessionToken), at);
  }

  /** The account's team: members and pending invitations. */
  async listMembers(accountId: string): Promise<TeamMember[]> {
    const rows = await repository.listAccountUsers(this.db, accountId);
    return rows.map((row) => ({
      userId: row.id,
      email: row.email,
      role: row.role,
      invitationPending: row.passwordHash === null,
      totpEnrolled: row.totpEnrolledAt !== null,
      createdAt: row.createdAt.getTime(),
    }));
  }

  /** An owner changes a member's role; the account always keeps an owner who can sign in. */
  async changeRole(accountId: string, userId: string, role: UserRole): Promise<void> {
    await this.changeTeam(accountId, userId, role === 'owner', (tx, at) => repository.setUserRole(tx, userId, role, at));
  }

  /** An owner removes a member (or a pending invitation): its sessions end at once. */
  async removeMember(accountId: string, userId: string): Promise<void> {
    await this.changeTeam(accountId, userId, false, (tx, at) => repository.removeUser(tx, userId, at));
  }

  private async changeTeam(accountId: string, userId: string, staysOwner: boolean, change: (tx: Tx, at: Date) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const team = await repository.lockAccountUsers(tx, accountId);
      const member = team.find((user) => user.id === userId);
      if (!member) throw new NotFoundError(messages.userNotFound);
      const otherOwners = team.filter((user) => user.id !== userId && user.role === 'owner' && user.passwordHash !== null);
      if (member.role === 'owner' && !staysOwner && otherOwners.length === 0) throw new InvalidStateError(messages.lastOwner);
      await change(tx, this.clock.now());
    });
  }

  /** The user's live sessions, the one of `currentToken` marked (the Segurança page). */
  async listSessions(userId: string, currentToken: string): Promise<{ createdAt: number; lastSeenAt: number; current: boolean }[]> {
    const current = sha256(currentToken);
    const rows = await repository.listLiveSessions(this.db, userId, new Date(this.clock.now().getTime() - SESSION_IDLE_MS));
    return rows
      .filter((row) => row.stage === 'full')
      .map((row) => ({ createdAt: row.createdAt.getTime(), lastSeenAt: row.lastSeenAt.getTime(), current: row.idHash.equals(current) }));
  }

  /** Ends every session of the user but the current one (a lost phone, a shared computer). */
  async endOtherSessions(userId: string, currentToken: string): Promise<void> {
    await repository.endOtherSessions(this.db, userId, sha256(currentToken), this.clock.now());
  }

  private async requireSession(sessionToken: string, options: { stage: SessionStage }): Promise<SessionUser> {
    const session = await this.session(sessionToken);
    if (session?.stage !== options.stage) throw new UnauthenticatedError(messages.sessionRequired);
    return session;
  }

  private async requireUser(userId: string): Promise<UserRow> {
    const user = await repository.findUser(this.db, userId);
    if (!user) throw new UnauthenticatedError(messages.sessionRequired);
    return user;
  }

  private async refuseIfLocked(user: UserRow): Promise<void> {
    if (user.lockedUntil && user.lockedUntil > this.clock.now()) throw new RateLimitedError(messages.userLocked);
  }

  /** One more failure; the fifth locks the user for 15 minutes and starts the count again. */
  private async recordFailure(user: UserRow): Promise<void> {
    const now = this.clock.now();
    await repository.recordFailedAttempt(this.db, user.id, { maxAttempts: MAX_FAILED_ATTEMPTS, now, lockUntil: new Date(now.getTime() + LOCK_MS) });
  }

  /** The time step the code belongs to (±1 step around now), or null. */
  private matchingStep(user: UserRow, code: string, now: Date): number | null {
    if (!/^\d{6}$/.test(code.trim()) || !user.totpSecretEncrypted) return null;
    const totp = this.totpFor(user.email, Secret.fromBase32(decryptSecret(user.totpSecretEncrypted, this.config.secretKey)));
    const delta = totp.validate({ token: code.trim(), timestamp: now.getTime(), window: 1 });
    return delta === null ? null : Math.floor(now.getTime() / 1000 / TOTP_PERIOD_S) + delta;
  }

  private totpFor(email: string, secret: Secret): TOTP {
    return new TOTP({ issuer: this.config.serviceName, label: email, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S, secret });
  }
}

function checkPasswordLength(password: string): void {
  if (password.length < 12 || password.length > 128) throw new InvalidRequestError(messages.passwordLength);
}
