import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { SessionStage } from '../platform/schema.js';

/**
 * Where a kind of person signs in from: the dashboard's users (migration 007) or the back-office's
 * operators (migration 010). Their tables have the same credential columns, so the SQL of signing
 * in is written once, over the realm's table names.
 */
export type Realm = {
  people: 'users' | 'operators';
  invites: 'user_invites' | 'operator_invites';
  sessions: 'sessions' | 'operator_sessions';
  /** The column of invitations and sessions that names their person. */
  personColumn: 'user_id' | 'operator_id';
};

export const USER_REALM: Realm = { people: 'users', invites: 'user_invites', sessions: 'sessions', personColumn: 'user_id' };
export const OPERATOR_REALM: Realm = { people: 'operators', invites: 'operator_invites', sessions: 'operator_sessions', personColumn: 'operator_id' };

/** The credential columns every person row has. */
export type Person = {
  id: string;
  email: string;
  role: string;
  passwordHash: string | null;
  totpSecretEncrypted: string | null;
  totpEnrolledAt: Date | null;
  totpLastStep: number | null;
  failedAttempts: number;
  lockedUntil: Date | null;
};

export type CredentialChanges = Partial<
  Pick<Person, 'passwordHash' | 'totpSecretEncrypted' | 'totpEnrolledAt' | 'totpLastStep' | 'failedAttempts' | 'lockedUntil'>
>;

const people = (realm: Realm) => sql.table(realm.people);
const personColumn = (realm: Realm) => sql.ref(realm.personColumn);

/** A live person by e-mail (case-insensitive). */
export async function findPersonByEmail<P extends Person>(db: Executor, realm: Realm, email: string): Promise<P | undefined> {
  const { rows } = await sql<P>`SELECT * FROM ${people(realm)} WHERE lower(email) = ${email.toLowerCase()} AND removed_at IS NULL`.execute(db);
  return rows[0];
}

export async function findPerson<P extends Person>(db: Executor, realm: Realm, id: string): Promise<P | undefined> {
  const { rows } = await sql<P>`SELECT * FROM ${people(realm)} WHERE id = ${id} AND removed_at IS NULL`.execute(db);
  return rows[0];
}

export async function lockPerson<P extends Person>(tx: Tx, realm: Realm, id: string): Promise<P | undefined> {
  const { rows } = await sql<P>`SELECT * FROM ${people(realm)} WHERE id = ${id} AND removed_at IS NULL FOR UPDATE`.execute(tx);
  return rows[0];
}

const COLUMNS: Record<keyof CredentialChanges, string> = {
  passwordHash: 'password_hash',
  totpSecretEncrypted: 'totp_secret_encrypted',
  totpEnrolledAt: 'totp_enrolled_at',
  totpLastStep: 'totp_last_step',
  failedAttempts: 'failed_attempts',
  lockedUntil: 'locked_until',
};

export async function updatePerson(db: Executor, realm: Realm, id: string, changes: CredentialChanges, at: Date): Promise<void> {
  const assignments = Object.entries(COLUMNS)
    .filter(([property]) => property in changes)
    .map(([property, column]) => sql`${sql.ref(column)} = ${Reflect.get(changes, property)}`);
  assignments.push(sql`updated_at = ${at}`);
  await sql`UPDATE ${people(realm)} SET ${sql.join(assignments)} WHERE id = ${id}`.execute(db);
}

/**
 * Uses a TOTP time step: true only for the first use of a step later than the last one used, so
 * two requests racing with the same code cannot both pass (the row's update decides).
 */
export async function claimTotpStep(db: Executor, realm: Realm, id: string, step: number, at: Date): Promise<boolean> {
  const result = await sql`
    UPDATE ${people(realm)} SET totp_last_step = ${step}, failed_attempts = 0, locked_until = NULL, updated_at = ${at}
    WHERE id = ${id} AND (totp_last_step IS NULL OR totp_last_step < ${step})`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}

/**
 * One more failed attempt, counted in the row itself (concurrent attempts each count): the
 * `maxAttempts`-th locks the person until `lockUntil` and starts the count again; a lock that has
 * passed starts it again too.
 */
export async function recordFailedAttempt(db: Executor, realm: Realm, id: string, options: { maxAttempts: number; now: Date; lockUntil: Date }): Promise<void> {
  const count = sql`(CASE WHEN locked_until IS NOT NULL AND locked_until <= ${options.now} THEN 0 ELSE failed_attempts END + 1)`;
  await sql`
    UPDATE ${people(realm)} SET
      failed_attempts = CASE WHEN ${count} >= ${options.maxAttempts} THEN 0 ELSE ${count} END,
      locked_until = CASE WHEN ${count} >= ${options.maxAttempts} THEN ${options.lockUntil}::timestamptz
                          WHEN locked_until IS NOT NULL AND locked_until <= ${options.now} THEN NULL ELSE locked_until END,
      updated_at = ${options.now}
    WHERE id = ${id}`.execute(db);
}

export async function insertInvite(tx: Tx, realm: Realm, invite: { tokenHash: Buffer; personId: string; expiresAt: Date; at: Date }): Promise<void> {
  await sql`
    INSERT INTO ${sql.table(realm.invites)} (token_hash, ${personColumn(realm)}, expires_at, used_at, created_at)
    VALUES (${invite.tokenHash}, ${invite.personId}, ${invite.expiresAt}, NULL, ${invite.at})`.execute(tx);
}

/**
 * An invitation as stored, without using it: undefined when no invitation has this token. A
 * removed person's unused invitations were marked used at the removal.
 */
export async function findInvite(db: Executor, realm: Realm, tokenHash: Buffer): Promise<{ usedAt: Date | null; expiresAt: Date } | undefined> {
  const { rows } = await sql<{ usedAt: Date | null; expiresAt: Date }>`
    SELECT used_at, expires_at FROM ${sql.table(realm.invites)} WHERE token_hash = ${tokenHash}`.execute(db);
  return rows[0];
}

/** Uses an invitation once: its person, or undefined when unknown, used or expired. */
export async function takeInvite(tx: Tx, realm: Realm, tokenHash: Buffer, at: Date): Promise<string | undefined> {
  const { rows } = await sql<{ personId: string }>`
    UPDATE ${sql.table(realm.invites)} SET used_at = ${at}
    WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${at}
    RETURNING ${personColumn(realm)} AS person_id`.execute(tx);
  return rows[0]?.personId;
}

export async function insertSession(db: Executor, realm: Realm, session: { idHash: Buffer; personId: string; stage: SessionStage; at: Date }): Promise<void> {
  await sql`
    INSERT INTO ${sql.table(realm.sessions)} (id_hash, ${personColumn(realm)}, stage, created_at, last_seen_at, ended_at)
    VALUES (${session.idHash}, ${session.personId}, ${session.stage}, ${session.at}, ${session.at}, NULL)`.execute(db);
}

/** A live session seen since `idleSince`, with its person (live too). */
export async function findLiveSession<P extends Person>(
  db: Executor,
  realm: Realm,
  idHash: Buffer,
  idleSince: Date,
): Promise<{ person: P; stage: SessionStage; lastSeenAt: Date } | undefined> {
  const { rows } = await sql<P & { sessionStage: SessionStage; sessionLastSeenAt: Date }>`
    SELECT p.*, s.stage AS session_stage, s.last_seen_at AS session_last_seen_at
    FROM ${sql.table(realm.sessions)} s JOIN ${people(realm)} p ON p.id = s.${personColumn(realm)}
    WHERE s.id_hash = ${idHash} AND s.ended_at IS NULL AND s.last_seen_at > ${idleSince} AND p.removed_at IS NULL`.execute(db);
  const row = rows[0];
  return row && { person: row, stage: row.sessionStage, lastSeenAt: row.sessionLastSeenAt };
}

export async function touchSession(db: Executor, realm: Realm, idHash: Buffer, changes: { lastSeenAt: Date; stage?: SessionStage }): Promise<void> {
  const stage = changes.stage ? sql`, stage = ${changes.stage}` : sql``;
  await sql`UPDATE ${sql.table(realm.sessions)} SET last_seen_at = ${changes.lastSeenAt}${stage} WHERE id_hash = ${idHash} AND ended_at IS NULL`.execute(db);
}

export async function endSession(db: Executor, realm: Realm, idHash: Buffer, at: Date): Promise<void> {
  await sql`UPDATE ${sql.table(realm.sessions)} SET ended_at = ${at} WHERE id_hash = ${idHash} AND ended_at IS NULL`.execute(db);
}

/** Ends every live session of the person but `keep` (a password change; all of them on a removal). */
export async function endOtherSessions(db: Executor, realm: Realm, personId: string, keep: Buffer | null, at: Date): Promise<void> {
  const kept = keep ? sql` AND id_hash <> ${keep}` : sql``;
  await sql`UPDATE ${sql.table(realm.sessions)} SET ended_at = ${at} WHERE ${personColumn(realm)} = ${personId} AND ended_at IS NULL${kept}`.execute(db);
}

export async function listLiveSessions(
  db: Executor,
  realm: Realm,
  personId: string,
  idleSince: Date,
): Promise<{ idHash: Buffer; createdAt: Date; lastSeenAt: Date; stage: SessionStage }[]> {
  const { rows } = await sql<{ idHash: Buffer; createdAt: Date; lastSeenAt: Date; stage: SessionStage }>`
    SELECT id_hash, created_at, last_seen_at, stage FROM ${sql.table(realm.sessions)}
    WHERE ${personColumn(realm)} = ${personId} AND ended_at IS NULL AND last_seen_at > ${idleSince}
    ORDER BY last_seen_at DESC`.execute(db);
  return rows;
}
