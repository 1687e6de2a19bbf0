import { NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { purgeExpiredIdempotencyKeys } from './idempotencyRepository.js';
import type { PresentedRow } from './presenter.js';
import * as repository from './repository.js';
import type { TransactionRow, TransactionType } from '../platform/schema.js';

/** The merchant's reads of its transactions (both types). */
export class TransactionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** One transaction of the account; another merchant's is simply not found (spec: 404, not 403). */
  async get(accountId: string, transactionId: string): Promise<PresentedRow> {
    const row = await repository.findPresentedTransaction(this.db, accountId, transactionId);
    if (!row) throw new NotFoundError(messages.transactionNotFound);
    return row;
  }

  list(accountId: string, options: { type?: TransactionType | undefined; limit: number }): Promise<PresentedRow[]> {
    return repository.listTransactions(this.db, accountId, options);
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

  /** The dashboard's filtered list of one type. */
  search(accountId: string, filter: repository.TransactionFilter): Promise<PresentedRow[]> {
    return repository.searchTransactions(this.db, accountId, filter);
  }

  /** Housekeeping: externalRefs past their retention go. */
  purgeExpiredIdempotencyKeys(): Promise<number> {
    return purgeExpiredIdempotencyKeys(this.db, this.clock.now());
  }
}
