// The context windows a provider lists for its models. OpenRouter's model list (`GET <base>/models`,
// no key needed) gives each model's `context_length`, including variants (`:free`, `:thinking`) and
// models no catalog here knows. The list is read from the operator's OpenRouter base URL (never a
// user's own), at most once per LIST_TTL_MS per worker, within a deadline and a size cap; a list that
// cannot be read is asked for again only after RETRY_AFTER_MS, and meanwhile the other sources serve.
// Only a worker's first step on the provider waits for the list; refreshes run in the background.
import { limitedFetch } from '../../lib/response-limits.ts';
import { isRecord } from '../../lib/is-record.ts';

const LIST_TTL_MS = 6 * 60 * 60_000;
const RETRY_AFTER_MS = 10 * 60_000;
const TIMEOUT_MS = 5_000;
/** OpenRouter's list is about half a megabyte. */
const MAX_LIST_BYTES = 8 * 1024 * 1024;

export class ListedWindows {
  private windows = new Map<string, number>();
  private readAt = -Infinity;
  private failedAt = -Infinity;
  private reading: Promise<void> | undefined;
  private readonly fetch: typeof globalThis.fetch;

  constructor(
    private readonly listUrl: string,
    fetch: typeof globalThis.fetch = globalThis.fetch,
    private readonly now: () => number = Date.now,
  ) {
    this.fetch = limitedFetch(fetch, {
      body: { maxBytes: MAX_LIST_BYTES, what: "The provider's model list" },
      errorBody: { maxBytes: 4096, what: "The provider's model list" },
    });
  }

  /**
   * The listed window of `modelId`. The first call waits for the list; later ones answer from the list
   * they have while a due refresh (or a retry after a failed read) runs in the background.
   */
  async of(modelId: string): Promise<number | undefined> {
    const now = this.now();
    if (now - this.readAt > LIST_TTL_MS && now - this.failedAt > RETRY_AFTER_MS) {
      this.reading ??= this.read().finally(() => (this.reading = undefined));
      if (this.readAt === -Infinity && this.failedAt === -Infinity) await this.reading;
    }
    return this.windows.get(modelId.replace(/^~/, ''));
  }

  private async read(): Promise<void> {
    try {
      const response = await this.fetch(this.listUrl, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body: unknown = await response.json();
      const listed = isRecord(body) && Array.isArray(body.data) ? body.data : [];
      const windows = new Map<string, number>();
      for (const model of listed) {
        if (
          isRecord(model) &&
          typeof model.id === 'string' &&
          Number.isInteger(model.context_length) &&
          (model.context_length as number) > 0
        ) {
          windows.set(model.id, model.context_length as number);
        }
      }
      this.windows = windows;
      this.readAt = this.now();
    } catch {
      this.failedAt = this.now();
    }
  }
}
