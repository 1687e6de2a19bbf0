import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { isDatabaseUnavailable } from './errors.js';

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
  return error.code === '26000' || (error.code === '0A000' && error.message.includes('cached plan'));
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

/** The pool Kysely's PostgresDialect uses: statements run prepared, rows come back with camelCase properties. */
/** Told when the server drops a connection (restart, failover, a proxy reaping it, pg_terminate_backend). */
export type ConnectionLost = (error: Error) => void;

export class GatewayPool implements PostgresPool {
  private readonly clients = new WeakMap<pg.PoolClient, GatewayClient>();
  constructor(
    private readonly pool: pg.Pool,
    private readonly naming: ColumnNaming,
    private readonly onConnectionLost: ConnectionLost,
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
      wrapped = new GatewayClient(client, this.naming, this.statements);
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
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(textOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions, @typescript-eslint/no-unnecessary-type-assertion -- Kysely's cursor and pg's Submittable are the same object under two type definitions
    if (typeof textOrCursor !== 'string') return this.client.query(textOrCursor as never) as PostgresCursor<R>;
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

  release(): void {
    this.client.release(this.broken);
  }
}
