import type { Config } from '../config.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { OperatorRole, OperatorRow, SessionStage } from '../platform/schema.js';
import { OPERATOR_REALM } from '../users/credentialRepository.js';
import { assertTeamKeepsOne, Credentials } from '../users/credentials.js';
import * as repository from './repository.js';

/** What a back-office request knows of its signed-in operator. */
export type OperatorSession = { operatorId: string; email: string; role: OperatorRole; stage: SessionStage };

/** An operator as the Operadores page shows it. */
export type OperatorView = { operatorId: string; email: string; role: OperatorRole; invitationPending: boolean; totpEnrolled: boolean; createdAt: number };

/** The audit log's name for an operator (DESIGN.md §11). */
export const operatorActor = (operatorId: string): string => `operator:${operatorId}`;

/**
 * The service team's operator users (DESIGN.md §11): admin, compliance, support, invited by an
 * admin with a one-time link; signing in is `Credentials`', with TOTP required (enrolled at the
 * first sign-in).
 */
export class OperatorService extends Credentials<OperatorRow> {
  constructor(
    db: Db,
    clock: Clock,
    private readonly settings: Pick<Config, 'secretKey' | 'publicBaseUrl' | 'serviceName'>,
  ) {
    super(db, clock, settings, { realm: OPERATOR_REALM, totpRequired: true });
  }

  /** A new operator's one-time link (72 h) to choose a password; TOTP comes at the first sign-in. */
  async invite(input: { email: string; role: OperatorRole }): Promise<{ operatorId: string; inviteUrl: string }> {
    const { personId, token } = await this.createOperator(input);
    return { operatorId: personId, inviteUrl: `${this.settings.publicBaseUrl}/backoffice/convite/${token}` };
  }

  /** An operator with a password at once (the first admin of the embedded default), through the same invitation. */
  async createWithPassword(input: { email: string; role: OperatorRole }, password: string): Promise<OperatorRow> {
    const { token } = await this.createOperator(input);
    return this.acceptInvite(token, password);
  }

  private createOperator(input: { email: string; role: OperatorRole }) {
    const email = input.email.trim();
    return this.createInvitation(email, (tx, at) => repository.insertOperatorIfEmailFree(tx, { id: newId(), email, role: input.role, at }));
  }

  anyExists(): Promise<boolean> {
    return repository.anyOperatorExists(this.db);
  }

  /** The signed-in operator of a session token (12 h idle), or null. */
  async session(sessionToken: string): Promise<OperatorSession | null> {
    const session = await this.liveSession(sessionToken);
    if (!session) return null;
    return { operatorId: session.person.id, email: session.person.email, role: session.person.role, stage: session.stage };
  }

  async list(): Promise<OperatorView[]> {
    return (await repository.listOperators(this.db)).map((row) => ({
      operatorId: row.id,
      email: row.email,
      role: row.role,
      invitationPending: row.passwordHash === null,
      totpEnrolled: row.totpEnrolledAt !== null,
      createdAt: row.createdAt.getTime(),
    }));
  }

  /** An admin changes an operator's role; the team always keeps an admin who can sign in. */
  async changeRole(operatorId: string, role: OperatorRole): Promise<void> {
    await this.changeTeam(operatorId, role === 'admin', (tx, at) => repository.setOperatorRole(tx, operatorId, role, at));
  }

  /** An admin removes an operator (or a pending invitation): its sessions end at once. */
  async remove(operatorId: string): Promise<void> {
    await this.changeTeam(operatorId, false, (tx, at) => repository.removeOperator(tx, operatorId, at));
  }

  private async changeTeam(operatorId: string, staysAdmin: boolean, change: (tx: Tx, at: Date) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const team = await repository.lockOperators(tx);
      assertTeamKeepsOne(team, operatorId, { role: 'admin', staysInRole: staysAdmin, notFound: messages.operatorNotFound, lastOne: messages.lastAdmin });
      await change(tx, this.clock.now());
    });
  }
}
