// Lists the API pages with a cursor (`next`, passed back as `before`). `list()` returns a PagedList:
// `await` it for the first page, or `for await` it for every item of every page, fetched as needed.
import type { RequestOptions } from './transport.ts';

export interface Page<Item> {
  items: Item[];
  /** The cursor of the following page; null on the last one. */
  next: string | null;
  hasNextPage(): boolean;
  getNextPage(): Promise<Page<Item>>;
}

/** Fetches one page after `cursor` (undefined: the first). */
export type PageFetcher<Item> = (cursor: string | undefined, options: RequestOptions) => Promise<{ items: Item[]; next: string | null }>;

export class PagedList<Item> implements PromiseLike<Page<Item>>, AsyncIterable<Item> {
  constructor(
    private readonly fetchPage: PageFetcher<Item>,
    private readonly options: RequestOptions,
    private readonly start?: string,
  ) {}

  private async page(cursor: string | undefined): Promise<Page<Item>> {
    const { items, next } = await this.fetchPage(cursor, this.options);
    return {
      items,
      next,
      hasNextPage: () => next !== null,
      getNextPage: () => {
        if (next === null) throw new Error('This is the last page');
        return this.page(next);
      },
    };
  }

  then<A = Page<Item>, B = never>(
    onFulfilled?: ((page: Page<Item>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.page(this.start).then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let cursor = this.start;
    for (;;) {
      const { items, next } = await this.fetchPage(cursor, this.options);
      yield* items;
      if (next === null || items.length === 0) return;
      cursor = next;
    }
  }

  /** Every item of every page, in one array. */
  async toArray(): Promise<Item[]> {
    const all: Item[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}
