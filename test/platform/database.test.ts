import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, transactionInOneTrip, type Database, type Tx } from '../../src/platform/database.js';
import { CommitOutcomeUnknownError, errorCode, isDatabaseUnavailable, statementNeverRan } from '../../src/platform/errors.js';
import { PIPELINE, StatementNames, StatementNotRunError, type PipelineOutcome } from '../../src/platform/postgresPool.js';
import { precompiled, statementTemplate } from '../../src/platform/precompiled.js';
import { parseTimestamptz, TIMESTAMPTZ_OID } from '../../src/platform/timestamps.js';
import pg from 'pg';
import { serverUrl } from '../helpers/gateway.js';

/** The driver's pipeline (GatewayPool), as transactionInOneTrip sends it, inside a transaction the test holds open. */
async function pipelined<Row>(tx: Tx, statements: CompiledQuery[]): Promise<PipelineOutcome<Row>[]> {
  return (await tx.withoutPlugins().executeQuery<PipelineOutcome<Row>>(CompiledQuery.raw(PIPELINE, statements))).rows;
}

let database: Database;
beforeAll(async () => {
  database = await openDatabase(serverUrl ? { kind: 'server', url: serverUrl } : { kind: 'memory' }, { poolSize: 1 });
});
afterAll(() => database.close());

const preparedStatements = async () =>
  (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(database.db)).rows;

describe('prepared statements', () => {
  it('prepares a parameterized statement once per connection and reuses it', async () => {
    const marker = `m_${randomBytes(4).toString('hex')}`;
    const query = (value: number) => sql<{ doubled: number }>`SELECT ${value}::int * 2 AS doubled, ${marker}::text AS marker`.execute(database.db);
    expect((await query(21)).rows[0]?.doubled).toBe(42);
    expect((await query(50)).rows[0]?.doubled).toBe(100);

    const mine = (await preparedStatements()).filter((row) => row.statement.includes('AS marker'));
    expect(mine).toHaveLength(1);
    expect(mine[0]?.name).toMatch(/^s\d+$/);
  });

  it('prepares a statement again when a migration changed the columns it returns', async () => {
    await sql`CREATE TEMPORARY TABLE probe (a int)`.execute(database.db); // the pool has one connection
    try {
      await sql`INSERT INTO probe VALUES (1)`.execute(database.db);
      const read = () => sql<Record<string, number | null>>`SELECT * FROM probe WHERE a = ${1}`.execute(database.db);
      expect((await read()).rows).toEqual([{ a: 1 }]);
      await sql`ALTER TABLE probe ADD COLUMN extra int`.execute(database.db);
      // The call that finds the statement stale fails (it may be inside a transaction, so it is not retried) ...
      await expect(read()).rejects.toThrow('cached plan must not change result type');
      // ... and the next ones run it prepared anew.
      expect((await read()).rows).toEqual([{ a: 1, extra: null }]);
      expect((await read()).rows).toEqual([{ a: 1, extra: null }]);
    } finally {
      await sql`DROP TABLE probe`.execute(database.db);
    }
  });

  it('leaves statements without parameters on the simple protocol', async () => {
    await sql`SELECT 'no parameters here' AS plain`.execute(database.db);
    expect((await preparedStatements()).some((row) => row.statement.includes('no parameters here'))).toBe(false);
  });
});

describe(`pipelined statements (${serverUrl ? 'sent together' : 'PGlite: sent in turn'})`, () => {
  /** `text` makes a statement text of its own: one the connection has not prepared yet. */
  const insert = (id: number, amountCents: number, text = 'first') =>
    sql<{ id: number; amountCents: number; createdAt: Date; details: { id: number } | null; tags: string[] }>`INSERT /* ${sql.raw(text)} */
      INTO pipeline_probe (id, amount_cents, created_at, details, tags)
      VALUES (${id}, ${amountCents}::int8, ${new Date(Date.UTC(2026, 10, 27, 12, 0, id))}, ${id % 2 === 1 ? { id } : null}::jsonb, ${[`t${id}`, 'x']}::text[])
      RETURNING id, amount_cents, created_at, details, tags`;
  const countRows = async () => Number((await sql<{ count: number }>`SELECT count(*)::int AS count FROM pipeline_probe`.execute(database.db)).rows[0]?.count);
  const inTransaction = (statements: (tx: Tx) => CompiledQuery[]) => database.db.transaction().execute((tx) => pipelined(tx, statements(tx)));
  const failedCodes = (outcomes: PipelineOutcome<unknown>[]) =>
    outcomes.map((outcome) => ('error' in outcome ? (errorCode(outcome.error) ?? outcome.error.name) : 'ok'));

  beforeAll(async () => {
    // The pool has one connection: the temporary table, and what it has prepared, stay with it.
    await sql`CREATE TEMPORARY TABLE pipeline_probe (id int PRIMARY KEY, amount_cents int8 NOT NULL CHECK (amount_cents > 0),
      created_at timestamptz NOT NULL, details jsonb, tags text[] NOT NULL)`.execute(database.db);
  });

  it("answers each statement's rows in order, with the names and types of every other query", async () => {
    const outcomes = await database.db.transaction().execute((tx) =>
      pipelined(
        tx,
        [1, 2, 3].map((id) => insert(id, id * 100).compile(tx)),
      ),
    );
    expect(outcomes).toEqual(
      [1, 2, 3].map((id) => ({
        rows: [
          { id, amountCents: id * 100, createdAt: new Date(Date.UTC(2026, 10, 27, 12, 0, id)), details: id % 2 === 1 ? { id } : null, tags: [`t${id}`, 'x'] },
        ],
      })),
    );
    // The same rows as a query outside a pipeline reads them.
    const read = await sql`SELECT id, amount_cents, created_at, details, tags FROM pipeline_probe ORDER BY id`.execute(database.db);
    expect(read.rows).toEqual(outcomes.flatMap((outcome) => ('rows' in outcome ? outcome.rows : [])));
  });

  it('stops at the first failure: the ones before answer, the failed one its error, the rest were not run; the same statements run again on the connection', async () => {
    await sql`DELETE FROM pipeline_probe`.execute(database.db);
    const attempt = database.db.transaction().execute(async (tx) => {
      const outcomes = await pipelined(
        tx,
        [insert(10, 1, 'second'), insert(11, -5, 'third'), insert(12, 1, 'third'), insert(13, 1, 'fourth')].map((statement) => statement.compile(tx)),
      );
      expect(outcomes[0]).toEqual({ rows: [expect.objectContaining({ id: 10 })] });
      expect(outcomes[1]).toEqual({ error: expect.objectContaining({ code: '23514' }) });
      expect(outcomes.slice(2)).toEqual([{ error: expect.any(StatementNotRunError) }, { error: expect.any(StatementNotRunError) }]);
      throw new Error('rolled back');
    });
    await expect(attempt).rejects.toThrow('rolled back');
    expect(await countRows()).toBe(0);
    // What the connection has prepared is known exactly: the failed statement's text was parsed
    // before it failed, the last one's never was; both run again.
    const again = await database.db.transaction().execute((tx) =>
      pipelined(
        tx,
        [insert(20, 1, 'third'), insert(21, 2, 'fourth')].map((statement) => statement.compile(tx)),
      ),
    );
    expect(again.map((outcome) => ('rows' in outcome ? outcome.rows.length : outcome.error.message))).toEqual([1, 1]);
    expect(await countRows()).toBe(2);
  });

  it("keeps the connection's prepared statements known when a text's first use fails, then runs alone or is skipped in a later pipeline", async () => {
    const refused = inTransaction((tx) => [insert(30, -1, 'fifth').compile(tx)]);
    await expect(refused).resolves.toEqual([{ error: expect.objectContaining({ code: '23514' }) }]);
    // Alone: refused, then written (the record said "being parsed"; an error of a query alone clears that).
    await expect(insert(31, -1, 'fifth').execute(database.db)).rejects.toMatchObject({ code: '23514' });
    expect((await insert(32, 1, 'fifth').execute(database.db)).rows).toHaveLength(1);

    expect(failedCodes(await inTransaction((tx) => [insert(40, -1, 'sixth').compile(tx)]))).toEqual(['23514']);
    // Skipped after another's failure: that says nothing of 'sixth', which the server holds.
    const skipping = await inTransaction((tx) => [insert(41, -1, 'seventh').compile(tx), insert(42, 1, 'sixth').compile(tx)]);
    expect(skipping).toEqual([{ error: expect.objectContaining({ code: '23514' }) }, { error: expect.any(StatementNotRunError) }]);
    expect((await insert(43, 1, 'sixth').execute(database.db)).rows).toHaveLength(1);
    expect((await insert(44, 1, 'seventh').execute(database.db)).rows).toHaveLength(1);
  });

  it('keeps Parse answers in step with statements without parameters (unnamed) among them', async () => {
    const outcomes = await inTransaction((tx) => [
      sql`SELECT 1 AS one`.compile(tx),
      insert(60, 1, 'ninth').compile(tx),
      sql`SELECT 2 AS two`.compile(tx),
      insert(61, -1, 'tenth').compile(tx),
      insert(62, 1, 'eleventh').compile(tx),
    ]);
    expect(failedCodes(outcomes)).toEqual(['ok', 'ok', 'ok', '23514', 'Error']);
    expect(outcomes[4]).toEqual({ error: expect.any(StatementNotRunError) });
    // Each text, alone: prepared already ('ninth', 'tenth') or not yet ('eleventh'), as the record says.
    for (const [id, text] of [
      [63, 'ninth'],
      [64, 'tenth'],
      [65, 'eleventh'],
    ] as const) {
      expect((await insert(id, 1, text).execute(database.db)).rows).toHaveLength(1);
    }
  });

  it('fails a statement whose row the gateway cannot read, without throwing out of the driver; the connection goes on', async () => {
    const attempt = database.db.transaction().execute(async (tx) => {
      const outcomes = await pipelined(tx, [sql`SELECT ${9_007_199_254}::int8 * 10000000 AS big`.compile(tx), insert(50, 1, 'eighth').compile(tx)]);
      expect(outcomes[0]).toEqual({ error: expect.objectContaining({ message: 'integer out of safe range: 90071992540000000' }) });
      // Sent together, the statement after it ran (one by one, on PGlite, it was not sent).
      expect(outcomes[1]).toEqual(serverUrl ? { rows: [expect.objectContaining({ id: 50 })] } : { error: expect.any(StatementNotRunError) });
      throw new Error('rolled back');
    });
    await expect(attempt).rejects.toThrow('rolled back');
    expect((await insert(51, 1, 'eighth').execute(database.db)).rows).toHaveLength(1);
  });

  describe('a transaction in one trip', () => {
    const trip = (statements: CompiledQuery[]) => transactionInOneTrip<{ id: number }>(database.db, statements);
    const inTransactionNow = async () => (await sql<{ open: boolean }>`SELECT now() <> statement_timestamp() AS open`.execute(database.db)).rows[0]?.open;

    it('commits its statements, answering their rows', async () => {
      await sql`DELETE FROM pipeline_probe`.execute(database.db);
      const ended = await trip([insert(70, 1, 'twelfth').compile(database.db), insert(71, 2, 'twelfth').compile(database.db)]);
      expect(ended).toEqual({
        state: 'committed',
        outcomes: [{ rows: [expect.objectContaining({ id: 70 })] }, { rows: [expect.objectContaining({ id: 71 })] }],
      });
      expect(await countRows()).toBe(2);
      expect(await inTransactionNow()).toBe(false);
    });

    it('rolls back on the first failure, naming it, and leaves the connection out of any transaction', async () => {
      await sql`DELETE FROM pipeline_probe`.execute(database.db);
      const ended = await trip([
        insert(72, 1, 'twelfth').compile(database.db),
        insert(73, -1, 'twelfth').compile(database.db),
        insert(74, 1, 'twelfth').compile(database.db),
      ]);
      expect(ended).toEqual({ state: 'rolledBack', failedAt: 1, error: expect.objectContaining({ code: '23514' }) });
      expect(await countRows()).toBe(0);
      // The next statement on the (only) connection runs on its own and stays written.
      expect(await inTransactionNow()).toBe(false);
      await insert(75, 1, 'twelfth').execute(database.db);
      expect(await countRows()).toBe(1);
    });

    // Server only: on PGlite, pg's own query leaves the embedded connection unable to read the ROLLBACK after such a value (pg's behaviour, the gateway never sends one).
    it.runIf(serverUrl)('sends nothing when a value cannot be serialized, and writes nothing', async () => {
      await sql`DELETE FROM pipeline_probe`.execute(database.db);
      const unserializable = { amount: 10n };
      const ended = await trip([insert(77, 1, 'twelfth').compile(database.db), sql`SELECT ${unserializable}::jsonb AS doc`.compile(database.db)]);
      expect(ended).toEqual({ state: 'rolledBack', failedAt: undefined, error: expect.objectContaining({ name: 'TypeError' }) });
      expect(await countRows()).toBe(0);
      expect(await inTransactionNow()).toBe(false);
    });

    it('keeps what it wrote when rows of it could not be read on the server (they ran, COMMIT with them); on PGlite stops there and rolls back', async () => {
      await sql`DELETE FROM pipeline_probe`.execute(database.db);
      const ended = await trip([sql`SELECT ${9_007_199_254}::int8 * 10000000 AS big`.compile(database.db), insert(76, 1, 'twelfth').compile(database.db)]);
      const unreadable = expect.objectContaining({ message: 'integer out of safe range: 90071992540000000' });
      if (serverUrl) {
        expect(ended).toEqual({ state: 'committed', outcomes: [{ error: unreadable }, { rows: [expect.objectContaining({ id: 76 })] }] });
        expect(await countRows()).toBe(1);
      } else {
        expect(ended).toEqual({ state: 'rolledBack', failedAt: 0, error: unreadable });
        expect(await countRows()).toBe(0);
      }
      expect(await inTransactionNow()).toBe(false);
    });
  });
});

describe.runIf(serverUrl)('a transaction in one trip whose connection ends', () => {
  const target = new URL(serverUrl ?? 'postgres://localhost');
  const admin = new pg.Client({ connectionString: serverUrl });
  /**
   * Relays connections to the server; `cut()` drops them without a word from the server, as a
   * network or a killed node does. With `fatalBeforeReady` set, the ReadyForQuery the server sends
   * after COMMIT's CommandComplete is replaced by a FATAL 57P01 and the connection closed: a backend
   * ended after every statement had answered (each statement of a pipeline has its ReadyForQuery).
   */
  let fatalBeforeReady = false;
  const COMMIT_COMPLETE = Buffer.from('COMMIT\0');
  const relay = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    let startup = true; // the server's first bytes may be a one-byte SSL answer, not a message
    let commitAnswered = false;
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      if (startup && pending[0] === 0x4e) {
        client.write(pending.subarray(0, 1));
        pending = pending.subarray(1);
      }
      startup = false;
      while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
        const message = pending.subarray(0, 1 + pending.readInt32BE(1));
        pending = pending.subarray(message.length);
        if (fatalBeforeReady && message[0] === 0x43 && message.subarray(5).equals(COMMIT_COMPLETE)) commitAnswered = true;
        if (fatalBeforeReady && commitAnswered && message[0] === 0x5a) {
          commitAnswered = false;
          fatalBeforeReady = false;
          const fields = Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0');
          const fatal = Buffer.alloc(5 + fields.length);
          fatal.write('E');
          fatal.writeInt32BE(4 + fields.length, 1);
          fields.copy(fatal, 5);
          client.end(fatal, drop);
          return;
        }
        client.write(message);
      }
    });
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    relayed.add(drop);
  });
  const relayed = new Set<() => void>();
  const cut = () => relayed.forEach((drop) => drop());

  beforeAll(async () => {
    await admin.connect();
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await admin.end();
    await new Promise((resolve) => relay.close(resolve));
  });

  /** A pool of one through the relay, its backend's pid, and a trip that sleeps on the server until stopped. */
  async function sleepingTrip() {
    const address = relay.address();
    const through = new URL(target);
    through.hostname = '127.0.0.1';
    through.port = String(typeof address === 'object' && address ? address.port : 0);
    const own = await openDatabase({ kind: 'server', url: through.toString() }, { poolSize: 1 });
    const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(own.db)).rows[0]?.pid;
    const ended = transactionInOneTrip(own.db, [sql`SELECT ${1}::int AS one`.compile(own.db), sql`SELECT pg_sleep(${5})`.compile(own.db)]);
    await expect
      .poll(async () => (await admin.query<{ query: string }>('SELECT query FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0]?.query, { timeout: 5_000 })
      .toContain('pg_sleep');
    return { own, pid, ended };
  }

  it('is unknown when the connection drops after the trip was sent, and the pool goes on with a new connection', async () => {
    const { own, pid, ended } = await sleepingTrip();
    try {
      cut();
      const outcome = await ended;
      expect(outcome).toEqual({ state: 'unknown', error: expect.any(CommitOutcomeUnknownError) });
      // Answered as "may have been written": never as a statement that never ran.
      expect(isDatabaseUnavailable(outcome.state === 'unknown' && outcome.error)).toBe(true);
      expect(statementNeverRan(outcome.state === 'unknown' && outcome.error)).toBe(false);
      const next = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(own.db)).rows[0]?.pid;
      expect(next).not.toBe(pid);
    } finally {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await own.close();
    }
  });

  it('is committed when the backend ends after COMMIT answered, before its ReadyForQuery; that connection is not reused', async () => {
    const table = `one_trip_probe_${process.pid}`;
    await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
    const address = relay.address();
    const through = new URL(target);
    through.hostname = '127.0.0.1';
    through.port = String(typeof address === 'object' && address ? address.port : 0);
    const own = await openDatabase({ kind: 'server', url: through.toString() }, { poolSize: 1 });
    try {
      const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(own.db)).rows[0]?.pid;
      fatalBeforeReady = true;
      const ended = await transactionInOneTrip<{ id: number }>(own.db, [sql`INSERT INTO ${sql.table(table)} (id) VALUES (${1}) RETURNING id`.compile(own.db)]);
      expect(ended).toEqual({ state: 'committed', outcomes: [{ rows: [{ id: 1 }] }] });
      expect((await admin.query(`SELECT id FROM ${table}`)).rows).toEqual([{ id: 1 }]);
      const next = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(own.db)).rows[0]?.pid;
      expect(next).not.toBe(pid);
    } finally {
      fatalBeforeReady = false;
      await own.close();
      await admin.query(`DROP TABLE ${table}`);
    }
  });

  it('is rolled back when the server ends the backend before COMMIT and says so (57P01 at that statement)', async () => {
    const { own, pid, ended } = await sleepingTrip();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expect(await ended).toEqual({ state: 'rolledBack', failedAt: 1, error: expect.objectContaining({ code: '57P01' }) });
    } finally {
      await own.close();
    }
  });
});

describe('StatementNames', () => {
  it('gives one stable name per text and none once its capacity is reached', () => {
    const names = new StatementNames(2);
    const first = names.nameFor('select $1');
    expect(first).toBeDefined();
    expect(names.nameFor('select $1')).toBe(first);
    const second = names.nameFor('select $1, $2');
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(names.nameFor('select $1, $2, $3')).toBeUndefined();
    expect(names.nameFor('select $1')).toBe(first);

    names.renew('select $1');
    const renewed = names.nameFor('select $1');
    expect(renewed).toBeDefined();
    expect([first, second]).not.toContain(renewed);
    names.renew('select $1, $2, $3'); // never named: stays unnamed
    expect(names.nameFor('select $1, $2, $3')).toBeUndefined();
  });
});

describe('timestamptz parsing', () => {
  const reference = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => Date;

  it('reads what the database prints exactly as pg does, to the millisecond', async () => {
    await sql`SET TimeZone = 'UTC'`.execute(database.db); // the pool has one connection
    const { rows } = await sql<{ text: string; epochMs: string }>`
      SELECT moment::text AS text, floor(extract(epoch FROM moment) * 1000)::int8::text AS "epochMs"
      FROM (VALUES
        (timestamptz '2026-11-22 03:44:11.123456+00'), (timestamptz '2026-11-22 03:44:11.1+00'),
        (timestamptz '2026-11-22 03:44:11.12+00'), (timestamptz '2026-11-22 03:44:11+00'),
        (timestamptz '2024-02-29 23:59:59.999999+00'), (timestamptz '1970-01-01 00:00:00.001+00'),
        (timestamptz '2026-11-22 00:00:00-03'), (timestamptz '9999-12-31 23:59:59.5+00')
      ) AS moments(moment)`.execute(database.db);
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      expect(row.text).toMatch(/\+00$/);
      expect(parseTimestamptz(row.text).getTime()).toBe(Number(row.epochMs));
      expect(parseTimestamptz(row.text).getTime()).toBe(reference(row.text).getTime());
    }
  });

  it('rows come back as Dates through the driver', async () => {
    const { rows } = await sql<{ at: Date }>`SELECT ${'2026-11-22T03:44:11.123Z'}::timestamptz AS at`.execute(database.db);
    expect(rows[0]?.at).toBeInstanceOf(Date);
    expect(rows[0]?.at.toISOString()).toBe('2026-11-22T03:44:11.123Z');
  });

  it("reads the same instants in a session of another time zone (through pg's parser)", async () => {
    await sql`SET TimeZone = 'America/Sao_Paulo'`.execute(database.db);
    try {
      const { rows } = await sql<{
        at: Date;
        text: string;
      }>`SELECT ${'2026-11-22T03:44:11.123Z'}::timestamptz AS at, ${'2026-11-22T03:44:11.123Z'}::timestamptz::text AS text`.execute(database.db);
      expect(rows[0]?.text).toBe('2026-11-22 00:44:11.123-03');
      expect(rows[0]?.at.toISOString()).toBe('2026-11-22T03:44:11.123Z');
    } finally {
      await sql`SET TimeZone = 'UTC'`.execute(database.db);
    }
  });

  it('hands every other form to pg', () => {
    for (const text of [
      '2026-11-22 00:44:11.5-03',
      '2026-11-22 03:44:11+05:30',
      '0050-01-01 00:00:00+00',
      '2026-11-22 03:44:11+00 BC',
      'infinity',
      '-infinity',
      '12026-01-01 00:00:00+00',
    ]) {
      const expected = reference(text);
      const actual = parseTimestamptz(text);
      if (expected instanceof Date) expect(actual.getTime()).toBe(expected.getTime());
      else expect(actual).toBe(expected);
    }
  });
});

describe('precompiled queries', () => {
  it("compile once and run with each call's values, constants kept", async () => {
    const query = precompiled((db, label: string, amount: number) =>
      db.selectNoFrom((eb) => [eb.val(label).as('label'), sql<number>`${amount}::int8 * ${3}::int8`.as('tripled'), eb.val('fixed').as('constant')]),
    );
    expect(await query(database.db, 'first', 7)).toEqual([{ label: 'first', tripled: 21, constant: 'fixed' }]);
    expect(await query(database.db, 'second', 100)).toEqual([{ label: 'second', tripled: 300, constant: 'fixed' }]);
    await database.db.transaction().execute(async (tx) => {
      expect(await query(tx, 'in a transaction', 1)).toEqual([{ label: 'in a transaction', tripled: 3, constant: 'fixed' }]);
    });
  });

  it('refuse an argument the builder used as a JavaScript value instead of a query value', async () => {
    const branching = precompiled((db, limit: number) => db.selectNoFrom((eb) => [eb.val(limit > 5 ? 'many' : 'few').as('size')]));
    await expect(branching(database.db, 10)).rejects.toThrow('precompiled query: argument 0 not used as a value of the statement');
  });

  it('run an argument used twice (one parameter) with constants kept in their places between its uses', async () => {
    const query = precompiled((db, label: string, amount: number) =>
      db.selectNoFrom([
        sql<string>`${label}::text || ${'-'}::text || ${amount}::int8 || ${'-'}::text || ${label}::text`.as('joined'),
        sql<number>`${amount}::int8 + ${amount}::int8 + ${5}::int8`.as('summed'),
      ]),
    );
    expect(await query(database.db, 'a', 1)).toEqual([{ joined: 'a-1-a', summed: 7 }]);
    expect(await query(database.db, 'b', 20)).toEqual([{ joined: 'b-20-b', summed: 45 }]);
  });
});

describe('statement templates', () => {
  it('send each named value once, however often the statement uses it, in the order of first use', async () => {
    const statement = statementTemplate(
      ['label', 'amount', 'offset'],
      (value) =>
        sql`SELECT ${value('amount')}::int8 * 2 AS doubled, ${value('label')}::text AS label, ${value('amount')}::int8 + ${value('offset')}::int8 AS summed`,
    );
    const compiled = statement(database.db, { label: 'first', amount: 21, offset: 1 });
    expect(compiled.sql).toBe('SELECT $1::int8 * 2 AS doubled, $2::text AS label, $1::int8 + $3::int8 AS summed');
    expect(compiled.parameters).toEqual([21, 'first', 1]);
    const run = async (values: { label: string; amount: number; offset: number }) => (await database.db.executeQuery(statement(database.db, values))).rows;
    expect(await run({ label: 'first', amount: 21, offset: 1 })).toEqual([{ doubled: 42, label: 'first', summed: 22 }]);
    expect(await run({ label: 'second', amount: 50, offset: -50 })).toEqual([{ doubled: 100, label: 'second', summed: 0 }]);
    // The same text each run: one prepared statement.
    expect(statement(database.db, { label: 'x', amount: 1, offset: 2 }).sql).toBe(compiled.sql);
  });

  it('refuse a value that is no named one, and a named value the statement never uses', () => {
    const constant = statementTemplate(['label'], (value) => sql`SELECT ${value('label')}::text, ${'constant'}::text`);
    expect(() => constant(database.db, { label: 'a' })).toThrow('statement template: a value of the statement is none of its named values');
    const unused = statementTemplate(['label', 'forgotten'], (value) => sql`SELECT ${value('label')}::text`);
    expect(() => unused(database.db, { label: 'a', forgotten: 1 })).toThrow('statement template: forgotten not used');
  });
});

describe('Dates as parameters', () => {
  it('reach the server as the instants they are, alone and in arrays, in a statement and in a pipeline, whatever their year', async () => {
    const dates = [
      new Date('2026-11-27T23:59:59.123Z'),
      new Date('0001-01-01T00:00:00.000Z'),
      new Date('9999-12-31T23:59:59.999Z'),
      new Date('+010000-01-01T00:00:00.000Z'),
    ];
    const millisecondsOf = (date: Date) =>
      sql<{
        ms: string;
      }>`SELECT (extract(epoch FROM ${date}::timestamptz) * 1000)::numeric(20, 0)::text AS ms, (SELECT array_agg((extract(epoch FROM d) * 1000)::numeric(20, 0)::text) FROM unnest(${[null, date]}::timestamptz[]) AS d) AS "inArray"`;
    for (const date of dates) {
      const expected = { ms: String(date.getTime()), inArray: [null, String(date.getTime())] };
      expect((await millisecondsOf(date).execute(database.db)).rows).toEqual([expected]);
      await database.db.transaction().execute(async (tx) => {
        const [outcome] = await pipelined<{ ms: string }>(tx, [millisecondsOf(date).compile(tx)]);
        expect(outcome).toEqual({ rows: [expected] });
      });
    }
  });
});
