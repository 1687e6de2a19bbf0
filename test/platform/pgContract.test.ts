import { readFileSync } from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, transactionInOneTrip } from '../../src/platform/database.js';
import { serverUrl } from '../helpers/gateway.js';

/**
 * What the gateway relies on from pg (platform/postgresPool.ts, platform/database.ts), asserted
 * against the version the lockfile installs. A new version of pg is taken only once this suite
 * passes on it: then PINNED and package.json change together.
 */
const PINNED = '8.23.1';

const require = createRequire(import.meta.url);
const installed = (JSON.parse(readFileSync(require.resolve('pg/package.json'), 'utf8')) as { version: string }).version;
const declared = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies.pg;

describe('the pinned pg', () => {
  it('is the version this suite was written against, pinned exactly in package.json', () => {
    expect(installed, `test/platform/pgContract.test.ts pins pg ${PINNED}, and ${installed} is installed: run this suite on it, then change PINNED`).toBe(
      PINNED,
    );
    expect(declared, `test/platform/pgContract.test.ts: package.json must pin pg exactly ("pg": "${PINNED}")`).toBe(PINNED);
  });
});

/**
 * Relays connections to the server. After `hold()`, nothing of the answers reaches the client until
 * `release()`: the queries it sends meanwhile did not wait for one. `received()`: what the clients
 * sent since the last `hold()` or `reset()`. `cut()` drops every connection, as a network does.
 */
type Relay = { url: string; hold(): void; release(): void; reset(): void; received(): string; cut(): void; close(): Promise<void> };

async function startRelay(target: URL): Promise<Relay> {
  let holding = false;
  let held: { client: net.Socket; chunk: Buffer }[] = [];
  let sent = '';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      sent += chunk.toString('latin1');
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (holding) held.push({ client, chunk });
      else client.write(chunk);
    });
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: url.toString(),
    hold() {
      holding = true;
      sent = '';
    },
    release() {
      holding = false;
      for (const { client, chunk } of held) client.write(chunk);
      held = [];
    },
    reset() {
      sent = '';
    },
    received: () => sent,
    cut: () => sockets.forEach((socket) => socket.destroy()),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Settles with the error or the result, never rejects: the outcomes of queries sent together. */
const settled = <T>(promise: Promise<T>): Promise<{ ok: T } | { error: Error & { code?: string; severity?: string } }> =>
  promise.then(
    (ok) => ({ ok }),
    (error: unknown) => ({ error: error instanceof Error ? error : new Error(String(error)) }),
  );

describe.runIf(serverUrl)('pg as the gateway uses it (PostgreSQL server)', () => {
  const target = new URL(serverUrl ?? 'postgres://localhost');
  const admin = new pg.Client({ connectionString: serverUrl });
  let relay: Relay;
  const clients: pg.Client[] = [];

  /** A client in pipeline mode, through the relay. */
  async function pipelined(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: relay.url, pipeline: true });
    client.on('error', () => undefined); // the tests that end connections read the queries' errors
    clients.push(client);
    await client.connect();
    return client;
  }

  beforeAll(async () => {
    await admin.connect();
    relay = await startRelay(target);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
    await admin.end();
    relay.cut();
    await relay.close();
  });

  it('pipeline mode writes every query queued before any answer comes, and answers each in order', async () => {
    const client = await pipelined();
    expect(client.pipeline).toBe(true);
    relay.hold();
    const answers = [
      settled(client.query('SELECT 1 AS one')),
      settled(client.query({ text: 'SELECT $1::int + 1 AS two /* contract */', values: [1], name: 'contract_two' })),
      settled(client.query('SELECT 3 AS three /* last of the pipeline */')),
    ];
    // No answer has reached the client, and the last query has left already.
    await expect.poll(() => relay.received(), { timeout: 2_000 }).toContain('last of the pipeline');
    relay.release();
    expect(await Promise.all(answers)).toEqual([
      { ok: expect.objectContaining({ rows: [{ one: 1 }] }) },
      { ok: expect.objectContaining({ rows: [{ two: 2 }] }) },
      { ok: expect.objectContaining({ rows: [{ three: 3 }] }) },
    ]);
  });

  it('gives each query its own Sync: after one fails in a transaction the next are refused with 25P02, and COMMIT answers the command ROLLBACK', async () => {
    const client = await pipelined();
    const answers = await Promise.all([
      settled(client.query('BEGIN')),
      settled(client.query({ text: 'SELECT 1 / $1::int AS failing', values: [0] })),
      settled(client.query({ text: 'SELECT $1::int AS after', values: [1] })),
      settled(client.query('COMMIT')),
    ]);
    expect(answers[0]).toEqual({ ok: expect.objectContaining({ command: 'BEGIN' }) });
    expect(answers[1]).toEqual({ error: expect.objectContaining({ code: '22012' }) });
    expect(answers[1] && 'error' in answers[1] && answers[1].error).toBeInstanceOf(pg.DatabaseError);
    expect(answers[2]).toEqual({ error: expect.objectContaining({ code: '25P02' }) });
    expect(answers[3]).toEqual({ ok: expect.objectContaining({ command: 'ROLLBACK' }) });
    // Out of the transaction: the connection goes on.
    expect((await client.query('SELECT 1 AS next')).rows).toEqual([{ next: 1 }]);
  });

  it('answers a FATAL to the query running when the server ends the backend, and fails every query after it', async () => {
    const client = await pipelined();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const lost = new Promise<Error>((resolve) => client.once('error', resolve));
    const answers = Promise.all([
      settled(client.query('BEGIN')),
      settled(client.query({ text: 'SELECT pg_sleep($1)', values: [5] })),
      settled(client.query({ text: 'SELECT $1::int AS after', values: [1] })),
      settled(client.query('COMMIT')),
    ]);
    await expect
      .poll(async () => (await admin.query<{ query: string }>('SELECT query FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0]?.query, { timeout: 5_000 })
      .toContain('pg_sleep');
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const [begun, sleeping, after, committed] = await answers;
    expect(begun).toEqual({ ok: expect.objectContaining({ command: 'BEGIN' }) });
    expect(sleeping).toEqual({ error: expect.objectContaining({ code: '57P01', severity: 'FATAL' }) });
    expect(sleeping && 'error' in sleeping && sleeping.error).toBeInstanceOf(pg.DatabaseError);
    for (const pending of [after, committed]) {
      expect(pending).toEqual({ error: expect.objectContaining({ message: expect.stringMatching(/^Connection terminated/) }) });
      expect(pending && 'error' in pending && pending.error).not.toBeInstanceOf(pg.DatabaseError);
    }
    expect(await lost).toBeInstanceOf(Error);
    // A query on the dead connection is refused before it is sent, in these words.
    await expect(client.query('SELECT 1')).rejects.toThrow(/^Client has encountered a connection error and is not queryable/);
  });

  it('fails every pending query when the socket is destroyed mid-pipeline', async () => {
    const client = await pipelined();
    relay.reset();
    const answers = Promise.all([
      settled(client.query('BEGIN')),
      settled(client.query({ text: 'SELECT pg_sleep($1)', values: [5] })),
      settled(client.query('COMMIT')),
    ]);
    await expect.poll(() => relay.received(), { timeout: 2_000 }).toContain('COMMIT');
    relay.cut();
    const [, sleeping, committed] = await answers;
    for (const pending of [sleeping, committed]) {
      expect(pending).toEqual({ error: expect.any(Error) });
      expect(pending && 'error' in pending && pending.error).not.toBeInstanceOf(pg.DatabaseError);
    }
  });

  it('parses a named statement once per connection, re-uses it in the same pipeline, and forgets a name whose Parse the server refused', async () => {
    const client = await pipelined();
    const text = 'SELECT $1::int * 2 AS doubled /* contract named */';
    const twice = await Promise.all([1, 2, 3].map((value) => client.query({ text, values: [value], name: 'contract_named' })));
    expect(twice.map((result) => result.rows[0])).toEqual([{ doubled: 2 }, { doubled: 4 }, { doubled: 6 }]);
    const prepared = await client.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE statement LIKE '%contract named%'");
    expect(prepared.rows).toEqual([{ name: 'contract_named' }]);
    // A name sent for the first time into a failed transaction: its Parse is refused, and pg sends it again next time.
    const fresh = { text: 'SELECT $1::int AS fresh /* contract fresh */', values: [7], name: 'contract_fresh' };
    const refused = await Promise.all([
      settled(client.query('BEGIN')),
      settled(client.query({ text: 'SELECT 1 / $1::int', values: [0] })),
      settled(client.query(fresh)),
      settled(client.query('ROLLBACK')),
    ]);
    expect(refused[2]).toEqual({ error: expect.objectContaining({ code: '25P02' }) });
    expect((await client.query(fresh)).rows).toEqual([{ fresh: 7 }]);
    // A name the client takes as parsed, which the server no longer holds: 26000, the gateway names the text anew.
    await client.query('DEALLOCATE contract_fresh');
    await expect(client.query(fresh)).rejects.toMatchObject({ code: '26000' });
  });

  it("reads a pipelined query's rows with the client's type parsers", async () => {
    const client = new pg.Client({
      connectionString: relay.url,
      pipeline: true,
      types: { getTypeParser: (oid: number) => (oid === 20 ? (text: string) => `int8:${text}` : (text: string) => text) },
    });
    clients.push(client);
    await client.connect();
    const [first, second] = await Promise.all([
      client.query({ text: 'SELECT $1::int8 AS big', values: [5] }),
      client.query({ text: 'SELECT $1::int8 AS big, $2::text AS label', values: [6, 'x'] }),
    ]);
    expect(first.rows).toEqual([{ big: 'int8:5' }]);
    expect(second.rows).toEqual([{ big: 'int8:6', label: 'x' }]);
  });

  it("calls a pg.Query subclass's Submittable handlers in order, in pipeline mode; refuses other Submittables there", async () => {
    const client = await pipelined();
    class Recording extends pg.Query {
      readonly calls: string[] = [];
      override handleRowDescription(message: { fields: { name: string }[] }): void {
        this.calls.push(`rowDescription ${message.fields.map((field) => field.name).join(',')}`);
        for (const field of message.fields) field.name = field.name.toUpperCase();
        super.handleRowDescription(message);
      }
      override handleCommandComplete(message: { text: string }, connection: pg.Connection): void {
        this.calls.push(`commandComplete ${message.text}`);
        super.handleCommandComplete(message, connection);
      }
      override handleReadyForQuery(connection: pg.Connection): void {
        this.calls.push('readyForQuery');
        super.handleReadyForQuery(connection);
      }
      override handleError(error: Error, connection: pg.Connection): void {
        this.calls.push(`error ${(error as { code?: string }).code}`);
        super.handleError(error, connection);
      }
    }
    const run = (text: string, values: unknown[]) =>
      new Promise<{ query: Recording; outcome: Error | pg.QueryResult }>((resolve) => {
        const query: Recording = new Recording(text, values, (error: Error | undefined, result: pg.QueryResult) =>
          resolve({ query, outcome: error ?? result }),
        );
        client.query(query);
      });
    const [ran, failed] = await Promise.all([run('SELECT $1::int AS renamed', [1]), run('SELECT $1::int / (random() * 0)::int AS failing', [1])]);
    expect(ran.query.calls).toEqual(['rowDescription renamed', 'commandComplete SELECT 1', 'readyForQuery']);
    expect(ran.outcome).toMatchObject({ command: 'SELECT', rows: [{ RENAMED: 1 }] });
    expect(failed.query.calls).toEqual(['rowDescription failing', 'error 22012']);
    expect(failed.outcome).toMatchObject({ code: '22012' });

    const refusal = await new Promise<Error>((resolve) => {
      const custom: pg.Submittable & { handleError(error: Error): void } = { submit: () => undefined, handleError: resolve };
      client.query(custom);
    });
    expect(refusal.message).toBe('Custom query classes such as pg-cursor and pg-query-stream are not supported in pipeline mode');
  });

  it("converts parameters with pg/lib/utils.js's prepareValue as it binds them; a value it cannot convert throws", () => {
    expect(pgUtils.prepareValue('text')).toBe('text');
    expect(pgUtils.prepareValue(null)).toBeNull();
    expect(pgUtils.prepareValue({ a: [1] })).toBe('{"a":[1]}');
    expect(pgUtils.prepareValue(['a', null])).toBe('{"a",NULL}');
    expect(pgUtils.prepareValue(Buffer.from('x'))).toEqual(Buffer.from('x'));
    expect(() => pgUtils.prepareValue({ amount: 10n })).toThrow(TypeError);
    // What it returns for a string is the string: converted once by the gateway, bound as is by pg.
    const date = new Date('2026-11-27T12:00:00.123Z');
    expect(pgUtils.prepareValue(pgUtils.prepareValue(date))).toBe(pgUtils.prepareValue(date));
  });

  it("keeps the gateway's transaction in one trip one round trip: BEGIN, every statement and COMMIT leave before the first answer", async () => {
    const own = await openDatabase({ kind: 'server', url: relay.url }, { poolSize: 1 });
    try {
      await sql`SELECT 1`.execute(own.db); // the connection is open before the answers are held
      relay.hold();
      const trip = transactionInOneTrip<{ n: number }>(own.db, [
        sql`SELECT ${1}::int AS n`.compile(own.db),
        sql`SELECT ${2}::int AS n /* one trip */`.compile(own.db),
      ]);
      await expect.poll(() => relay.received(), { timeout: 2_000 }).toMatch(/one trip[^]*COMMIT/);
      relay.release();
      expect(await trip).toEqual({ state: 'committed', outcomes: [{ rows: [{ n: 1 }] }, { rows: [{ n: 2 }] }] });
    } finally {
      relay.release();
      await own.close();
    }
  });
});
