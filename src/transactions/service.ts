import { InvalidRequestError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { purgeExpiredIdempotencyKeys } from './idempotencyRepository.js';
import type { PresentedRow } from './presenter.js';
import * as repository from './repository.js';
import { CHARGE_STATUSES, WITHDRAWAL_STATUSES, type TransactionRow, type TransactionStatus, type TransactionType } from '../platform/schema.js';

/** Rows per read of an export: large enough that a read's round trip is noise, small enough to stay a few hundred kB. */
const EXPORT_CHUNK_ROWS = 1_000;

/** A history read as the API, the dashboard and the back-office ask for it: filters, a cursor (a transactionId) and a page size. */
export type HistoryQuery = Omit<repository.TransactionFilter, 'accountId' | 'after'> & { startingAfter?: string | undefined; limit: number };

const STATUSES_OF: Record<TransactionType, readonly TransactionStatus[]> = { pix_in: CHARGE_STATUSES, withdrawal: WITHDRAWAL_STATUSES };

/**
 * A type with a status it never takes (a withdrawal `expired`) matches nothing: answered without
 * a read, which no index serves (every row of the type would be walked to find none).
 */
const matchesNothing = ({ type, status }: { type?: TransactionType | undefined; status?: TransactionStatus | undefined }) =>
  type !== undefined && status !== undefined && !STATUSES_OF[type].includes(status);

/** The merchant's reads of its transactions (both types). */
export class TransactionService {
  private readonly readPresented: ReturnType<typeof repository.presentedReader>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.readPresented = repository.presentedReader(db);
  }

  /**
   * One transaction of the account; another merchant's is simply not found (spec: 404, not 403).
   * Read together with the reads of concurrent requests (repository.presentedReader).
   */
  async get(accountId: string, transactionId: string): Promise<PresentedRow> {
    const row = await this.readPresented({ accountId, transactionId });
    if (!row) throw new NotFoundError(messages.transactionNotFound);
    return row;
  }

  /**
   * One page of the account's history (DESIGN.md §15). Without filters or cursor: the spec's list,
   * on its precompiled hot path. The cursor must be a transaction of the same account (of any
   * account: `accountId` undefined, for operators).
   */
  async page(accountId: string | undefined, query: HistoryQuery): Promise<{ rows: PresentedRow[]; hasMore: boolean }> {
    const { limit, startingAfter, type, ...filters } = query;
    if (accountId !== undefined && Object.values(filters).every((value) => value === undefined)) {
      if (startingAfter === undefined) return repository.firstPage(this.db, accountId, type, limit);
      const page = await repository.pageAfter(this.db, accountId, type, startingAfter, limit);
      if (!page) throw new InvalidRequestError(messages.startingAfterInvalid);
      return page;
    }
    const filter = await this.filterOf(accountId, query);
    return matchesNothing(filter) ? { rows: [], hasMore: false } : repository.pageTransactions(this.db, filter, limit);
  }

  /** Every row of a period as an export writes it, in chunks (constant memory). */
  async *stream(accountId: string, query: Omit<HistoryQuery, 'limit'>): AsyncGenerator<repository.ExportedRow[]> {
    const filter = await this.filterOf(accountId, query);
    if (!matchesNothing(filter)) yield* repository.streamTransactions(this.db, filter, EXPORT_CHUNK_ROWS);
  }

  private async filterOf(accountId: string | undefined, query: Omit<HistoryQuery, 'limit'>): Promise<repository.TransactionFilter> {
    const { startingAfter, ...filter } = query;
    if (filter.createdFrom && filter.createdTo && filter.createdFrom >= filter.createdTo) throw new InvalidRequestError(messages.createdRangeInvalid);
    let after: repository.TransactionPosition | undefined;
    if (startingAfter !== undefined) {
      after = await repository.findPosition(this.db, accountId, startingAfter);
      if (!after) throw new InvalidRequestError(messages.startingAfterInvalid);
    }
    return { ...filter, accountId, after };
  }

  /** Any account's transaction (operators), with its account and provider; NotFoundError when there is none. */
  async getForOperator(transactionId: string): Promise<TransactionRow> {
    const row = await repository.findTransaction(this.db, undefined, transactionId);
    if (!row) throw new NotFoundError(messages.transactionNotFound);
    return row;
  }

  /** The account of any transaction (operators), or undefined. */
  accountOf(transactionId: string): Promise<string | undefined> {
    return repository.findTransactionAccountId(this.db, transactionId);
  }

  /** Housekeeping: externalRefs past their retention go. */
  purgeExpiredIdempotencyKeys(): Promise<number> {
    return purgeExpiredIdempotencyKeys(this.db, this.clock.now());
  }
}
