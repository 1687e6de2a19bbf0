import { CompiledQuery, type Compilable, type RawBuilder } from 'kysely';
import type { Db, Executor } from './database.js';

/** Stands for the query's index-th argument while the query is built. */
class Placeholder {
  constructor(readonly index: number) {}
}

type Template = { sql: string; parameters: readonly unknown[] };

/**
 * A hot query that Kysely builds and compiles once; each call runs the same SQL text with the
 * call's values (Kysely's "split building and execution" recipe). Building, transforming and
 * compiling the query tree on every call was ~25% of a single-row read's CPU.
 *
 * `build` gets placeholders in place of its arguments: it must use them only as values of the
 * query (comparisons, inserted values, limits), with no branches on them. An argument that does
 * not end up among the query's parameters is refused when the query is first compiled.
 */
export function precompiled<Args extends unknown[], Row>(build: (db: Db, ...args: Args) => Compilable<Row>) {
  let template: Template | undefined;
  return async (executor: Executor, ...args: Args): Promise<Row[]> => {
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- build is called once, with placeholders standing for Args
    template ??= compileTemplate(executor, build as (db: Db, ...args: unknown[]) => Compilable<Row>);
    const parameters = template.parameters.map((parameter) => (parameter instanceof Placeholder ? args[parameter.index] : parameter));
    const result = await executor.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}

function compileTemplate<Row>(executor: Executor, build: (db: Executor, ...args: unknown[]) => Compilable<Row>): Template {
  // build's declared parameters after the handle are the query's arguments.
  const placeholders = Array.from({ length: build.length - 1 }, (_, index) => new Placeholder(index));
  // A transaction handle builds the same SQL as the root handle; only `compile` is called.
  const { sql, parameters } = build(executor, ...placeholders).compile();
  for (const placeholder of placeholders) {
    if (!parameters.includes(placeholder)) throw new Error(`precompiled query: argument ${placeholder.index} is not a value of the query`);
  }
  return { sql, parameters };
}

/** Stands for the value named `key` while a statement template is built. */
class NamedPlaceholder {
  constructor(readonly key: string) {}
}

type NamedTemplate<Key> = { sql: string; keys: readonly Key[] };

/**
 * A raw statement built and compiled once, run with values named by key (precompiled's recipe for
 * a statement that uses its values many times): `build` gets `value`, which gives the stand-in of
 * a named value, and must use each only as a value of the statement, with no branches on it. Each
 * value is sent once however often the statement uses it (its $n repeated). A run builds no query
 * tree and compiles nothing, and its text is the same string each time (the prepared statement's
 * name is found at once).
 */
export function statementTemplate<Key extends string>(
  keys: readonly Key[],
  build: (value: (key: Key) => unknown) => RawBuilder<unknown>,
): (executor: Executor, values: Readonly<Record<Key, unknown>>) => CompiledQuery {
  let template: NamedTemplate<Key> | undefined;
  return (executor, values) => {
    template ??= compileNamedTemplate(executor, keys, build);
    return CompiledQuery.raw(
      template.sql,
      template.keys.map((key) => values[key]),
    );
  };
}

function compileNamedTemplate<Key extends string>(
  executor: Executor,
  keys: readonly Key[],
  build: (value: (key: Key) => unknown) => RawBuilder<unknown>,
): NamedTemplate<Key> {
  const standIns = new Map(keys.map((key) => [key, new NamedPlaceholder(key)]));
  const { sql, parameters } = build((key) => standIns.get(key)).compile(executor);
  // Each value becomes one parameter, numbered in the order of its first use.
  const order: Key[] = [];
  const numbers = parameters.map((parameter) => {
    const key = keys.find((candidate) => standIns.get(candidate) === parameter);
    if (key === undefined) throw new Error('statement template: a value of the statement is none of its named values');
    if (!order.includes(key)) order.push(key);
    return order.indexOf(key) + 1;
  });
  let next = 0;
  // Kysely numbers the parameters $1, $2, … in the text in order, each once.
  const text = sql.replace(/\$(\d+)/g, (_, digits: string) => {
    if (Number(digits) !== next + 1) throw new Error(`statement template: $${digits} where $${next + 1} was expected`);
    return `$${numbers[next++]}`;
  });
  if (next !== parameters.length) throw new Error(`statement template: ${parameters.length} parameters, ${next} in the text`);
  const unused = keys.filter((key) => !order.includes(key));
  if (unused.length > 0) throw new Error(`statement template: ${unused.join(', ')} not used`);
  return { sql: text, keys: order };
}
