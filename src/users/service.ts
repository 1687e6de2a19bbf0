import type { AccountService } from '../accounts/service.js';
import type { Config } from '../config.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import type { Mailer } from '../platform/mailer.js';
import { newId } from '../platform/ids.js';
import type { SessionStage, UserRole, UserRow } from '../platform/schema.js';
import { USER_REALM } from './credentialRepository.js';
import { assertTeamKeepsOne, Credentials } from './credentials.js';
import * as repository from './repository.js';

export const USER_ROLES = ['owner', 'developer', 'finance', 'viewer'] as const satisfies readonly UserRole[];

/** An invitation made: the one-time link, and whether it went by e-mail. */
export type Invitation = { userId: string; inviteUrl: string; emailed: 'sent' | 'failed' | 'not_configured'; emailError?: string };

/** A member of an account's team as the Equipe page shows it. */
export type TeamMember = { userId: string; email: string; role: UserRole; invitationPending: boolean; totpEnrolled: boolean; createdAt: number };

/** What a request knows of its signed-in user. */
export type SessionUser = { userId: string; accountId: string; email: string; role: UserRole; stage: SessionStage; totpEnrolled: boolean };

/**
 * Merchant dashboard users (DESIGN.md §10): one account each, a role, invited by the operator or
 * an owner; signing in is `Credentials`' (TOTP when the user enrols it).
 */
export class UserService extends Credentials<UserRow> {
  constructor(
    db: Db,
    clock: Clock,
    private readonly settings: Pick<Config, 'secretKey' | 'publicBaseUrl' | 'serviceName'>,
    private readonly accounts: AccountService,
    private readonly mailer: Mailer | null = null,
  ) {
    super(db, clock, settings, { realm: USER_REALM, totpRequired: false });
  }

  /**
   * Invites a user to an account (the operator, or an owner); the link is good once, for 72 h and
   * is e-mailed when SMTP is configured. An e-mail that fails does not undo the invitation: the
   * link is answered either way, and `emailed` says what happened.
   */
  async invite(accountId: string, input: { email: string; role: UserRole }): Promise<Invitation> {
    const { userId, token, email } = await this.inviteToAccount(accountId, input);
    const inviteUrl = `${this.settings.publicBaseUrl}/dashboard/convite/${token}`;
    if (!this.mailer) return { userId, inviteUrl, emailed: 'not_configured' };
    try {
      await this.mailer.send({
        to: email,
        subject: `Convite para o painel PIX ${this.settings.serviceName}`,
        text: [
          `Você foi convidado para o painel PIX ${this.settings.serviceName} com o papel ${input.role}.`,
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
    const { token } = await this.inviteToAccount(accountId, input);
    return this.acceptInvite(token, password);
  }

  private async inviteToAccount(accountId: string, input: { email: string; role: UserRole }): Promise<{ userId: string; token: string; email: string }> {
    await this.accounts.getAccount(accountId);
    const email = input.email.trim();
    const { personId, token } = await this.createInvitation(email, (tx, at) =>
      repository.insertUserIfEmailFree(tx, { id: newId(), accountId, email, role: input.role, at }),
    );
    return { userId: personId, token, email };
  }

  /** The signed-in user of a session token (12 h idle), or null. */
  async session(sessionToken: string): Promise<SessionUser | null> {
    const session = await this.liveSession(sessionToken);
    if (!session) return null;
    const { person, stage } = session;
    return { userId: person.id, accountId: person.accountId, email: person.email, role: person.role, stage, totpEnrolled: person.totpEnrolledAt !== null };
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
      assertTeamKeepsOne(team, userId, { role: 'owner', staysInRole: staysOwner, notFound: messages.userNotFound, lastOne: messages.lastOwner });
      await change(tx, this.clock.now());
    });
  }
}
