/** The page size the iterators ask for when the caller gives no `limit`: the gateway's maximum. */
const ITERATOR_PAGE_SIZE = 100;

/** Fetches the page after `startingAfter` (the first page when undefined), `limit` rows at most. */
export type PageFetcher<Page> = (startingAfter: string | undefined, limit: number | undefined) => Promise<Page>;

/** How to read a page: its rows, and the cursor of a row (the id `startingAfter` takes). */
export type PageShape<Item, Page> = { items: (page: Page) => readonly Item[]; cursor: (item: Item) => string };

/**
 * The rows a filter selects, in the list's order (DESIGN.md §15's cursor). Iterate it to walk
 * every row across pages (`for await (const tx of list)`): each page is fetched when the previous
 * one is used up, following the cursor (`startingAfter` = the last row's id while `hasMore`), so a
 * loop that stops early fetches nothing more. `page()` fetches one page; `pages()` iterates pages.
 */
export class CursorList<Item, Page extends { hasMore: boolean }> implements AsyncIterable<Item> {
  readonly #fetchPage: PageFetcher<Page>;
  readonly #shape: PageShape<Item, Page>;
  readonly #startingAfter: string | undefined;
  readonly #limit: number | undefined;

  constructor(fetchPage: PageFetcher<Page>, shape: PageShape<Item, Page>, startingAfter: string | undefined, limit: number | undefined) {
    this.#fetchPage = fetchPage;
    this.#shape = shape;
    this.#startingAfter = startingAfter;
    this.#limit = limit;
  }

  /** One page of `limit` rows (the gateway's default without one), after `startingAfter` when given. */
  page(): Promise<Page> {
    return this.#fetchPage(this.#startingAfter, this.#limit);
  }

  /** Every page in turn, of `limit` rows each (100 without one). */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    let cursor = this.#startingAfter;
    for (;;) {
      const page = await this.#fetchPage(cursor, this.#limit ?? ITERATOR_PAGE_SIZE);
      yield page;
      const last = this.#shape.items(page).at(-1);
      if (!page.hasMore || last === undefined) return;
      cursor = this.#shape.cursor(last);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.#shape.items(page);
  }
}
