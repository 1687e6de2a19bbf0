import { InvalidStateError, LimitExceededError, NotFoundError, TooLargeError, UnsupportedTypeError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { EvidenceContentType, EvidenceRow, InfractionRow } from '../platform/schema.js';
import { EVIDENCE_STATUSES, evidenceFileName, evidenceTypeOf, MAX_EVIDENCE_BYTES, MAX_EVIDENCE_FILES, SIGNATURE_BYTES } from './evidenceFiles.js';
import * as evidence from './evidenceRepository.js';
import { findInfraction, lockInfraction } from './repository.js';

/** Bytes per stored chunk: what the upload holds in memory at once, and what a download reads at a time. */
const CHUNK_BYTES = 256 * 1024;

/** A file as it arrives: the name its sender gave, and its bytes, read once, in order. */
export type IncomingFile = { fileName: string; bytes: AsyncIterable<Uint8Array> };

/** A stored file and its bytes, read chunk by chunk as they are consumed. */
export type EvidenceDownload = { evidence: EvidenceRow; bytes: AsyncIterable<Buffer> };

/**
 * Evidence files of a MED case's defense (DESIGN.md §19): up to 5 per case, PDF, PNG or JPEG by
 * their bytes, up to 10 MB, stored in the database. An upload is one transaction: the case is
 * locked (so that two uploads count one after the other), checked, and the bytes are written
 * 256 KB at a time as they arrive; any refusal on the way (type, size, the sender's request)
 * rolls all of it back.
 */
export class EvidenceService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async upload(accountId: string, infractionId: string, file: IncomingFile): Promise<EvidenceRow> {
    return this.db.transaction().execute(async (tx) => {
      const infraction = await lockInfraction(tx, infractionId, accountId);
      if (!infraction) throw new NotFoundError(messages.infractionNotFound);
      const now = this.clock.now();
      assertTakesEvidence(infraction, now);
      if ((await evidence.countEvidenceOf(tx, accountId, infractionId)) >= MAX_EVIDENCE_FILES) throw new LimitExceededError(messages.evidenceLimitReached);
      const id = newId();
      const { contentType, sizeBytes } = await storeChunks(tx, { evidenceId: id, accountId }, file.bytes);
      return evidence.insertEvidence(tx, {
        id,
        accountId,
        infractionId,
        fileName: evidenceFileName(file.fileName, contentType),
        contentType,
        sizeBytes,
        createdAt: now,
      });
    });
  }

  /** The files of one of the account's cases, oldest first. */
  async list(accountId: string, infractionId: string): Promise<EvidenceRow[]> {
    if (!(await findInfraction(this.db, infractionId, accountId))) throw new NotFoundError(messages.infractionNotFound);
    return evidence.listEvidenceOf(this.db, accountId, [infractionId]);
  }

  /** The files of several of the account's cases (a page of them), oldest first. */
  listOfCases(accountId: string, infractionIds: readonly string[]): Promise<EvidenceRow[]> {
    return evidence.listEvidenceOf(this.db, accountId, infractionIds);
  }

  /** The files of cases of any account (the back-office's queue). */
  listForOperator(cases: readonly { infractionId: string; accountId: string }[]): Promise<EvidenceRow[]> {
    return evidence.listEvidenceOfCases(this.db, cases);
  }

  /** A file of one of the account's cases (of any account's, for the operator), with its bytes. */
  async download(infractionId: string, evidenceId: string, accountId?: string): Promise<EvidenceDownload> {
    const infraction = await findInfraction(this.db, infractionId, accountId);
    if (!infraction) throw new NotFoundError(messages.infractionNotFound);
    const found = await evidence.findEvidence(this.db, infraction.accountId, infraction.id, evidenceId);
    if (!found) throw new NotFoundError(messages.evidenceNotFound);
    const { accountId: owner, id } = found;
    const positions = await evidence.evidenceChunkPositions(this.db, owner, id);
    const db = this.db;
    // Stored files never change: each chunk is read when the answer is ready for it.
    async function* bytes(): AsyncGenerator<Buffer> {
      for (const position of positions) yield await evidence.evidenceChunk(db, owner, id, position);
    }
    return { evidence: found, bytes: bytes() };
  }
}

/** Refuses (422) a case that takes no more evidence, with the defense's own messages. */
function assertTakesEvidence(infraction: InfractionRow, now: Date): void {
  if (!EVIDENCE_STATUSES.includes(infraction.status)) throw new InvalidStateError(messages.infractionNoDefense(infraction.status));
  if (now >= infraction.defenseDeadline) throw new InvalidStateError(messages.defenseDeadlinePassed);
}

/**
 * Writes `bytes` as chunks of 256 KB (the last one shorter) while they arrive: the type is told from the first
 * bytes (415 otherwise, before anything is written), the size is counted (413 past 10 MB).
 */
async function storeChunks(
  tx: Tx,
  owner: { evidenceId: string; accountId: string },
  bytes: AsyncIterable<Uint8Array>,
): Promise<{ contentType: EvidenceContentType; sizeBytes: number }> {
  let contentType: EvidenceContentType | undefined;
  let sizeBytes = 0;
  let position = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const judge = (): EvidenceContentType => {
    const type = evidenceTypeOf(Buffer.concat(pending, Math.min(pendingBytes, SIGNATURE_BYTES)));
    if (!type) throw new UnsupportedTypeError(messages.evidenceTypeNotAccepted);
    return type;
  };
  /** Writes whole chunks of CHUNK_BYTES (and, at the end, what is left), keeping the rest for the next. */
  const flush = async (atEnd: boolean) => {
    const joined = Buffer.concat(pending, pendingBytes);
    let offset = 0;
    for (; joined.length - offset >= CHUNK_BYTES || (atEnd && offset < joined.length); offset += CHUNK_BYTES) {
      await evidence.insertEvidenceChunk(tx, { ...owner, position: position++, bytes: joined.subarray(offset, offset + CHUNK_BYTES) });
    }
    pending = offset < joined.length ? [joined.subarray(offset)] : [];
    pendingBytes = joined.length - Math.min(offset, joined.length);
  };
  for await (const piece of bytes) {
    sizeBytes += piece.length;
    if (sizeBytes > MAX_EVIDENCE_BYTES) throw new TooLargeError(messages.evidenceTooLarge);
    pending.push(piece);
    pendingBytes += piece.length;
    if (contentType === undefined && pendingBytes >= SIGNATURE_BYTES) contentType = judge();
    if (pendingBytes >= CHUNK_BYTES) await flush(false);
  }
  contentType ??= judge();
  await flush(true);
  return { contentType, sizeBytes };
}
