// What a provider lists of its models: their context windows and prices. OpenRouter's model list
// (`GET <base>/models`, no key needed) gives each model's `context_length` and `pricing` (USD per token),
// including variants (`:free`, `:thinking`) and models no catalog here knows: a budget holds a call of
// any of them at its listed price (activities/turn/budget-hold.ts). The list is read from the operator's OpenRouter base URL (never a
// user's own), at most once per LIST_TTL_MS per worker, within a deadline and a size cap; a list that
// cannot be read is asked for again only after RETRY_AFTER_MS, and meanwhile the other sources serve.
// Only a worker's first step on the provider waits for the list; refreshes run in the background.
import { limitedFetch } from '../../lib/response-limits.ts';
import { isRecord } from '../../lib/workflow-safe/is-record.ts';

const LIST_TTL_MS = 6 * 60 * 60_000;
const RETRY_AFTER_MS = 10 * 60_000;
const TIMEOUT_MS = 5_000;
/** OpenRouter's list is about half a megabyte. */
const MAX_LIST_BYTES = 8 * 1024 * 1024;

/** USD per million tokens, as listed. */
export interface ListedPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export class ListedModels {
  private windows = new Map<string, number>();
  private prices = new Map<string, ListedPrice>();
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
  async windowOf(modelId: string): Promise<number | undefined> {
    await this.listed();
    return this.windows.get(listedId(modelId));
  }

  /** The listed price of `modelId`, read as its window is. */
  async priceOf(modelId: string): Promise<ListedPrice | undefined> {
    await this.listed();
    return this.prices.get(listedId(modelId));
  }

  private async listed(): Promise<void> {
    const now = this.now();
    if (now - this.readAt > LIST_TTL_MS && now - this.failedAt > RETRY_AFTER_MS) {
      this.reading ??= this.read().finally(() => (this.reading = undefined));
      if (this.readAt === -Infinity && this.failedAt === -Infinity) await this.reading;
    }
  }

  private async read(): Promise<void> {
    try {
      const response = await this.fetch(this.listUrl, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body: unknown = await response.json();
      const listed = isRecord(body) && Array.isArray(body.data) ? body.data : [];
      const windows = new Map<string, number>();
      const prices = new Map<string, ListedPrice>();
      for (const model of listed) {
        if (!isRecord(model) || typeof model.id !== 'string') continue;
        if (Number.isInteger(model.context_length) && (model.context_length as number) > 0) {
          windows.set(model.id, model.context_length as number);
        }
        const price = listedPrice(model.pricing);
        if (price) prices.set(model.id, price);
      }
      this.windows = windows;
      this.prices = prices;
      this.readAt = this.now();
    } catch {
      this.failedAt = this.now();
    }
  }
}

const listedId = (modelId: string) => modelId.replace(/^~/, '');

/** `pricing.prompt` and `pricing.completion`, USD per token as decimal strings; undefined unless both read. */
function listedPrice(pricing: unknown): ListedPrice | undefined {
  if (!isRecord(pricing)) return undefined;
  const perToken = (value: unknown) => (typeof value === 'string' && /^\d+(\.\d+)?(e-?\d+)?$/i.test(value) ? Number(value) : undefined);
  const input = perToken(pricing.prompt);
  const output = perToken(pricing.completion);
  if (input === undefined || output === undefined) return undefined;
  // Per million, without float noise (0.000003 × 1e6 is not quite 3).
  const perMillion = (value: number) => Math.round(value * 1e12) / 1e6;
  return { inputPerMillion: perMillion(input), outputPerMillion: perMillion(output) };
}
