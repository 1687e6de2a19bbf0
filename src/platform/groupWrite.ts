/**
 * One write for many callers, as a database's group commit does: the first item is written at
 * once; items that arrive while that write is in flight wait for it and are then written together,
 * in one statement and one commit. A quiet process writes each item alone with no added delay; a
 * busy one makes one round trip for many requests.
 *
 * `write` gets the batch in arrival order and answers one result per item, in the same order. When
 * it fails, every item of that batch fails with its error (nothing of it was written: it is one
 * statement); the items queued after it are written in the next batch.
 */
export function groupWrite<Item, Result>(write: (items: Item[]) => Promise<Result[]>, maxBatch = 500): (item: Item) => Promise<Result> {
  type Waiting = { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void };
  let queue: Waiting[] = [];
  let writing = false;

  const flush = async (): Promise<void> => {
    writing = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const results = await write(batch.map((waiting) => waiting.item));
        if (results.length !== batch.length) throw new Error(`group write answered ${results.length} results for ${batch.length} items`);
        results.forEach((result, index) => batch[index]?.resolve(result));
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    writing = false;
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!writing) void flush();
    });
}
