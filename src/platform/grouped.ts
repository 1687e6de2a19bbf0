/**
 * One statement for many callers, as a database's group commit does: the first call runs at once;
 * calls that arrive while it is in flight wait for it and then run together, as one statement (one
 * round trip, and one commit for a write). A quiet process runs each call alone with no added
 * delay; a busy one makes one round trip for many requests.
 *
 * `run` gets the batch in arrival order and answers one result per item, in the same order. When
 * it fails, every item of that batch fails with its error (nothing of it was written: it is one
 * statement); the items queued after it run in the next batch.
 */
export function grouped<Item, Result>(run: (items: Item[]) => Promise<Result[]>, maxBatch = 500): (item: Item) => Promise<Result> {
  type Waiting = { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void };
  let queue: Waiting[] = [];
  let running = false;

  const flush = async (): Promise<void> => {
    running = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const results = await run(batch.map((waiting) => waiting.item));
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
