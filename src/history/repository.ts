import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { StatementsTable } from '../platform/schema.js';

type StatementHeader = Omit<StatementsTable, 'body'>;

const HEADER_COLUMNS = sql`account_id, to_char(day, 'YYYY-MM-DD') AS day, opening_balance_cents, closing_balance_cents, opening_blocked_cents,
  closing_blocked_cents, movement_count, previous_digest, digest, created_at`;

/** A closed day's statement with its text; undefined when the day has none (yet). */
export async function findStatement(db: Executor, accountId: string, day: string): Promise<StatementsTable | undefined> {
  const { rows } = await sql<StatementsTable>`
    SELECT ${HEADER_COLUMNS}, body FROM statements WHERE account_id = ${accountId} AND day = ${day}::date`.execute(db);
  return rows[0];
}

/** The account's latest closed day (the next one chains to it); undefined before its first statement. */
export async function latestStatement(db: Executor, accountId: string): Promise<StatementHeader | undefined> {
  const { rows } = await sql<StatementHeader>`
    SELECT ${HEADER_COLUMNS} FROM statements WHERE account_id = ${accountId} ORDER BY day DESC LIMIT 1`.execute(db);
  return rows[0];
}

/** The account's closed days, newest first. */
export async function recentStatements(db: Executor, accountId: string, limit: number): Promise<StatementHeader[]> {
  const { rows } = await sql<StatementHeader>`
    SELECT ${HEADER_COLUMNS} FROM statements WHERE account_id = ${accountId} ORDER BY day DESC LIMIT ${limit}`.execute(db);
  return rows;
}

/**
 * Accounts with a day to close: created before `before` and whose latest statement (if any) is
 * of a day before `lastClosableDay`; `limit` of them, the longest waiting first.
 */
export async function accountsWithDaysToClose(db: Executor, before: Date, lastClosableDay: string, limit: number) {
  const { rows } = await sql<{ id: string; createdAt: Date }>`
    SELECT a.id, a.created_at FROM accounts a
    LEFT JOIN LATERAL (SELECT max(day) AS day FROM statements s WHERE s.account_id = a.id) latest ON true
    WHERE a.created_at < ${before} AND (latest.day IS NULL OR latest.day < ${lastClosableDay}::date)
    ORDER BY latest.day NULLS FIRST, a.id
    LIMIT ${limit}`.execute(db);
  return rows;
}

/** Holds the account's statements for this transaction: two workers never close the same day twice. */
export async function lockAccountStatements(tx: Tx, accountId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('statements'), hashtext(${accountId}))`.execute(tx);
}

export async function insertStatement(tx: Tx, statement: StatementsTable): Promise<void> {
  await tx.insertInto('statements').values(statement).execute();
}
