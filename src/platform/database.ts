import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import {
  CamelCasePlugin,
  CompiledQuery,
  Kysely,
  PostgresDialect,
  sql,
  type PluginTransformResultArgs,
  type QueryResult,
  type Transaction,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import { asError, CommitOutcomeUnknownError, errorCode } from './errors.js';
import {
  endedTheBackend,
  GatewayPool,
  PIPELINE,
  RolledBackAtCommitError,
  StatementNotRunError,
  type ConnectionLost,
  type PipelineOutcome,
} from './postgresPool.js';
import { parseTimestamptz, TIMESTAMPTZ_OID } from './timestamps.js';
import type { DatabaseTarget } from '../config.js';
import type { DB } from './schema.js';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Either the root handle or a transaction: repositories accept both. */
export type Executor = Db | Tx;

/**
 * `statements` sent together on one connection and answered together: one round trip where each
 * would wait for the one before it. An outcome per statement, in order. Inside a transaction,
 * after the first the server refuses, the others answer StatementNotRunError (it ran none of them);
 * a lost connection fails the ones not answered yet. An error outcome does not always mean "not
 * written": a statement whose rows the gateway could not read (a type parser threw) ran, and so
 * did those after it. Each statement has its own Sync (pg's pipeline mode), so outside a
 * transaction each would be a transaction of its own: transactionInOneTrip wraps them in BEGIN and
 * COMMIT.
 */
async function sendPipeline<Row>(connection: Db, statements: readonly CompiledQuery[]): Promise<PipelineOutcome<Row>[]> {
  // Without plugins: the outcomes are not rows to rename.
  const { rows } = await connection.withoutPlugins().executeQuery<PipelineOutcome<Row>>(CompiledQuery.raw(PIPELINE, [...statements]));
  if (rows.length !== statements.length) throw new Error(`a pipeline of ${statements.length} statements answered ${rows.length} outcomes`);
  return rows;
}

/**
 * How a transaction sent in one trip ended. `committed`: its COMMIT answered; an outcome may
 * still be an error, for rows the gateway could not read (they are written all the same).
 * `rolledBack`: `error` failed the statement at `failedAt` (undefined: BEGIN, or the trip never
 * left) before COMMIT, so the server ran none of what followed, COMMIT included; nothing was
 * written. `unknown`: the connection was lost after the trip was sent (a node that dies, or one
 * shut down while COMMIT waits for its synchronous standby, says nothing more), or COMMIT itself
 * failed: it may have been written (CommitOutcomeUnknownError, with the cause).
 */
export type OneTripTransaction<Row> =
  | { state: 'committed'; outcomes: PipelineOutcome<Row>[] }
  | { state: 'rolledBack'; error: Error; failedAt: number | undefined }
  | { state: 'unknown'; error: CommitOutcomeUnknownError };

const BEGIN = CompiledQuery.raw('BEGIN');
const COMMIT = CompiledQuery.raw('COMMIT');
const ROLLBACK = CompiledQuery.raw('ROLLBACK');

/** The server's own refusal (a statement's error, or the end of its backend), as opposed to the connection's or the gateway's. */
const refusedByServer = (answer: PipelineOutcome<unknown>): boolean => 'error' in answer && answer.error instanceof pg.DatabaseError;

/**
 * BEGIN, `statements` and COMMIT, sent in one pipeline on one connection: a transaction in one
 * round trip, where Kysely's awaits BEGIN, each statement and COMMIT in turn (PGlite's connection
 * takes them in turn, stopping at the first failure: the same outcomes). Throws only when no
 * connection was had; after that, the commit's outcome is in the answer, since it decides what the
 * caller may do next (never write again what may be written).
 *
 * The server answers every statement (each has its own Sync): after one it refused, the others are
 * refused as in a failed transaction and COMMIT answers with the command tag ROLLBACK
 * (RolledBackAtCommitError): rolled back, never committed. A server's refusal of a statement
 * between BEGIN and COMMIT proves the rollback even when the connection is lost after it.
 */
export function transactionInOneTrip<Row>(db: Db, statements: readonly CompiledQuery[]): Promise<OneTripTransaction<Row>> {
  return db.connection().execute(async (connection): Promise<OneTripTransaction<Row>> => {
    let answers: PipelineOutcome<Row>[];
    try {
      answers = await sendPipeline<Row>(connection, [BEGIN, ...statements, COMMIT]);
    } catch (error) {
      return { state: 'unknown', error: new CommitOutcomeUnknownError(asError(error)) };
    }
    const begun = answers[0];
    const committed = answers.at(-1);
    const unknown = (cause: Error | undefined): OneTripTransaction<Row> => ({
      state: 'unknown',
      error: new CommitOutcomeUnknownError(cause ?? new Error('a transaction in one trip answered nothing')),
    });
    if (begun && 'error' in begun) {
      // No transaction was opened: the statements were not run (never sent, or skipped in turn), or
      // the backend ended at BEGIN; otherwise each ran as its own transaction, whatever it wrote.
      const notRun = answers.slice(1).every((answer) => 'error' in answer && answer.error instanceof StatementNotRunError);
      if (!notRun && !endedTheBackend(begun.error)) return unknown(begun.error);
      if (notRun) await connection.executeQuery(ROLLBACK).catch(() => undefined);
      return { state: 'rolledBack', error: begun.error, failedAt: undefined };
    }
    if (committed && 'rows' in committed) return { state: 'committed', outcomes: answers.slice(1, -1) };
    const refusedAt = answers.slice(0, -1).findIndex(refusedByServer);
    const rolledBack = refusedAt > 0 || (committed && (committed.error instanceof RolledBackAtCommitError || committed.error instanceof StatementNotRunError));
    if (!rolledBack) return unknown(committed?.error);
    // COMMIT never ran (statements sent in turn): the transaction is still open, failed (or left by
    // rows the gateway could not read). A ROLLBACK that fails has lost its connection, and the
    // transaction with it (the pool drops that connection).
    if (committed?.error instanceof StatementNotRunError) await connection.executeQuery(ROLLBACK).catch(() => undefined);
    const failedAt = refusedAt > 0 ? refusedAt : answers.findIndex((answer) => 'error' in answer);
    const failed = answers[failedAt];
    const error = failed && 'error' in failed ? failed.error : new Error('a transaction in one trip failed without an error');
    return { state: 'rolledBack', error, failedAt: failedAt > 0 ? failedAt - 1 : undefined };
  });
}

export type Database = {
  db: Db;
  backend: 'postgres' | 'pglite';
  /** The pool's connections now: open, idle, and queries waiting for one (metrics). */
  poolStats(): { total: number; idle: number; waiting: number };
  /** PGlite only: its data folder as a tarball, to start another in-memory database from (`startFrom`). */
  dump?: () => Promise<Blob>;
  close(): Promise<void>;
};

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** int8 and numeric (sums of int8) become numbers, refusing values a double cannot hold exactly. */
function parseExactInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`integer out of safe range: ${text}`);
  return value;
}

/**
 * Kysely's CamelCasePlugin for the queries (camelCase properties → snake_case identifiers), with
 * the name conversions memoized. Result rows need no mapping here: GatewayPool names their
 * properties as they are parsed (`columnToProperty`). jsonb values are documents, not columns:
 * their keys stay as stored.
 */
class CachedCamelCasePlugin extends CamelCasePlugin {
  private readonly toCamel = new Map<string, string>();
  private readonly toSnake = new Map<string, string>();

  readonly columnToProperty = (column: string): string => this.camelCase(column);

  override async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
  protected override camelCase(name: string): string {
    return cachedConversion(this.toCamel, name, (column) => super.camelCase(column));
  }
  protected override snakeCase(name: string): string {
    return cachedConversion(this.toSnake, name, (property) => super.snakeCase(property));
  }
}

/** A name conversion looked up in `cache` first; the cache stops growing at 10,000 names. */
function cachedConversion(cache: Map<string, string>, name: string, convert: (name: string) => string): string {
  let converted = cache.get(name);
  if (converted === undefined) {
    converted = convert(name);
    if (cache.size < 10_000) cache.set(name, converted);
  }
  return converted;
}

/** Kysely over a pg pool (server or PGlite): prepared statements, camelCase rows. */
function kyselyOver(pool: pg.Pool, onConnectionLost: ConnectionLost, pipelining: boolean): Db {
  const plugin = new CachedCamelCasePlugin();
  return new Kysely<DB>({
    dialect: new PostgresDialect({ pool: new GatewayPool(pool, plugin.columnToProperty, onConnectionLost, pipelining) }),
    plugins: [plugin],
  });
}

const typeParsers: pg.CustomTypesConfig = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === INT8_OID || oid === NUMERIC_OID) return parseExactInteger;
    if (oid === TIMESTAMPTZ_OID) return parseTimestamptz;
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- pg's parsers are typed `any`; what they return is pg's to decide
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

export type DatabaseOptions = {
  /** Schema to use on the server (tests isolate themselves this way). */
  searchPath?: string;
  poolSize?: number;
  /** Told when the server drops a connection; the pool opens a new one on the next query. */
  onConnectionLost?: ConnectionLost;
  /**
   * PGlite only: a dumped data folder (`dump`) the database starts from instead of an empty one —
   * a migrated copy costs a third of creating and migrating one (the tests start a hundred).
   */
  startFrom?: Blob;
};

/** Opens the database the configuration names (config.ts decides which). */
export async function openDatabase(target: DatabaseTarget, options: DatabaseOptions = {}): Promise<Database> {
  if (target.kind === 'server') {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: options.poolSize ?? 20,
      types: typeParsers,
      // pg's pipeline mode on every connection (not a pool of its own for one-trip transactions: the
      // pool's size and prepared statements stay one set); GatewayPool says what it refuses.
      pipeline: true,
      ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
    });
    const db = kyselyOver(pool, options.onConnectionLost ?? (() => undefined), true);
    return { db, backend: 'postgres', poolStats: () => statsOf(pool), close: () => db.destroy() };
  }

  let releaseLock = () => {};
  if (target.kind === 'embedded') {
    mkdirSync(target.dataDir, { recursive: true });
    releaseLock = lockDataDir(target.dataDir);
  }
  const pglite = new PGlite(
    target.kind === 'memory' ? 'memory://' : join(target.dataDir, 'pglite'),
    options.startFrom ? { loadDataDir: options.startFrom } : {},
  );
  // PGlite is one connection: a pool of one, never closed while idle. Prepared statements save
  // its planning as well (measured: 734 → 855 charges/s). Its connection never answered a pipeline
  // (a test hung on it), so a pipeline sends the statements in turn there.
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, idleTimeoutMillis: 0, types: typeParsers });
  const db = kyselyOver(pool, options.onConnectionLost ?? (() => undefined), false);
  return {
    db,
    backend: 'pglite',
    poolStats: () => statsOf(pool),
    dump: () => pglite.dumpDataDir('none'),
    async close() {
      await db.destroy();
      await pglite.close();
      releaseLock();
    },
  };
}

const statsOf = (pool: pg.Pool) => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });

/** PGlite does not lock its folder; two processes on one folder would corrupt it. */
function lockDataDir(dataDir: string): () => void {
  const lockPath = join(dataDir, 'gateway.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockPath, 'utf8'));
      if (holder && holder !== process.pid && isProcessAlive(holder)) {
        throw new Error(
          `The data folder ${dataDir} is in use by process ${holder}. The embedded database allows one process; stop it or set DATABASE_URL to a PostgreSQL server.`,
        );
      }
      unlinkSync(lockPath); // stale lock of a process that died
    }
  }
  throw new Error(`Could not lock the data folder ${dataDir}`);
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

const migrationsDir = fileURLToPath(new URL('../migrations/', import.meta.url));

const migrationFiles = async (): Promise<string[]> => (await readdir(migrationsDir)).filter((name) => /^\d+_.*\.sql$/.test(name)).sort();

/** The migrations this code has that the database has not applied (readiness); throws when the database does not answer. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const files = await migrationFiles();
  const { rows } = await sql<{ version: string }>`SELECT version FROM schema_migrations`.execute(db);
  const applied = new Set(rows.map((row) => row.version));
  return files.filter((file) => !applied.has(file));
}

/** Applies numbered .sql files in order, each in its own transaction, under an advisory lock. */
export async function migrate(db: Db): Promise<string[]> {
  const files = await migrationFiles();
  const applied: string[] = [];
  await db.connection().execute(async (connection) => {
    await sql`SELECT pg_advisory_lock(727274)`.execute(connection);
    try {
      await sql`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(connection);
      const done = new Set((await connection.selectFrom('schemaMigrations').select('version').execute()).map((row) => row.version));
      for (const file of files) {
        if (done.has(file)) continue;
        const text = await readFile(join(migrationsDir, file), 'utf8');
        await connection.transaction().execute(async (tx) => {
          await sql.raw(text).execute(tx);
          await tx.insertInto('schemaMigrations').values({ version: file }).execute();
        });
        applied.push(file);
      }
    } finally {
      await sql`SELECT pg_advisory_unlock(727274)`.execute(connection);
    }
  });
  return applied;
}
