import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CamelCasePlugin, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { DB } from '../src/platform/schema.js';
import { ROOT } from './processes.js';

/**
 * One read of the history whose plan is shown: `run` calls the repository function that reads it
 * (its statement is recorded, not run). `without` names an index dropped for this plan only (in a
 * transaction rolled back afterwards): what the planner does when that index does not fit, as on
 * a table shared by many accounts.
 */
export type PlannedRead = { name: string; run: (db: Kysely<DB>) => Promise<unknown>; without?: string };

export type Plan = {
  name: string;
  sql: string;
  values: string[];
  /** The EXPLAIN (ANALYZE, BUFFERS) text of the 6th execution of the prepared statement. */
  text: string;
  /** Generic (the same plan for any value, as a prepared statement settles on) or custom (planned for these values). */
  generic: boolean;
  indexes: string[];
  seqScan: boolean;
  sort: boolean;
  /** The most rows a Sort node of the plan got to sort (null without one): a few is the page, many is a scan's worth. */
  sortedRows: number | null;
  executionMs: number | null;
  /** Shared buffers the top node touched (hit + read): the pages the read cost. */
  buffers: number | null;
};

/**
 * The SQL text and values the gateway sends for a read: the repository's functions run on a
 * Kysely that compiles as the gateway's does (camelCase → snake_case) and only records the query.
 * The first statement is the read's (a function may go on with another one when the empty result
 * the recorder returns makes it look the cursor up).
 */
async function statementOf(run: PlannedRead['run']): Promise<CompiledQuery> {
  let captured: CompiledQuery | undefined;
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    plugins: [new CamelCasePlugin()],
    log: (event) => {
      if (event.level === 'query') captured ??= event.query;
    },
  });
  await run(db);
  await db.destroy();
  if (!captured) throw new Error('the repository ran no query');
  return captured;
}

function literal(client: pg.Client, value: unknown): string {
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return client.escapeLiteral(value);
  throw new Error(`no literal for ${typeof value}`);
}

/** The rows each Sort node of a plan got from its input (the line of its first child). */
function sortInputs(text: string): number[] {
  const lines = text.split('\n');
  const inputs: number[] = [];
  lines.forEach((line, index) => {
    if (!/(^|->)\s*(Incremental )?Sort {2}\(/.test(line)) return;
    const child = lines.slice(index + 1).find((next) => next.includes('->'));
    const rows = child ? /actual time=\S+ rows=(\d+)/.exec(child)?.[1] : undefined;
    if (rows !== undefined) inputs.push(Number(rows));
  });
  return inputs;
}

const number = (pattern: RegExp, text: string): number | null => {
  const match = pattern.exec(text);
  return match?.[1] === undefined ? null : Number(match[1]);
};

/**
 * EXPLAIN (ANALYZE, BUFFERS) of each read as the gateway runs it: a named prepared statement
 * (src/platform/postgresPool.ts), executed five times first, so that the sixth execution, the one
 * explained, uses the plan PostgreSQL settles on for that statement (generic when it is no worse
 * than the custom plans of the first five). The plans go to bench/results/history-plans.txt.
 */
export async function explainReads(databaseUrl: string, reads: PlannedRead[]): Promise<{ plans: Plan[]; file: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const plans: Plan[] = [];
  try {
    for (const [index, { name, run, without }] of reads.entries()) {
      const statement = await statementOf(run);
      const values = statement.parameters.map((value) => literal(client, value));
      const prepared = `history_plan_${index}`;
      if (without) await client.query(`BEGIN; DROP INDEX ${client.escapeIdentifier(without)}`);
      let rows: { 'QUERY PLAN': string }[];
      try {
        await client.query(`PREPARE ${prepared} AS ${statement.sql}`);
        for (let execution = 0; execution < 5; execution++) await client.query(`EXECUTE ${prepared}(${values.join(', ')})`);
        rows = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${prepared}(${values.join(', ')})`)).rows;
      } finally {
        if (without) await client.query('ROLLBACK');
        await client.query(`DEALLOCATE ${prepared}`);
      }
      const text = rows.map((row) => row['QUERY PLAN']).join('\n');
      const sorted = sortInputs(text);
      const top = /Buffers: shared((?: hit=\d+)?(?: read=\d+)?)/.exec(text)?.[1] ?? '';
      plans.push({
        name,
        sql: statement.sql,
        values,
        text,
        generic: /\$\d/.test(text),
        indexes: [...new Set([...text.matchAll(/Index (?:Only )?Scan (?:Backward )?using (\S+)/g)].map((match) => match[1] ?? ''))],
        seqScan: /Seq Scan/.test(text),
        sort: sorted.length > 0,
        sortedRows: sorted.length ? Math.max(...sorted) : null,
        executionMs: number(/Execution Time: ([\d.]+) ms/, text),
        buffers: top ? (number(/hit=(\d+)/, top) ?? 0) + (number(/read=(\d+)/, top) ?? 0) : null,
      });
    }
  } finally {
    await client.end();
  }
  const file = join(ROOT, 'bench/results/history-plans.txt');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    plans
      .map((plan, index) => {
        const hidden = reads[index]?.without;
        return [
          `## ${plan.name}`,
          '',
          plan.sql,
          `-- values: ${plan.values.join(', ')}`,
          ...(hidden ? [`-- with ${hidden} dropped (rolled back)`] : []),
          '',
          plan.text,
          '',
        ].join('\n');
      })
      .join('\n'),
  );
  return { plans, file };
}

/** One line per plan for the bench's notes. */
export const describePlan = (plan: Plan): string =>
  `${plan.name}: ${plan.indexes.length ? plan.indexes.join(' + ') : 'no index'}${plan.seqScan ? ', SEQ SCAN' : ''}${plan.sortedRows === null ? '' : `, sort of ${plan.sortedRows.toLocaleString('en-US')} rows`}, ${plan.generic ? 'generic' : 'custom'} plan, ${plan.buffers?.toLocaleString('en-US') ?? '?'} buffers, ${plan.executionMs ?? '?'} ms`;
