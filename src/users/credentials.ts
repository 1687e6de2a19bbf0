import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Config } from '../config.js';
import { InvalidRequestError, InvalidStateError, NotFoundError, RateLimitedError, UnauthenticatedError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import type { SessionStage } from '../platform/schema.js';
import { decryptSecret, encryptSecret, sha256 } from '../platform/secrets.js';
import * as repository from './credentialRepository.js';
import type { Person, Realm } from './credentialRepository.js';
import { hashPassword, UNMATCHABLE_HASH, verifyPassword } from './passwords.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** One-time invitation links are good for 72 hours (DESIGN.md §10). */
const INVITE_TTL_MS = 72 * HOUR_MS;
/** Sessions end after 12 hours without a request. */
const SESSION_IDLE_MS = 12 * HOUR_MS;
/** 5 failed attempts (password or code) lock the person for 15 minutes. */
const MAX_FAILED_ATTEMPTS = 5;
const LOCK_MS = 15 * MINUTE_MS;
const TOTP_PERIOD_S = 30;

const newToken = (): string => randomBytes(32).toString('base64url');

/**
 * What an invitation link is worth before a password is typed: `usable`; `unknown` (no invitation
 * has this token); `spent` (used, expired, or its person removed — the row tells these apart from
 * an unknown token, not from each other, and the page says the same for all three).
 */
export type InviteState = 'usable' | 'unknown' | 'spent';

/** A live session: its person as the database has it now, and how far the sign-in got. */
export type LiveSession<P> = { person: P; stage: SessionStage };

export type CredentialOptions = {
  realm: Realm;
  /** Operators must enrol TOTP to sign in (DESIGN.md §11); dashboard users choose to. */
  totpRequired: boolean;
};

/**
 * Signing in, for the dashboard's users and the back-office's operators alike (DESIGN.md §10,
 * §11): invitations, scrypt passwords, TOTP (RFC 6238, 30 s, 6 digits, ±1 step, each code good
 * once), lock-out and server-side sessions. Tokens (invitation and session) are 32 random bytes;
 * only their SHA-256 is stored.
 */
export class Credentials<P extends Person> {
  constructor(
    protected readonly db: Db,
    protected readonly clock: Clock,
    protected readonly config: Pick<Config, 'secretKey' | 'serviceName'>,
    private readonly options: CredentialOptions,
  ) {}

  private get realm(): Realm {
    return this.options.realm;
  }

  /**
   * A person and the invitation's token, in one transaction: `insert` answers undefined when the
   * address is taken (two invitations of one address at once: the unique index decides).
   */
  protected async createInvitation(
    email: string,
    insert: (tx: Tx, at: Date) => Promise<{ id: string } | undefined>,
  ): Promise<{ personId: string; token: string }> {
    if (await repository.findPersonByEmail(this.db, this.realm, email)) throw new InvalidStateError(messages.userEmailTaken);
    const token = newToken();
    const at = this.clock.now();
    const personId = await this.db.transaction().execute(async (tx) => {
      const created = await insert(tx, at);
      if (!created) throw new InvalidStateError(messages.userEmailTaken);
      await repository.insertInvite(tx, this.realm, { tokenHash: sha256(token), personId: created.id, expiresAt: new Date(at.getTime() + INVITE_TTL_MS), at });
      return created.id;
    });
    return { personId, token };
  }

  /** Whether an invitation's link can still set a password, read without using it. */
  async inviteState(token: string): Promise<InviteState> {
    const invite = await repository.findInvite(this.db, this.realm, sha256(token));
    if (!invite) return 'unknown';
    return invite.usedAt === null && invite.expiresAt > this.clock.now() ? 'usable' : 'spent';
  }

  /** The invited person chooses a password; the invitation is used up. */
  async acceptInvite(token: string, password: string): Promise<P> {
    checkPasswordLength(password);
    const passwordHash = await hashPassword(password);
    return this.db.transaction().execute(async (tx) => {
      const at = this.clock.now();
      const personId = await repository.takeInvite(tx, this.realm, sha256(token), at);
      const person = personId ? await repository.lockPerson<P>(tx, this.realm, personId) : undefined;
      if (!person) throw new NotFoundError(messages.inviteInvalid);
      await repository.updatePerson(tx, this.realm, person.id, { passwordHash }, at);
      return { ...person, passwordHash };
    });
  }

  /**
   * E-mail and password. Answers a session token: `full` when no TOTP code is to come, else
   * `password` (the code, or the enrolment when TOTP is required and not enrolled yet, comes next:
   * `completeSignIn`). Unknown e-mail and wrong password read the same and take as long.
   */
  async signIn(email: string, password: string): Promise<{ sessionToken: string; stage: SessionStage }> {
    const person = await repository.findPersonByEmail<P>(this.db, this.realm, email.trim());
    const matches = await verifyPassword(password, person?.passwordHash ?? UNMATCHABLE_HASH);
    if (!person?.passwordHash) throw new UnauthenticatedError(messages.signInFailed);
    this.refuseIfLocked(person);
    if (!matches) {
      await this.recordFailure(person);
      throw new UnauthenticatedError(messages.signInFailed);
    }
    const at = this.clock.now();
    const stage: SessionStage = person.totpEnrolledAt || this.options.totpRequired ? 'password' : 'full';
    // The count starts again only once fully signed in: wrong codes after right passwords add up.
    if (stage === 'full') await repository.updatePerson(this.db, this.realm, person.id, { failedAttempts: 0, lockedUntil: null }, at);
    const sessionToken = newToken();
    await repository.insertSession(this.db, this.realm, { idHash: sha256(sessionToken), personId: person.id, stage, at });
    return { sessionToken, stage };
  }

  /**
   * The TOTP code after the password: the session becomes `full`. A person who must have TOTP and
   * has not enrolled it yet confirms the enrolment begun on the code page with this code.
   */
  async completeSignIn(sessionToken: string, code: string): Promise<void> {
    const { person } = await this.requireSession(sessionToken, 'password');
    if (person.totpEnrolledAt) await this.verifyCode(person.id, code);
    else await this.confirmTotpEnrolment(person.id, code);
    await repository.touchSession(this.db, this.realm, sha256(sessionToken), { lastSeenAt: this.clock.now(), stage: 'full' });
  }

  /** The session of a token, while live (12 h idle); its last use is refreshed at most once a minute. */
  protected async liveSession(sessionToken: string): Promise<LiveSession<P> | null> {
    const now = this.clock.now();
    const idHash = sha256(sessionToken);
    const row = await repository.findLiveSession<P>(this.db, this.realm, idHash, new Date(now.getTime() - SESSION_IDLE_MS));
    if (!row) return null;
    if (now.getTime() - row.lastSeenAt.getTime() > MINUTE_MS) await repository.touchSession(this.db, this.realm, idHash, { lastSeenAt: now });
    return { person: row.person, stage: row.stage };
  }

  /**
   * What the code page of a sign-in shows when TOTP is required and not enrolled yet: the
   * enrolment (begun on the first visit, the same one after). Null when a code is what comes next.
   */
  async enrolmentForSignIn(sessionToken: string): Promise<{ secret: string; uri: string } | null> {
    const session = await this.liveSession(sessionToken);
    if (session?.stage !== 'password' || session.person.totpEnrolledAt) return null;
    return (await this.pendingTotpEnrolment(session.person.id)) ?? (await this.beginTotpEnrolment(session.person.id));
  }

  async signOut(sessionToken: string): Promise<void> {
    await repository.endSession(this.db, this.realm, sha256(sessionToken), this.clock.now());
  }

  /** Starts (or restarts) TOTP enrolment: a new secret, kept encrypted until a code confirms it. */
  async beginTotpEnrolment(personId: string): Promise<{ secret: string; uri: string }> {
    const person = await this.requirePerson(personId);
    if (person.totpEnrolledAt) throw new InvalidStateError(messages.totpAlreadyEnrolled);
    const secret = new Secret({ size: 20 });
    await repository.updatePerson(
      this.db,
      this.realm,
      personId,
      { totpSecretEncrypted: encryptSecret(secret.base32, this.config.secretKey) },
      this.clock.now(),
    );
    return { secret: secret.base32, uri: this.totpFor(person.email, secret).toString() };
  }

  /** The enrolment begun and not yet confirmed, if any: its secret and URI, shown again until confirmed. */
  async pendingTotpEnrolment(personId: string): Promise<{ secret: string; uri: string } | null> {
    const person = await this.requirePerson(personId);
    if (person.totpEnrolledAt || !person.totpSecretEncrypted) return null;
    const secret = Secret.fromBase32(decryptSecret(person.totpSecretEncrypted, this.config.secretKey));
    return { secret: secret.base32, uri: this.totpFor(person.email, secret).toString() };
  }

  /** A code from the authenticator confirms the enrolment. */
  async confirmTotpEnrolment(personId: string, code: string): Promise<void> {
    const person = await this.requirePerson(personId);
    if (person.totpEnrolledAt) throw new InvalidStateError(messages.totpAlreadyEnrolled);
    if (!person.totpSecretEncrypted) throw new InvalidStateError(messages.totpEnrolmentNotStarted);
    await this.verifyCode(personId, code);
    await repository.updatePerson(this.db, this.realm, personId, { totpEnrolledAt: this.clock.now() }, this.clock.now());
  }

  /** A fresh code for an action that needs one: each code once, even under concurrent requests; failures count like sign-in. */
  async verifyCode(personId: string, code: string): Promise<void> {
    const person = await this.requirePerson(personId);
    this.refuseIfLocked(person);
    const now = this.clock.now();
    const step = person.totpSecretEncrypted ? this.matchingStep(person, code, now) : null;
    if (step === null || !(await repository.claimTotpStep(this.db, this.realm, personId, step, now))) {
      await this.recordFailure(person);
      // A right code whose step was already used: the person typed it twice, not wrongly; the next one works.
      throw new UnauthenticatedError(step === null ? messages.totpCodeInvalid : messages.totpCodeReused);
    }
  }

  /** A new password; every other session of the person ends. */
  async changePassword(personId: string, current: string, next: string, keepSessionToken: string): Promise<void> {
    const person = await this.requirePerson(personId);
    checkPasswordLength(next);
    if (!person.passwordHash || !(await verifyPassword(current, person.passwordHash))) throw new UnauthenticatedError(messages.currentPasswordWrong);
    const at = this.clock.now();
    await repository.updatePerson(this.db, this.realm, personId, { passwordHash: await hashPassword(next) }, at);
    await repository.endOtherSessions(this.db, this.realm, personId, sha256(keepSessionToken), at);
  }

  /** The person's live sessions, the one of `currentToken` marked (the Segurança page). */
  async listSessions(personId: string, currentToken: string): Promise<{ createdAt: number; lastSeenAt: number; current: boolean }[]> {
    const current = sha256(currentToken);
    const rows = await repository.listLiveSessions(this.db, this.realm, personId, new Date(this.clock.now().getTime() - SESSION_IDLE_MS));
    return rows
      .filter((row) => row.stage === 'full')
      .map((row) => ({ createdAt: row.createdAt.getTime(), lastSeenAt: row.lastSeenAt.getTime(), current: row.idHash.equals(current) }));
  }

  /** Ends every session of the person but the current one (a lost phone, a shared computer). */
  async endOtherSessions(personId: string, currentToken: string): Promise<void> {
    await repository.endOtherSessions(this.db, this.realm, personId, sha256(currentToken), this.clock.now());
  }

  private async requireSession(sessionToken: string, stage: SessionStage): Promise<LiveSession<P>> {
    const session = await this.liveSession(sessionToken);
    if (session?.stage !== stage) throw new UnauthenticatedError(messages.sessionRequired);
    return session;
  }

  private async requirePerson(personId: string): Promise<P> {
    const person = await repository.findPerson<P>(this.db, this.realm, personId);
    if (!person) throw new UnauthenticatedError(messages.sessionRequired);
    return person;
  }

  private refuseIfLocked(person: P): void {
    if (person.lockedUntil && person.lockedUntil > this.clock.now()) throw new RateLimitedError(messages.userLocked);
  }

  /** One more failure; the fifth locks the person for 15 minutes and starts the count again. */
  private async recordFailure(person: P): Promise<void> {
    const now = this.clock.now();
    await repository.recordFailedAttempt(this.db, this.realm, person.id, {
      maxAttempts: MAX_FAILED_ATTEMPTS,
      now,
      lockUntil: new Date(now.getTime() + LOCK_MS),
    });
  }

  /** The time step the code belongs to (±1 step around now), or null. */
  private matchingStep(person: P, code: string, now: Date): number | null {
    if (!/^\d{6}$/.test(code.trim()) || !person.totpSecretEncrypted) return null;
    const totp = this.totpFor(person.email, Secret.fromBase32(decryptSecret(person.totpSecretEncrypted, this.config.secretKey)));
    const delta = totp.validate({ token: code.trim(), timestamp: now.getTime(), window: 1 });
    return delta === null ? null : Math.floor(now.getTime() / 1000 / TOTP_PERIOD_S) + delta;
  }

  private totpFor(email: string, secret: Secret): TOTP {
    return new TOTP({ issuer: this.config.serviceName, label: email, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S, secret });
  }
}

/**
 * The rule both teams keep — an account's owners, the back-office's admins: a change to `personId`
 * (removal, or a role other than `role` when `staysInRole` is false) may not leave the team, read
 * under a lock, without someone of `role` who can sign in.
 */
export function assertTeamKeepsOne(
  team: readonly Person[],
  personId: string,
  rule: { role: string; staysInRole: boolean; notFound: string; lastOne: string },
): void {
  const person = team.find((row) => row.id === personId);
  if (!person) throw new NotFoundError(rule.notFound);
  const others = team.filter((row) => row.id !== personId && row.role === rule.role && row.passwordHash !== null);
  if (person.role === rule.role && !rule.staysInRole && others.length === 0) throw new InvalidStateError(rule.lastOne);
}

function checkPasswordLength(password: string): void {
  if (password.length < 12 || password.length > 128) throw new InvalidRequestError(messages.passwordLength);
}
