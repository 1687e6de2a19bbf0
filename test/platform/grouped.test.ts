import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/errors.js';
import { grouped, OverdueError } from '../../src/platform/grouped.js';

/** A write whose calls are recorded and finished by the test, one at a time. */
function controlledWrite() {
  const calls: { items: string[]; finish: (error?: Error) => void }[] = [];
  const write = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items, finish: (error) => (error ? reject(error) : resolve(items.map((item) => `${item}:written`))) });
    });
  return { calls, write };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('grouped', () => {
  it('writes a lone item at once, and the items that arrive meanwhile together in one later write', async () => {
    const { calls, write } = controlledWrite();
    const submit = grouped(write);
    const first = submit('a');
    await settle();
    expect(calls.map((call) => call.items)).toEqual([['a']]);
    const waiting = [submit('b'), submit('c'), submit('d')];
    await settle();
    expect(calls).toHaveLength(1); // nothing more until the write in flight ends
    calls[0]?.finish();
    expect(await first).toBe('a:written');
    await settle();
    expect(calls.map((call) => call.items)).toEqual([['a'], ['b', 'c', 'd']]);
    calls[1]?.finish();
    expect(await Promise.all(waiting)).toEqual(['b:written', 'c:written', 'd:written']);
    // Quiet again: the next item is written alone, at once.
    const later = submit('e');
    await settle();
    expect(calls.map((call) => call.items)).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    calls[2]?.finish();
    expect(await later).toBe('e:written');
  });

  it('fails every item of a failed write with its error, and writes the items queued after it', async () => {
    const { calls, write } = controlledWrite();
    const submit = grouped(write);
    const first = submit('a');
    await settle();
    const second = submit('b');
    await settle();
    calls[0]?.finish(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await settle();
    expect(calls.map((call) => call.items)).toEqual([['a'], ['b']]);
    calls[1]?.finish();
    expect(await second).toBe('b:written');
  });

  it('writes at most maxBatch items at a time', async () => {
    const { calls, write } = controlledWrite();
    const submit = grouped(write, { maxBatch: 2 });
    const all = ['a', 'b', 'c', 'd', 'e'].map(submit);
    await settle();
    calls[0]?.finish();
    await settle();
    calls[1]?.finish();
    await settle();
    calls[2]?.finish();
    expect(await Promise.all(all)).toEqual(['a:written', 'b:written', 'c:written', 'd:written', 'e:written']);
    expect(calls.map((call) => call.items)).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });

  it('with a deadline, fails a batch that has not answered by then as the database unavailable, and runs the next', async () => {
    const { calls, write } = controlledWrite();
    const submit = grouped(write, { deadlineMs: 30 });
    const stuck = submit('a');
    await settle();
    const next = submit('b');
    const failure: unknown = await stuck.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OverdueError);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    await settle();
    expect(calls.map((call) => call.items)).toEqual([['a'], ['b']]);
    calls[1]?.finish();
    expect(await next).toBe('b:written');
    calls[0]?.finish(new Error('answered late')); // nobody's to handle
    await settle();
  });

  it('with a deadline, answers a batch that answers in time', async () => {
    const submit = grouped(async (items: string[]) => items.map((item) => `${item}:read`), { deadlineMs: 1_000 });
    expect(await Promise.all([submit('a'), submit('b')])).toEqual(['a:read', 'b:read']);
  });

  it('refuses an answer without one result per item', async () => {
    const submit = grouped(async (items: string[]) => items.slice(1));
    await expect(submit('a')).rejects.toThrow('grouped call answered 0 results for 1 items');
  });
});
