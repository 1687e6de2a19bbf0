/**
 * One statement for many callers, as a database's group commit does: the first call runs at once;
 * calls that arrive while it is in flight wait for it and then run together, as one statement (one
 * round trip, and one commit for a write). A quiet process runs each call alone with no added
 * delay; a busy one makes one round trip for many requests.
 *
 * `run` gets the batch in arrival order and answers one result per item, in the same order. When
 * it fails, every item of that batch fails with its error (nothing of it was written: it is one
 * statement); the items queued after it run in the next batch.
 *
 * With `deadlineMs` (for reads only: a write's outcome would be unknown), a batch that has not
 * answered by then fails its items with OverdueError and the next batch runs: one statement stuck
 * on a connection that died without a word holds up the others that long, not for good.
 */
export function grouped<Item, Result>(
  run: (items: Item[]) => Promise<Result[]>,
  { maxBatch = 500, deadlineMs }: { maxBatch?: number; deadlineMs?: number } = {},
): (item: Item) => Promise<Result> {
  type Waiting = { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void };
  let queue: Waiting[] = [];
  let running = false;

  const flush = async (): Promise<void> => {
    running = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const answer = run(batch.map((waiting) => waiting.item));
        const results = await (deadlineMs === undefined ? answer : withinDeadline(answer, deadlineMs));
        if (results.length !== batch.length) throw new Error(`grouped call answered ${results.length} results for ${batch.length} items`);
        results.forEach((result, index) => batch[index]?.resolve(result));
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    running = false;
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void flush();
    });
}

/**
 * A grouped call whose batch did not answer within its deadline. It carries ETIMEDOUT, a socket's
 * timeout: the database did not answer in time, so the request is answered as for a database that
 * is unavailable (503, retryable), never 500.
 */
export class OverdueError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(deadlineMs: number) {
    super(`the database did not answer within ${deadlineMs} ms`);
  }
}

function withinDeadline<T>(work: Promise<T>, deadlineMs: number): Promise<T> {
  // Answered after its deadline, the work's outcome is nobody's: only its failure is caught here.
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new OverdueError(deadlineMs)), deadlineMs);
  });
  return Promise.race([work, overdue]).finally(() => clearTimeout(timer));
}
