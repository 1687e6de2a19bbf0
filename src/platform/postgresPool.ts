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

/**
 * A query whose rows carry their final property names from the start: the column names are
 * renamed once per result, where a mapping after the fact copied every row into a new object
 * (measured: ~20% of a 50-row list's CPU).
 */
class RenamingQuery extends pg.Query {
  /** The prepared statement's name (pg reads it; its type definitions leave it out). */
  declare name?: string;

  constructor(
    text: string,
    values: unknown[],
    name: string | undefined,
    callback: (error: Error | undefined, result: pg.QueryResult) => void,
    private readonly naming: ColumnNaming,
  ) {
    // Text and values as arguments: a config object would be copied property by property.
    super(text, values, callback);
    if (name) this.name = name;
  }

  handleRowDescription(message: { fields: { name: string }[] }): void {
    for (const field of message.fields) field.name = this.naming(field.name);
    // @ts-expect-error pg's Submittable handler, not in its type definitions
    // eslint-disable-next-line @typescript-eslint/no-unsafe-call -- same: the method exists at run time on pg.Query
    super.handleRowDescription(message);
  }
}

declare module 'pg' {
  // A connection's record of its prepared statements, which pg keeps and its type definitions leave out.
  interface Connection {
    /** Statement name → text, for the statements the server confirmed as parsed. */
    parsedStatements: Record<string, string | undefined>;
    /** Statement name → text, for the statements sent to be parsed and not confirmed yet. */
    submittedNamedStatements: Record<string, string | undefined>;
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

/** The outcomes of a pipeline that never left: the first statement failed with `error`, the others were not run. */
const notSent = (count: number, error: Error): PipelineOutcome<unknown>[] =>
  Array.from({ length: count }, (_, index) => ({ error: index === 0 ? error : new StatementNotRunError() }));

type PipelinedStatement = { text: string; values: (Buffer | string | null)[]; name: string | undefined };
/** The pool's type parsers (database.ts), which every query's rows go through. */
type TypeParsers = { getTypeParser(oid: number, format: 'text'): (value: string) => unknown };

type CompiledStatement = { sql: string; parameters: readonly unknown[] };

const isCompiledStatement = (value: unknown): value is CompiledStatement =>
  typeof value === 'object' && value !== null && 'sql' in value && typeof value.sql === 'string' && 'parameters' in value && Array.isArray(value.parameters);

/**
 * Several statements sent at once, each as Parse (once per connection) / Bind / Describe /
 * Execute, with one Sync after the last: the server runs them one after another without waiting
 * for the client between them (PostgreSQL's extended protocol, "pipelining"). After a statement
 * fails, the server skips the others up to the Sync: they answer StatementNotRunError. Rows come
 * back with the same names and type parsers as every other query's; a row a parser cannot read
 * fails its statement (which ran), and the statements after it still run and answer.
 */
class StatementPipeline implements pg.Submittable {
  private readonly outcomes: PipelineOutcome<unknown>[] = [];
  private columns: { names: string[]; parsers: ((value: string) => unknown)[] } | undefined;
  private rows: Record<string, unknown>[] = [];
  /** A row of the current statement the gateway could not read (a type parser threw). */
  private unreadable: Error | undefined;
  /** The statements sent with a Parse, in order, whose ParseComplete has not come yet. */
  private readonly parsing: PipelinedStatement[] = [];
  private connection: pg.Connection | undefined;
  private finished = false;
  /** pg wraps this when the connection has a `query_timeout`: calling it clears pg's timer, which would otherwise fire after the end. */
  callback: () => void = () => undefined;

  constructor(
    private readonly statements: readonly PipelinedStatement[],
    private readonly naming: ColumnNaming,
    private readonly types: TypeParsers,
    /** With `connectionError` when the connection failed after every statement had answered: it must not be reused. */
    private readonly done: (outcomes: PipelineOutcome<unknown>[], connectionError?: Error) => void,
  ) {}

  submit(connection: pg.Connection): void {
    this.connection = connection;
    // pg records a name as prepared on its ParseComplete for the query that has the name; a
    // pipeline has many: each ParseComplete answers the oldest Parse sent.
    connection.on('parseComplete', this.parseCompleted);
    connection.stream.cork();
    try {
      for (const statement of this.statements) {
        const { text, values, name } = statement;
        if (name === undefined || (connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined)) {
          connection.parse({ name: name ?? '', text, types: [] }, false);
          if (name !== undefined) connection.submittedNamedStatements[name] = text;
          this.parsing.push(statement);
        }
        connection.bind({ statement: name ?? '', values }, false);
        connection.describe({ type: 'P', name: '' }, false);
        connection.execute({ portal: '' }, false);
      }
      connection.sync();
    } catch (error) {
      // Still corked, nothing has left: never send part of a pipeline. The connection goes with it.
      const cause = asError(error);
      this.finish(notSent(this.statements.length, cause), cause);
      connection.stream.destroy();
      return;
    }
    connection.stream.uncork();
  }

  private readonly parseCompleted = (): void => {
    const parsed = this.parsing.shift();
    if (parsed?.name === undefined || !this.connection) return;
    this.connection.parsedStatements[parsed.name] = parsed.text;
    delete this.connection.submittedNamedStatements[parsed.name];
  };

  handleRowDescription(message: { fields: { name: string; dataTypeID: number }[] }): void {
    this.columns = {
      names: message.fields.map((field) => this.naming(field.name)),
      parsers: message.fields.map((field) => this.types.getTypeParser(field.dataTypeID, 'text')),
    };
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.unreadable) return;
    const row: Record<string, unknown> = {};
    const { names = [], parsers = [] } = this.columns ?? {};
    try {
      message.fields.forEach((value, index) => {
        const parse = parsers[index];
        row[names[index] ?? String(index)] = value === null || parse === undefined ? value : parse(value);
      });
    } catch (error) {
      // Thrown here, it would escape through the socket's handler; the statement fails instead (as pg.Query does).
      this.unreadable = asError(error);
      return;
    }
    this.rows.push(row);
  }

  handleCommandComplete(): void {
    this.outcomes.push(this.unreadable ? { error: this.unreadable } : { rows: this.rows });
    this.rows = [];
    this.columns = undefined;
    this.unreadable = undefined;
  }

  handleEmptyQuery(): void {
    this.handleCommandComplete();
  }

  /**
   * A statement's error (the server then skips the rest up to the Sync), or the connection's (then
   * all of them fail with it), unless every statement had answered already (a connection that
   * ended before the last ReadyForQuery): their outcomes stand.
   */
  handleError(error: Error): void {
    const answered = this.outcomes.length;
    if (!this.connection) {
      this.finish(notSent(this.statements.length, error)); // refused before it was submitted (a connection pg knows is dead)
    } else if (answered >= this.statements.length) {
      this.finish(this.outcomes, error);
    } else if (!(error instanceof pg.DatabaseError)) {
      this.finish(this.statements.map(() => ({ error })));
    } else {
      this.finish([...this.outcomes, { error }, ...this.statements.slice(answered + 1).map(() => ({ error: new StatementNotRunError() }))]);
    }
  }

  handleReadyForQuery(): void {
    this.finish(this.outcomes);
  }

  handlePortalSuspended(): void {
    // Never: each Execute asks for all its rows.
  }

  private finish(outcomes: PipelineOutcome<unknown>[], connectionError?: Error): void {
    if (this.finished) return;
    this.finished = true;
    const { connection } = this;
    if (connection) {
      connection.off('parseComplete', this.parseCompleted);
      // A Parse never answered (it failed, or the server skipped it after an earlier failure): not prepared there.
      for (const unparsed of this.parsing) if (unparsed.name !== undefined) delete connection.submittedNamedStatements[unparsed.name];
    }
    this.callback();
    this.done(outcomes, connectionError);
  }
}

/** Told when the server drops a connection (restart, failover, a proxy reaping it, pg_terminate_backend). */
export type ConnectionLost = (error: Error) => void;

/** The pool Kysely's PostgresDialect uses: statements run prepared, rows come back with camelCase properties. */
export class GatewayPool implements PostgresPool {
  private readonly clients = new WeakMap<pg.PoolClient, GatewayClient>();
  constructor(
    private readonly pool: pg.Pool,
    private readonly naming: ColumnNaming,
    private readonly onConnectionLost: ConnectionLost,
    private readonly types: TypeParsers,
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
      wrapped = new GatewayClient(client, this.naming, this.statements, this.types, this.pipelining);
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
    private readonly types: TypeParsers,
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

  /** The same outcomes as sendTogether, one statement at a time. */
  private async sendInTurn(compiled: readonly CompiledStatement[]): Promise<PipelineOutcome<unknown>[]> {
    const outcomes: PipelineOutcome<unknown>[] = [];
    for (const { sql, parameters } of compiled) {
      try {
        outcomes.push({ rows: (await this.query<unknown>(sql, parameters)).rows });
      } catch (error) {
        outcomes.push({ error: asError(error) });
        break;
      }
    }
    return [...outcomes, ...compiled.slice(outcomes.length).map(() => ({ error: new StatementNotRunError() }))];
  }

  private sendTogether(compiled: readonly CompiledStatement[]): Promise<PipelineOutcome<unknown>[]> {
    let statements: PipelinedStatement[];
    try {
      statements = compiled.map((item): PipelinedStatement => {
        const values = item.parameters.map((value) => pgUtils.prepareValue(value));
        return { text: item.sql, values, name: values.length > 0 ? this.statements.nameFor(item.sql) : undefined };
      });
    } catch (error) {
      // A value pg cannot serialize: nothing was sent.
      return Promise.resolve(notSent(compiled.length, asError(error)));
    }
    return new Promise((resolve) => {
      const done = (outcomes: PipelineOutcome<unknown>[], connectionError?: Error) => {
        if (connectionError) this.broken = true;
        outcomes.forEach((outcome, index) => {
          if (!('error' in outcome)) return;
          const statement = statements[index];
          // Only the server's answer about a statement says its prepared form is stale: named anew
          // for any other failure (one the server skipped, a lost connection), every connection would prepare it again.
          if (statement?.name !== undefined && outcome.error instanceof pg.DatabaseError && isStalePreparedStatement(outcome.error)) {
            this.statements.renew(statement.text);
          }
          if (isDatabaseUnavailable(outcome.error)) this.broken = true;
        });
        resolve(outcomes);
      };
      this.client.query(new StatementPipeline(statements, this.naming, this.types, done));
    });
  }

  release(): void {
    this.client.release(this.broken);
  }
}
