import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/platform/database.js';
import { StatementNames } from '../src/platform/preparedStatements.js';
import { serverUrl } from './helpers/gateway.js';

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ url: serverUrl ?? 'memory://', dataDir: '', poolSize: 1 });
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

  it('leaves statements without parameters on the simple protocol', async () => {
    await sql`SELECT 'no parameters here' AS plain`.execute(database.db);
    expect((await preparedStatements()).some((row) => row.statement.includes('no parameters here'))).toBe(false);
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
  });
});
