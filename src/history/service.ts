import { Readable } from 'node:stream';
import { findAccount } from '../accounts/repository.js';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { merchantBalanceAt, merchantMovements, type MovementPosition } from '../ledger/repository.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { dayAfter, dayOf, dayStart } from '../platform/saoPauloDay.js';
import type { TransactionStatus, TransactionType } from '../platform/schema.js';
import type { TransactionService } from '../transactions/service.js';
import { csvHeader, csvRows, ofxFooter, ofxHeader, ofxMovements, type CsvDelimiter, type OfxStatement } from './exports.js';
import * as repository from './repository.js';
import { EXPORT_MAX_DAYS } from './schemas.js';
import { buildStatement } from './statements.js';

const DAY_MS = 86_400_000;
/** Movements per read of an OFX export. */
const OFX_CHUNK_MOVEMENTS = 1_000;
/**
 * A day is closed this long after its midnight: a movement is written with its time before it
 * commits, and no database transaction of ours lasts minutes, so by then the day's last ones are in.
 */
const CLOSING_DELAY_MS = 10 * 60_000;
/** Accounts whose days are closed per round of the worker; days per account per round. */
const ACCOUNTS_PER_ROUND = 100;
const DAYS_PER_ACCOUNT_PER_ROUND = 31;

/** What an export asks for (DESIGN.md §15): a format and a creation period, optionally a type and a status. */
export type ExportRequest = {
  format: 'csv' | 'ofx';
  /** CSV only: comma (RFC 4180, the default) or semicolon (Excel in Portuguese opens it by double click; Portuguese names, decimal comma). */
  delimiter?: CsvDelimiter | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
  type?: TransactionType | undefined;
  status?: TransactionStatus | undefined;
};

/** A file to download: its name, its media type and its bytes, produced as they are sent. */
export type ExportFile = { filename: string; contentType: string; body: Readable };

/** A closed day's statement exactly as stored: its JSON text and the SHA-256 (hex) of that text. */
export type StatementFile = { date: string; body: string; digest: string };

/** A closed day, for lists of statements. */
export type StatementSummary = {
  date: string;
  openingBalanceCents: number;
  closingBalanceCents: number;
  movementCount: number;
  digest: string;
};

/** Exports and daily statements of an account's history (DESIGN.md §15). */
export class HistoryService {
  private readonly transactions: TransactionService;
  /** Where exports read: the read replica when there is one (a closed period does not change; a lag of seconds shows only in the last ones). */
  private readonly reads: Db;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    exports: { transactions: TransactionService; reads: Db },
  ) {
    this.transactions = exports.transactions;
    this.reads = exports.reads;
  }

  /**
   * Every transaction of a period as CSV (as the list shows them, newest first), or every movement
   * of the balance in that period as OFX (oldest first, with the balance at its end). The bytes are
   * produced as the client reads them, a chunk at a time: memory stays flat whatever the period holds.
   */
  exportFile(accountId: string, request: ExportRequest): ExportFile {
    const { createdFrom: from, createdTo: to } = request;
    if (!from || !to) throw new InvalidRequestError(messages.exportRangeRequired);
    if (from >= to) throw new InvalidRequestError(messages.createdRangeInvalid);
    if (to.getTime() - from.getTime() > EXPORT_MAX_DAYS * DAY_MS) throw new InvalidRequestError(messages.exportRangeTooLarge(EXPORT_MAX_DAYS));
    const name = `transacoes-${dayOf(from)}-a-${dayOf(new Date(to.getTime() - 1))}`;
    if (request.format === 'ofx') {
      return {
        filename: `${name}.ofx`,
        contentType: 'application/x-ofx',
        body: Readable.from(this.ofx({ accountId, from, to, generatedAt: this.clock.now() })),
      };
    }
    const delimiter = request.delimiter ?? 'comma';
    const rows = this.transactions.stream(accountId, { createdFrom: from, createdTo: to, type: request.type, status: request.status });
    return { filename: `${name}.csv`, contentType: 'text/csv; charset=utf-8', body: Readable.from(csv(rows, delimiter)) };
  }

  private async *ofx(statement: OfxStatement): AsyncGenerator<string> {
    yield ofxHeader(statement);
    for (let after: MovementPosition | undefined; ;) {
      const movements = await merchantMovements(this.reads, statement.accountId, statement, { after, limit: OFX_CHUNK_MOVEMENTS });
      if (movements.length > 0) yield ofxMovements(movements);
      const last = movements.at(-1);
      if (movements.length < OFX_CHUNK_MOVEMENTS || !last) break;
      after = { at: last.at, entryId: last.entryId };
    }
    yield ofxFooter(statement, await merchantBalanceAt(this.reads, statement.accountId, statement.to));
  }

  /** A closed day's statement, exactly as it was stored when the day closed. */
  async statement(accountId: string, date: string): Promise<StatementFile> {
    if (!dayStart(date)) throw new InvalidRequestError(messages.statementDateInvalid);
    const stored = await repository.findStatement(this.db, accountId, date);
    if (stored) return { date, body: stored.body, digest: stored.digest };
    const account = await findAccount(this.db, accountId);
    if (!account || date < dayOf(account.createdAt)) throw new NotFoundError(messages.statementBeforeAccount(date));
    throw new NotFoundError(messages.statementNotClosed(date));
  }

  /** The account's latest closed days, newest first. */
  async recentStatements(accountId: string, limit: number): Promise<StatementSummary[]> {
    return (await repository.recentStatements(this.db, accountId, limit)).map((row) => ({
      date: row.day,
      openingBalanceCents: row.openingBalanceCents,
      closingBalanceCents: row.closingBalanceCents,
      movementCount: row.movementCount,
      digest: row.digest,
    }));
  }

  /**
   * The worker's round: closes every day that ended (CLOSING_DELAY_MS ago) and has no statement
   * yet, from each account's first day on, in order; how many statements were written.
   */
  async closeDays(): Promise<number> {
    const now = this.clock.now();
    const lastClosableDay = dayAfter(dayOf(new Date(now.getTime() - CLOSING_DELAY_MS)), -1);
    const lastClosableEnd = dayStart(dayAfter(lastClosableDay));
    if (!lastClosableEnd) throw new Error(`not a day: ${lastClosableDay}`);
    let written = 0;
    for (const account of await repository.accountsWithDaysToClose(this.db, lastClosableEnd, lastClosableDay, ACCOUNTS_PER_ROUND)) {
      written += await this.db.transaction().execute(async (tx) => {
        await repository.lockAccountStatements(tx, account.id);
        let previous = await repository.latestStatement(tx, account.id);
        let day = previous ? dayAfter(previous.day) : dayOf(account.createdAt);
        let count = 0;
        for (; count < DAYS_PER_ACCOUNT_PER_ROUND && day <= lastClosableDay; count++, day = dayAfter(day)) {
          const statement = await buildStatement(tx, account.id, day, previous, now);
          await repository.insertStatement(tx, statement);
          previous = statement;
        }
        return count;
      });
    }
    return written;
  }
}

async function* csv(chunks: AsyncIterable<Parameters<typeof csvRows>[0]>, delimiter: CsvDelimiter): AsyncGenerator<string> {
  yield csvHeader(delimiter);
  for await (const rows of chunks) yield csvRows(rows, delimiter);
}
