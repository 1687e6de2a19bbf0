/** A JSON call to the gateway for the bench's setup and checks (not the measured load: that is autocannon). */
export async function callJson<T = unknown>(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(baseUrl + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the caller names the body's shape; the bench's own checks fail loudly when it is not
  return { status: response.status, body: body as T };
}

/** Like callJson, but anything other than `expected` is an error naming the call. */
export async function expectJson<T = unknown>(
  expected: number,
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<T> {
  const reply = await callJson<T>(baseUrl, method, path, options);
  if (reply.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** Runs `work` over `items` with at most `concurrency` in flight; results in input order. */
export async function mapConcurrently<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- index < items.length: the item exists
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}
