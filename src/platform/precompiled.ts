import { CompiledQuery, type Compilable, type RawBuilder } from 'kysely';
import type { Db, Executor } from './database.js';

/** Stands for the value `key` (an argument's index, a named value's name) while a template is compiled. */
class StandIn {
  constructor(readonly key: unknown) {}
}

/** A value of the statement that is the same in every run (precompiled keeps it). */
class Constant {
  constructor(readonly value: unknown) {}
}

/** A compiled statement's text, and what each of its parameters is: a key of the run's values, or a constant. */
type Template<Key> = { sql: string; slots: readonly (Key | Constant)[] };

/**
 * A hot query that Kysely builds and compiles once; each call runs the same SQL text with the
 * call's values (Kysely's "split building and execution" recipe). Building, transforming and
 * compiling the query tree on every call was ~25% of a single-row read's CPU.
 *
 * `build` gets placeholders in place of its arguments: it must use them only as values of the
 * query (comparisons, inserted values, limits), with no branches on them. An argument that does
 * not end up among the query's parameters is refused when the query is first compiled. An argument
 * used twice is sent once (its $n repeated), so both uses must be of one type.
 */
export function precompiled<Args extends unknown[], Row>(build: (db: Db, ...args: Args) => Compilable<Row>) {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- build is called once, with stand-ins for Args
  const buildWith = build as (db: Db, ...args: unknown[]) => Compilable<Row>;
  // build's declared parameters after the handle are the query's arguments.
  const indices = Array.from({ length: build.length - 1 }, (_, index) => index);
  let template: Template<number> | undefined;
  return async (executor: Executor, ...args: Args): Promise<Row[]> => {
    template ??= compileTemplate(
      'precompiled query',
      indices,
      (index) => `argument ${index}`,
      (standIn) => buildWith(executor, ...indices.map(standIn)).compile(),
      'kept',
    );
    const result = await executor.executeQuery<Row>(CompiledQuery.raw(template.sql, valuesOf(template, args)));
    return result.rows;
  };
}

/**
 * A raw statement built and compiled once, run with values named by key (precompiled's recipe for
 * a statement that uses its values many times): `build` gets `value`, which gives the stand-in of
 * a named value, and must use each only as a value of the statement, with no branches on it. Each
 * value is sent once however often the statement uses it (its $n repeated). A run builds no query
 * tree and compiles nothing, and its text is the same string each time (the prepared statement's
 * name is found at once). Every value of the statement is a named one: a constant is refused.
 */
export function statementTemplate<Key extends string>(
  keys: readonly Key[],
  build: (value: (key: Key) => unknown) => RawBuilder<unknown>,
): (executor: Executor, values: Readonly<Record<Key, unknown>>) => CompiledQuery {
  let template: Template<Key> | undefined;
  return (executor, values) => {
    template ??= compileTemplate(
      'statement template',
      keys,
      (key) => key,
      (standIn) => build(standIn).compile(executor),
      'refused',
    );
    return CompiledQuery.raw(template.sql, valuesOf(template, values));
  };
}

/** A run's parameters: each slot's value among the run's, or its constant. */
function valuesOf<Key extends PropertyKey>(template: Template<Key>, values: Readonly<Record<Key, unknown>>): unknown[] {
  return template.slots.map((slot) => (slot instanceof Constant ? slot.value : values[slot]));
}

/**
 * The one compile step of both: `compile` builds the statement with a stand-in for each key and
 * compiles it; each key becomes one parameter, numbered in the order of its first use, however
 * often the statement uses it; each other value of the statement is a constant parameter of its
 * own (kept) or an error (refused). A key the statement never uses is an error.
 */
function compileTemplate<Key extends PropertyKey>(
  what: string,
  keys: readonly Key[],
  name: (key: Key) => string,
  compile: (standIn: (key: Key) => unknown) => { sql: string; parameters: readonly unknown[] },
  constants: 'kept' | 'refused',
): Template<Key> {
  const standIns = new Map(keys.map((key) => [key, new StandIn(key)]));
  const keyOf = new Map<unknown, Key>(keys.map((key) => [standIns.get(key), key]));
  const { sql, parameters } = compile((key) => standIns.get(key));
  const slots: (Key | Constant)[] = [];
  const numberOfKey = new Map<Key, number>();
  const numbers = parameters.map((parameter) => {
    const key = keyOf.get(parameter);
    if (key === undefined) {
      if (constants === 'refused') throw new Error(`${what}: a value of the statement is none of its named values`);
      return slots.push(new Constant(parameter));
    }
    let number = numberOfKey.get(key);
    if (number === undefined) numberOfKey.set(key, (number = slots.push(key)));
    return number;
  });
  let next = 0;
  // Kysely numbers the parameters $1, $2, … in the text in order, each once.
  const text = sql.replace(/\$(\d+)/g, (_, digits: string) => {
    if (Number(digits) !== next + 1) throw new Error(`${what}: $${digits} where $${next + 1} was expected`);
    return `$${numbers[next++]}`;
  });
  if (next !== parameters.length) throw new Error(`${what}: ${parameters.length} parameters, ${next} in the text`);
  const unused = keys.filter((key) => !numberOfKey.has(key));
  if (unused.length > 0) throw new Error(`${what}: ${unused.map(name).join(', ')} not used as a value of the statement`);
  return { sql: text, slots };
}
