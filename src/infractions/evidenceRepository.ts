import type { Insertable } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { EvidenceRow, InfractionEvidenceTable } from '../platform/schema.js';

// Evidence files of MED cases (migration 038). Every query names the account: a case's files are
// read and written only with its account's id.

const METADATA = ['id', 'accountId', 'infractionId', 'fileName', 'contentType', 'sizeBytes', 'createdAt'] as const;

export function countEvidenceOf(tx: Tx, accountId: string, infractionId: string): Promise<number> {
  return tx
    .selectFrom('infractionEvidence')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('accountId', '=', accountId)
    .where('infractionId', '=', infractionId)
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.count));
}

/** One piece of a file's bytes, at `position` (0, 1, …). */
export async function insertEvidenceChunk(tx: Tx, chunk: { evidenceId: string; accountId: string; position: number; bytes: Buffer }): Promise<void> {
  await tx.insertInto('infractionEvidenceChunks').values(chunk).execute();
}

/** The file's metadata, written after its chunks (their foreign key is checked at commit). */
export function insertEvidence(tx: Tx, evidence: Insertable<InfractionEvidenceTable>): Promise<EvidenceRow> {
  return tx.insertInto('infractionEvidence').values(evidence).returning(METADATA).executeTakeFirstOrThrow();
}

/** The files of the account's cases among `infractionIds`, oldest first. */
export function listEvidenceOf(db: Executor, accountId: string, infractionIds: readonly string[]): Promise<EvidenceRow[]> {
  if (infractionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('infractionEvidence')
    .select(METADATA)
    .where('accountId', '=', accountId)
    .where('infractionId', 'in', infractionIds)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** The files of cases of any account (the back-office), oldest first. */
export function listEvidenceOfCases(db: Executor, cases: readonly { infractionId: string; accountId: string }[]): Promise<EvidenceRow[]> {
  if (cases.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('infractionEvidence')
    .select(METADATA)
    .where((eb) => eb.or(cases.map((one) => eb.and([eb('infractionId', '=', one.infractionId), eb('accountId', '=', one.accountId)]))))
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

export function findEvidence(db: Executor, accountId: string, infractionId: string, evidenceId: string): Promise<EvidenceRow | undefined> {
  return db
    .selectFrom('infractionEvidence')
    .select(METADATA)
    .where('id', '=', evidenceId)
    .where('accountId', '=', accountId)
    .where('infractionId', '=', infractionId)
    .executeTakeFirst();
}

/** A file's chunk positions, in order. */
export async function evidenceChunkPositions(db: Executor, accountId: string, evidenceId: string): Promise<number[]> {
  const rows = await db
    .selectFrom('infractionEvidenceChunks')
    .select('position')
    .where('evidenceId', '=', evidenceId)
    .where('accountId', '=', accountId)
    .orderBy('position')
    .execute();
  return rows.map((row) => row.position);
}

export async function evidenceChunk(db: Executor, accountId: string, evidenceId: string, position: number): Promise<Buffer> {
  const row = await db
    .selectFrom('infractionEvidenceChunks')
    .select('bytes')
    .where('evidenceId', '=', evidenceId)
    .where('accountId', '=', accountId)
    .where('position', '=', position)
    .executeTakeFirstOrThrow();
  return row.bytes;
}
