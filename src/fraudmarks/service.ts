import { FraudRestrictedError, InvalidRequestError, InvalidStateError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import { documentTypeOf, isValidCnpj, isValidCpf, maskAnyDocument, maskDocument, normalizeDocument } from '../pix/documents.js';
import { normalizePixKey, pixKeyFormatError, type PixKeyType } from '../pix/pixKeys.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Executor, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { FraudMarkKind, FraudMarkRow } from '../platform/schema.js';
import * as repository from './repository.js';

/**
 * How stale a process's copy of the list may be: a check re-reads the list's version once its copy
 * is this old, so a mark added (or removed) on any process refuses (or stops refusing) everywhere
 * within this bound; on the process that made the change, at once (docs/fraud-marks.md).
 */
export const FRAUD_MARKS_REFRESH_MS = 1000;

/** The key type a marked value has, read from its shape (the API takes the value alone). */
function keyTypeOf(value: string): PixKeyType | null {
  const trimmed = value.trim();
  if (trimmed.includes('@')) return 'email';
  if (trimmed.startsWith('+')) return 'phone';
  if (pixKeyFormatError('evp', normalizePixKey('evp', trimmed)) === null) return 'evp';
  return documentTypeOf(normalizeDocument(trimmed));
}

const isValidDocument = (document: string): boolean => {
  const type = documentTypeOf(document);
  return type === 'cpf' ? isValidCpf(document) : type === 'cnpj' && isValidCnpj(document);
};

/** The value of a mark, normalised and checked for its kind. */
function normalizedMark(kind: FraudMarkKind, value: string): { keyType: PixKeyType | null; value: string } {
  if (kind === 'document') {
    const document = normalizeDocument(value);
    if (!isValidDocument(document)) throw new InvalidRequestError(messages.fraudMarkDocumentInvalid);
    return { keyType: null, value: document };
  }
  const keyType = keyTypeOf(value);
  if (!keyType) throw new InvalidRequestError(messages.fraudMarkKeyInvalid);
  const key = normalizePixKey(keyType, value);
  if (pixKeyFormatError(keyType, key) !== null) throw new InvalidRequestError(messages.fraudMarkKeyInvalid);
  return { keyType, value: key };
}

/** A mark as the operator API answers it. */
export function presentFraudMark(row: FraudMarkRow) {
  return {
    id: row.id,
    kind: row.kind,
    keyType: row.keyType,
    value: row.value,
    reason: row.reason,
    createdBy: row.createdBy,
    createdAt: row.createdAt.getTime(),
  };
}

/** A mark as a page shows it: a document (or a cpf/cnpj key) masked as the API masks documents. */
export function maskedMarkValue(row: Pick<FraudMarkRow, 'kind' | 'keyType' | 'value'>): string {
  if (row.kind === 'document') return maskAnyDocument(row.value);
  return row.keyType === 'cpf' || row.keyType === 'cnpj' ? maskDocument(row.keyType, row.value) : row.value;
}

/** What a check holds in memory: the active marks of one version of the list. */
type MarkSets = { version: number; keys: ReadonlySet<string>; documents: ReadonlySet<string> };

/** What a payment is about to reach, or came from: a key and the documents of who holds it. */
export type Counterpart = { key?: string | undefined; documents: readonly string[] };

/**
 * The operators' list of fraud-marked keys and documents (DESIGN.md §19) and the check of a
 * counterpart against it. The check runs on the money paths (every withdrawal), so it reads an
 * in-memory copy of the list, refreshed by one primary-key read of the list's version at most
 * once per FRAUD_MARKS_REFRESH_MS (the whole list only when the version moved).
 */
export class FraudMarkService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private sets: MarkSets | undefined;
  /** When the copy was last known current (performance.now(): staleness is real time, whatever the clock says). */
  private checkedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<MarkSets> | undefined;
  /** Changes this process made: a refresh that began before one must not count as current. */
  private localChanges = 0;

  async add(input: { kind: FraudMarkKind; value: string; reason: string }, actor: string) {
    const { keyType, value } = normalizedMark(input.kind, input.value);
    const row = await this.db
      .transaction()
      .execute((tx) =>
        repository.insertFraudMark(tx, { id: newId(), kind: input.kind, keyType, value, reason: input.reason, createdBy: actor, createdAt: this.clock.now() }),
      );
    if (!row) throw new InvalidStateError(messages.fraudMarkExists);
    this.invalidate();
    return presentFraudMark(row);
  }

  /** Removes an active mark; answers the mark as it was (the audit log's `before`). */
  async remove(id: string, actor: string) {
    const row = await this.db.transaction().execute((tx) => repository.removeFraudMark(tx, id, { removedBy: actor, removedAt: this.clock.now() }));
    if (!row) throw new NotFoundError(messages.fraudMarkNotFound);
    this.invalidate();
    return presentFraudMark(row);
  }

  /** Active marks, newest first; `before` (a mark's id) continues after that mark. */
  async list(page: { limit: number; before?: string | undefined }) {
    let after: { createdAt: Date; id: string } | undefined;
    if (page.before !== undefined) {
      const mark = await repository.findFraudMark(this.db, page.before);
      if (!mark) throw new InvalidRequestError(messages.fraudMarkCursorInvalid);
      after = { createdAt: mark.createdAt, id: mark.id };
    }
    const rows = await repository.listActiveFraudMarks(this.db, { limit: page.limit + 1, before: after });
    return { marks: rows.slice(0, page.limit).map(presentFraudMark), hasMore: rows.length > page.limit };
  }

  /**
   * True when the counterpart's key or one of its documents is marked. Inside a database
   * transaction, `tx` reads a stale list through it (the embedded database has one connection:
   * a read beside the open transaction would wait for it).
   */
  async isMarked(counterpart: Counterpart, tx?: Tx): Promise<boolean> {
    const sets = tx && !this.fresh() ? await this.refresh(tx) : await this.current();
    if (counterpart.key !== undefined && sets.keys.has(counterpart.key)) return true;
    return counterpart.documents.some((document) => sets.documents.has(normalizeDocument(document)));
  }

  /** Refuses (422) a destination that is marked: the caller has written nothing yet. */
  async assertNotMarked(counterpart: Counterpart): Promise<void> {
    if (await this.isMarked(counterpart)) throw new FraudRestrictedError(messages.fraudRestricted);
  }

  /** This process changed the list: the next check reads it again. */
  private invalidate(): void {
    this.localChanges += 1;
    this.checkedAt = Number.NEGATIVE_INFINITY;
    this.refreshing = undefined;
  }

  private fresh(): boolean {
    return this.sets !== undefined && performance.now() - this.checkedAt < FRAUD_MARKS_REFRESH_MS;
  }

  private current(): Promise<MarkSets> | MarkSets {
    if (this.sets && this.fresh()) return this.sets;
    if (this.refreshing) return this.refreshing; // concurrent checks share one refresh
    const refreshing = this.refresh().finally(() => {
      if (this.refreshing === refreshing) this.refreshing = undefined;
    });
    this.refreshing = refreshing;
    return refreshing;
  }

  private async refresh(db: Executor = this.db): Promise<MarkSets> {
    const started = performance.now();
    const changes = this.localChanges;
    let sets = this.sets;
    if (sets === undefined || (await repository.fraudMarksVersion(db)) !== sets.version) {
      const { version, marks } = await repository.activeFraudMarks(db);
      const valuesOf = (kind: FraudMarkKind) => new Set(marks.filter((mark) => mark.kind === kind).map((mark) => mark.value));
      sets = { version, keys: valuesOf('key'), documents: valuesOf('document') };
      // A slower refresh that began earlier never replaces a newer copy.
      if (this.sets === undefined || version >= this.sets.version) this.sets = sets;
    }
    if (changes === this.localChanges) this.checkedAt = started;
    return sets;
  }
}

/** Where a destination's mark came from: the operators' list or the provider's DICT. */
export type MarkSource = 'operator_list' | 'dict';

/**
 * The high alert a refused destination raises (its caller writes it): what was attempted and to
 * which key, a cpf/cnpj key masked as documents are.
 */
export function restrictedDestinationAlert(input: {
  accountId: string;
  at: Date;
  source: MarkSource;
  attempted: 'withdrawal' | 'recipient';
  pixKey: string;
  pixKeyType: PixKeyType;
  recipientId?: string | null | undefined;
  transactionId?: string | undefined;
}) {
  const pixKey = maskedMarkValue({ kind: 'key', keyType: input.pixKeyType, value: input.pixKey });
  return {
    accountId: input.accountId,
    kind: 'fraud_marked_destination',
    transactionId: input.transactionId ?? null,
    severity: 'high' as const,
    at: input.at,
    details: { source: input.source, attempted: input.attempted, pixKeyType: input.pixKeyType, pixKey, recipientId: input.recipientId ?? null },
  };
}
