import { createHmac } from 'node:crypto';
import type { Config } from '../config.js';
import { messages } from '../messages.js';
import { maskDocument } from '../pix/documents.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { FraudRestrictedError, InvalidStateError, LimitExceededError, NotFoundError, RateLimitedError } from '../errors.js';
import { insertAlert } from '../alerts/repository.js';
import { restrictedDestinationAlert, type FraudMarkService } from '../fraudmarks/service.js';
import { consumeRateLimit, FIXED_WINDOW_MS } from '../platform/rateLimitRepository.js';
import type { RecipientRow, RecipientStatus } from '../platform/schema.js';
import * as repository from './repository.js';
import type { CreateRecipientBody } from './schemas.js';

const RECIPIENT_ID_PATTERN = /^[0-9a-f]{24}$/;

/** A recipientId as the API issues it: 24 lowercase hexadecimal characters. */
export const isRecipientId = (value: string): boolean => RECIPIENT_ID_PATTERN.test(value);

/** A recipient new to the account (`registered`), or one it already had (`existing`), with its status and the note for the merchant. */
export type RecipientRegistration = { outcome: 'registered' | 'existing'; recipientId: string; status: 'pending_review' | 'active'; note: string };

/** The merchant's list: only active recipients, the document masked, the alias of the approval. */
function presentApprovedRecipient(row: RecipientRow) {
  if (!row.approvedAt) throw new Error(`active recipient ${row.id} has no approvedAt`); // the table's CHECK forbids it
  return {
    recipientId: row.id,
    legalName: row.legalName,
    documentType: row.documentType,
    documentMasked: maskDocument(row.documentType, row.document),
    label: row.approvedLabel,
    approvedAt: row.approvedAt.getTime(),
  };
}

/** The operator's view: everything submitted and reviewed. */
function presentOperatorRecipient(row: RecipientRow) {
  return {
    accountId: row.accountId,
    recipientId: row.id,
    status: row.status,
    legalName: row.legalName,
    document: row.document,
    documentType: row.documentType,
    pixKey: row.pixKey,
    pixKeyType: row.pixKeyType,
    label: row.label,
    approvedLabel: row.approvedLabel,
    approvedAt: row.approvedAt?.getTime() ?? null,
    reason: row.statusReason,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
}

export class RecipientService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly fraudMarks: Pick<FraudMarkService, 'isMarked'>,
    private readonly config: Pick<Config, 'secretKey' | 'serviceName'>,
  ) {}

  /** DESIGN.md §5: first 24 hex of HMAC-SHA256(secret, `<type>:<digits>`) — stable, and no CPF can be recovered from it. */
  recipientId(documentType: 'cpf' | 'cnpj', digits: string): string {
    return createHmac('sha256', this.config.secretKey).update(`${documentType}:${digits}`).digest('hex').slice(0, 24);
  }

  /**
   * POST /v1/recipients. Idempotent by document: a recipient under review takes the new data, an
   * active one is left as approved, a rejected, removed or deactivated one goes back to review.
   * The account row lock makes the ceiling exact under concurrency; the hourly limit counts every
   * request that got here (valid ones), including those refused by the ceiling.
   */
  async register(accountId: string, input: CreateRecipientBody): Promise<RecipientRegistration> {
    const id = this.recipientId(input.documentType, input.document);
    const submitted = { legalName: input.legalName, pixKey: input.pixKey, pixKeyType: input.pixKeyType, label: input.label };
    const now = this.clock.now();
    if (await this.fraudMarks.isMarked({ key: input.pixKey, documents: [input.document] })) {
      // Refused before anything is written (nor counted in the hourly limit); the operators are told.
      const { pixKey, pixKeyType } = input;
      await insertAlert(
        this.db,
        restrictedDestinationAlert({ accountId, at: now, source: 'operator_list', attempted: 'recipient', pixKey, pixKeyType, recipientId: id }),
      );
      throw new FraudRestrictedError(messages.fraudRestricted);
    }

    const outcome = await this.db.transaction().execute(async (tx) => {
      const limits = await repository.lockAccountForRecipients(tx, accountId);
      const allowed = await consumeRateLimit(
        tx,
        accountId,
        { bucket: 'recipients:hour', windowMs: FIXED_WINDOW_MS.hour, limit: limits.recipientsPerHour },
        now,
      );
      if (!allowed) throw new RateLimitedError(messages.recipientsRateLimited);

      const existing = await repository.findRecipient(tx, accountId, id);
      if (existing?.status === 'active') return { kind: 'existing', status: 'active' } as const;
      if (existing?.status === 'pending_review') {
        await repository.updateRecipient(tx, accountId, id, { ...submitted, updatedAt: now });
        return { kind: 'existing', status: 'pending_review' } as const;
      }
      // New, or back from rejected/removed/deactivated: one more under review.
      if ((await repository.countOpenRecipients(tx, accountId)) >= limits.recipientLimit) {
        return { kind: 'ceiling', limit: limits.recipientLimit } as const; // committed, so the request still counts
      }
      const review = { ...submitted, status: 'pending_review', approvedLabel: null, approvedAt: null, statusReason: null, updatedAt: now } as const;
      if (existing) {
        await repository.updateRecipient(tx, accountId, id, review);
        return { kind: 'existing', status: 'pending_review' } as const;
      }
      await repository.insertRecipient(tx, { accountId, id, document: input.document, documentType: input.documentType, createdAt: now, ...review });
      return { kind: 'registered', status: 'pending_review' } as const;
    });

    if (outcome.kind === 'ceiling') throw new LimitExceededError(messages.recipientLimitReached(outcome.limit));
    const note = outcome.status === 'active' ? messages.recipientActiveNote(this.config.serviceName) : messages.recipientPendingNote(this.config.serviceName);
    return { outcome: outcome.kind, recipientId: id, status: outcome.status, note };
  }

  /** GET /v1/recipients. */
  async listApproved(accountId: string) {
    const rows = await repository.listActiveRecipients(this.db, accountId);
    return { recipients: rows.map(presentApprovedRecipient), count: rows.length, hasMore: false };
  }

  /** The dashboard's list: every recipient of the account with its status; documents masked, as the API shows them. */
  async listForMerchant(accountId: string) {
    const rows = await repository.listRecipientsOfAccount(this.db, accountId);
    return rows.map((row) => ({
      recipientId: row.id,
      status: row.status,
      legalName: row.legalName,
      documentType: row.documentType,
      documentMasked: maskDocument(row.documentType, row.document),
      pixKeyType: row.pixKeyType,
      label: row.approvedLabel ?? row.label,
      reason: row.statusReason,
      updatedAt: row.updatedAt.getTime(),
    }));
  }

  /** The operator's queue (pending_review by default), of every account or of one; the oldest `limit` when given (the back-office's pages). */
  async listForOperator(filter: { status: RecipientStatus; accountId?: string | undefined; limit?: number | undefined }) {
    const rows = await repository.listRecipientsByStatus(this.db, filter);
    return { recipients: rows.map(presentOperatorRecipient), count: rows.length };
  }

  /** The review queue's length (the back-office's menu). */
  countForReview(): Promise<number> {
    return repository.countRecipientsByStatus(this.db, 'pending_review');
  }

  /** Approval: the alias given here (or else the submitted one) is what the merchant's list shows. */
  approve(accountId: string, recipientId: string, label: string | null) {
    return this.transition(accountId, recipientId, 'pending_review', messages.recipientNotPendingReview, (row, now) => ({
      status: 'active',
      approvedLabel: label ?? row.label,
      approvedAt: now,
      statusReason: null,
    }));
  }

  reject(accountId: string, recipientId: string, reason: string | null) {
    return this.transition(accountId, recipientId, 'pending_review', messages.recipientNotPendingReview, () => ({ status: 'rejected', statusReason: reason }));
  }

  /** Compliance takes an active recipient out: no longer listed nor usable in withdrawals. */
  deactivate(accountId: string, recipientId: string, reason: string | null) {
    return this.transition(accountId, recipientId, 'active', messages.recipientNotActive, () => ({ status: 'deactivated', statusReason: reason }));
  }

  private async transition(
    accountId: string,
    recipientId: string,
    from: RecipientStatus,
    notInFromMessage: string,
    change: (row: RecipientRow, now: Date) => Partial<RecipientRow> & { status: RecipientStatus },
  ) {
    const updated = await this.db.transaction().execute(async (tx) => {
      const row = await repository.lockRecipient(tx, accountId, recipientId);
      if (!row) throw new NotFoundError(messages.recipientNotFound);
      if (row.status !== from) throw new InvalidStateError(notInFromMessage);
      const now = this.clock.now();
      return repository.updateRecipient(tx, accountId, recipientId, { ...change(row, now), updatedAt: now });
    });
    return presentOperatorRecipient(updated);
  }
}
