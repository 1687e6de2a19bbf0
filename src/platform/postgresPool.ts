import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { asError, isDatabaseUnavailable } from './errors.js';

/**
 * Names every parameterized statement after its text so that each connection parses and plans
 * it once (a named prepared statement) instead of on every execution. The same few dozen
 * statement texts run all day; PostgreSQL's parse and plan were ~40% of its CPU per charge
 * (measured with pgbench on the charge's statements: 2,822 TPS extended vs 4,601 prepared).
 * Statements without parameters (BEGIN, COMMIT, migrations) stay on the simple protocol.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private issued = 0;
  constructor(private readonly capacity = 1_000) {}

  /** The name for this text, or undefined once `capacity` distinct texts were named (then unnamed, as before). */
  nameFor(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.capacity) {
      name = `s${++this.issued}`;
      this.names.set(text, name);
    }
    return name;
  }

  /**
   * Gives the text a fresh name, so that every connection prepares it again. For a statement the
   * server can no longer run as prepared: a migration changed the columns of a table it reads
   * (`cached plan must not change result type`), or it was dropped after a failed bind.
   */
  renew(text: string): void {
    if (this.names.has(text)) this.names.set(text, `s${++this.issued}`);
  }
}

/** Errors after which a prepared statement must be prepared again under a new name. */
function isStalePreparedStatement(error: Error & { code?: string }): boolean {
  if (error.code === undefined) return true; // failed in pg before reaching the server (e.g. a value it could not serialize)
  // 42P05: prepared already, where this connection's record said not (it then names the text anew).
  return error.code === '26000' || error.code === '42P05' || (error.code === '0A000' && error.message.includes('cached plan'));
}

/** How result columns are named on the rows (snake_case column → camelCase property). */
export type ColumnNaming = (column: string) => string;

declare module 'pg' {
  // pg's Submittable handlers, which the client calls with the server's messages and its type
  // definitions leave out; RenamingQuery overrides them (test/platform/pgContract.test.ts pins them).
  interface Query {
    handleRowDescription(message: { fields: { name: string }[] }): void;
    handleCommandComplete(message: { text: string }, connection: pg.Connection): void;
    handleReadyForQuery(connection: pg.Connection): void;
    handleError(error: Error, connection: pg.Connection): void;
  }
}

/** A server error that ended the backend (FATAL, PANIC): it ran nothing after it. */
export const endedTheBackend = (error: Error): boolean => error instanceof pg.DatabaseError && (error.severity === 'FATAL' || error.severity === 'PANIC');

/**
 * A query whose rows carry their final property names from the start: the column names are
 * renamed once per result, where a mapping after the fact copied every row into a new object
 * (measured: ~20% of a 50-row list's CPU).
 */
class RenamingQuery extends pg.Query {
  /** The prepared statement's name (pg reads it; its type definitions leave it out). */
  declare name?: string;
  /** Its CommandComplete came: the statement ran to its end. */
  private completed = false;
  /** Its ReadyForQuery came, or stood in for it. */
  private ended = false;
  /** With `standsOnceComplete`: the connection's error that came after the statement completed. */
  lostAfterComplete: Error | undefined;

  constructor(
    text: string,
    values: unknown[],
    name: string | undefined,
    callback: (error: Error | undefined, result: pg.QueryResult) => void,
    private readonly naming: ColumnNaming,
    /**
     * true: a statement that completed keeps its answer when the connection fails before its
     * ReadyForQuery (the last of a pipeline: a COMMIT that answered is committed, whatever follows).
     */
    private readonly standsOnceComplete = false,
  ) {
    // Text and values as arguments: a config object would be copied property by property.
    super(text, values, callback);
    if (name) this.name = name;
  }

  override handleRowDescription(message: { fields: { name: string }[] }): void {
    for (const field of message.fields) field.name = this.naming(field.name);
    super.handleRowDescription(message);
  }

  override handleCommandComplete(message: { text: string }, connection: pg.Connection): void {
    this.completed = true;
    super.handleCommandComplete(message, connection);
  }

  override handleReadyForQuery(connection: pg.Connection): void {
    this.ended = true;
    super.handleReadyForQuery(connection);
  }

  override handleError(error: Error, connection: pg.Connection): void {
    // An ERROR after CommandComplete is the statement's own (a commit at its Sync): only the end of
    // the connection (a socket error, or a FATAL the server sends as it ends the backend) spares it.
    if (this.standsOnceComplete && this.completed && !this.ended && (!(error instanceof pg.DatabaseError) || endedTheBackend(error))) {
      this.lostAfterComplete = error;
      this.handleReadyForQuery(connection);
      return;
    }
    super.handleError(error, connection);
  }
}

/** Stands, in place of a statement's text, for a pipeline of statements (see `sendPipeline` in database.ts). */
export const PIPELINE = '-- pipeline of statements';

/** What one statement of a pipeline answered: its rows, or its error. */
export type PipelineOutcome<Row> = { rows: Row[] } | { error: Error };

/** The answer of a statement that came after a failed one in its pipeline: the server skipped it. */
export class StatementNotRunError extends Error {
  constructor() {
    super('not run: an earlier statement of its pipeline failed');
  }
}

/**
 * The answer of a COMMIT the server turned into a rollback (its command tag is ROLLBACK): an
 * earlier statement of the transaction had failed, so nothing of it was written.
 */
export class RolledBackAtCommitError extends Error {
  constructor() {
    super('rolled back: COMMIT ended a transaction an earlier statement had failed');
  }
}

/** The outcomes of a pipeline that never left: the first statement failed with `error`, the others were not run. */
const notSent = (count: number, error: Error): PipelineOutcome<unknown>[] =>
  Array.from({ length: count }, (_, index) => ({ error: index === 0 ? error : new StatementNotRunError() }));

/** SQLSTATE 25P02: a statement sent into a transaction an earlier one had failed; the server did not run it. */
const IN_FAILED_TRANSACTION = '25P02';

/** A statement's answer in a pipeline, before it is read as an outcome. */
type Answer = { result: { command: string; rows: unknown[] } } | { error: Error };

/** pg's refusal of a query on a connection it knows is dead or closed: nothing was written. */
const refusedUnsent = (error: Error): boolean => /^Client (has encountered a connection error|was closed) and is not queryable/.test(error.message);

type CompiledStatement = { sql: string; parameters: readonly unknown[] };

const isCompiledStatement = (value: unknown): value is CompiledStatement =>
  typeof value === 'object' && value !== null && 'sql' in value && typeof value.sql === 'string' && 'parameters' in value && Array.isArray(value.parameters);

/** Told when the server drops a connection (restart, failover, a proxy reaping it, pg_terminate_backend). */
export type ConnectionLost = (error: Error) => void;

/**
 * The pool Kysely's PostgresDialect uses: statements run prepared, rows come back with camelCase
 * properties. On the server its connections are in pg's pipeline mode (`pipeline: true`,
 * database.ts): a query is written as soon as it is queued, each with its own Sync, so a pipeline
 * of statements leaves at once. Kysely awaits each of its queries, so they run as before. Pipeline
 * mode refuses queries that keep a portal open (cursors, pg-query-stream, the `rows` option); the
 * gateway sends none (Kysely's `stream()` needs a cursor the dialect is not given).
 */
export class GatewayPool implements PostgresPool {
  private readonly clients = new WeakMap<pg.PoolClient, GatewayClient>();
  constructor(
    private readonly pool: pg.Pool,
    private readonly naming: ColumnNaming,
    private readonly onConnectionLost: ConnectionLost,
    /** false: a pipeline's statements are sent one after another (PGlite's connection left a pipeline unanswered). */
    private readonly pipelining: boolean,
    private readonly statements = new StatementNames(),
  ) {
    // An idle connection the server drops: pg-pool discards it, then emits this (unhandled, it
    // would end the process).
    pool.on('error', (error) => onConnectionLost(error));
    // Any connection the server drops while it is not idle: its query fails on its own, and the
    // connection is discarded when released instead of going back to the pool. Attached as soon
    // as pg-pool hands the new connection over, so that no moment is left without a listener (an
    // 'error' event nobody listens to ends the process; seen while every connection was killed).
    pool.on('connect', (client) => {
      client.on('error', (error) => {
        const wrapped = this.clients.get(client);
        if (wrapped) wrapped.broken = true;
        this.onConnectionLost(error);
      });
    });
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    // One wrapper per connection: Kysely keys its connection objects on the client's identity.
    let wrapped = this.clients.get(client);
    if (!wrapped) {
      wrapped = new GatewayClient(client, this.naming, this.statements, this.pipelining);
      this.clients.set(client, wrapped);
    }
    return wrapped;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

class GatewayClient implements PostgresPoolClient {
  /** The server dropped this connection: never reuse it. */
  broken = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly naming: ColumnNaming,
    private readonly statements: StatementNames,
    private readonly pipelining: boolean,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(textOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions, @typescript-eslint/no-unnecessary-type-assertion -- Kysely's cursor and pg's Submittable are the same object under two type definitions
    if (typeof textOrCursor !== 'string') return this.client.query(textOrCursor as never) as PostgresCursor<R>;
    if (textOrCursor === PIPELINE) return this.pipeline(parameters ?? []);
    const values = parameters ? [...parameters] : [];
    const name = values.length > 0 ? this.statements.nameFor(textOrCursor) : undefined;
    // An empty values array keeps pg on the simple protocol; named ones go prepared.
    return new Promise((resolve, reject) => {
      const done = (error: Error | undefined, result: pg.QueryResult) => {
        // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- rows are R by Kysely's contract with its dialect; pg types them as any
        if (!error) return resolve(result as unknown as PostgresQueryResult<R>);
        // This call fails (inside a transaction it cannot be retried); the next ones prepare afresh.
        if (name && isStalePreparedStatement(error)) this.statements.renew(textOrCursor);
        // A connection the server ended under this query (or a node that cannot write any more) is
        // never handed out again: its 'error' event may come only after the release.
        if (isDatabaseUnavailable(error)) this.broken = true;
        reject(error);
      };
      this.client.query(new RenamingQuery(textOrCursor, values, name, done, this.naming));
    });
  }

  /** The statements compiled in `items`, sent as one pipeline; the rows of the answer are their outcomes, in order. */
  private async pipeline<R>(items: readonly unknown[]): Promise<PostgresQueryResult<R>> {
    const compiled = items.map((item) => {
      if (!isCompiledStatement(item)) throw new Error('a pipeline holds compiled statements only');
      return item;
    });
    const outcomes = this.pipelining ? await this.sendTogether(compiled) : await this.sendInTurn(compiled);
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the rows of a pipeline's answer are its outcomes, by `sendPipeline`'s contract (database.ts)
    return { command: 'SELECT', rowCount: outcomes.length, rows: outcomes as unknown as R[] };
  }

  /** The same outcomes as sendTogether, one statement at a time: it stops at the first failure. */
  private async sendInTurn(compiled: readonly CompiledStatement[]): Promise<PipelineOutcome<unknown>[]> {
    const outcomes: PipelineOutcome<unknown>[] = [];
    for (const { sql, parameters } of compiled) {
      let answer: Answer;
      try {
        answer = { result: await this.query<unknown>(sql, parameters) };
      } catch (error) {
        answer = { error: asError(error) };
      }
      const outcome = outcomeOf(sql, answer);
      outcomes.push(outcome);
      if ('error' in outcome) break;
    }
    return [...outcomes, ...compiled.slice(outcomes.length).map(() => ({ error: new StatementNotRunError() }))];
  }

  /**
   * Every statement queued at once on a connection in pg's pipeline mode: pg writes each (Parse
   * once per connection, Bind, Describe, Execute, Sync) as it is queued, so all of them leave
   * before the first answer, and the server runs them back to back. Each has its own Sync: after
   * one fails, the server runs the next ones too, and inside a transaction they fail with 25P02,
   * read here as StatementNotRunError. Rows come back with the same names and type parsers as every
   * other query's; a row a parser cannot read fails its statement (which ran), and the statements
   * after it run and answer.
   */
  private async sendTogether(compiled: readonly CompiledStatement[]): Promise<PipelineOutcome<unknown>[]> {
    let statements: { text: string; values: unknown[]; name: string | undefined }[];
    try {
      // Converted as pg binds them before any is queued: pg writes each query as it is queued, so a
      // value it could not convert would fail its statement alone, after the ones before had left.
      statements = compiled.map((item) => {
        const values = item.parameters.map((value) => pgUtils.prepareValue(value));
        return { text: item.sql, values, name: values.length > 0 ? this.statements.nameFor(item.sql) : undefined };
      });
    } catch (error) {
      return notSent(compiled.length, asError(error));
    }
    const queries: RenamingQuery[] = [];
    const answers = await Promise.all(
      statements.map(
        ({ text, values, name }, index) =>
          new Promise<Answer>((resolve) => {
            const query = new RenamingQuery(
              text,
              values,
              name,
              (error, result) => resolve(error ? { error } : { result }),
              this.naming,
              index === statements.length - 1,
            );
            queries.push(query);
            this.client.query(query);
          }),
      ),
    );
    // pg refuses every query on a connection it knows is dead: none of them left.
    const [first] = answers;
    if (first && 'error' in first && refusedUnsent(first.error)) return notSent(compiled.length, first.error);
    if (queries.some((query) => query.lostAfterComplete)) this.broken = true;
    let refused = false;
    return answers.map((answer, index) => {
      const statement = statements[index];
      if ('error' in answer && answer.error instanceof pg.DatabaseError) {
        // After a refusal in the transaction, the server runs nothing more of it.
        if (refused && answer.error.code === IN_FAILED_TRANSACTION) return { error: new StatementNotRunError() };
        refused = true;
        // Only the server's answer about a statement says its prepared form is stale: named anew
        // for any other failure (a lost connection), every connection would prepare it again.
        if (statement?.name !== undefined && isStalePreparedStatement(answer.error)) this.statements.renew(statement.text);
      }
      if ('error' in answer && isDatabaseUnavailable(answer.error)) this.broken = true;
      return outcomeOf(statement?.text ?? '', answer);
    });
  }

  release(): void {
    this.client.release(this.broken);
  }
}

/** A statement's answer as its outcome: a COMMIT the server answered with ROLLBACK wrote nothing. */
function outcomeOf(text: string, answer: Answer): PipelineOutcome<unknown> {
  if ('error' in answer) return answer;
  if (answer.result.command === 'ROLLBACK' && !/^\s*(ROLLBACK|ABORT)\b/i.test(text)) return { error: new RolledBackAtCommitError() };
  return { rows: answer.result.rows };
}
