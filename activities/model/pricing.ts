// The cost of one model call in US dollars: what the provider reported when it reports one
// (OpenRouter, and any Chat Completions gateway that sends `usage.cost`), else an estimate from a
// small price table, else null: an unknown price is not zero.
//
// The table holds list prices per million tokens as published by OpenAI and Anthropic, checked on
// 2025-11-01. Input read from a prompt cache is priced at its cached rate (a tenth of the input price
// at Anthropic, a half to a tenth at OpenAI), input written to Anthropic's cache at 1.25× (its
// five-minute cache; OpenAI charges nothing to write). It is approximate: it ignores batch and priority
// tiers, long-context rates and the one-hour cache's higher write price, and prices change. It is used for `openai`,
// `anthropic` and `openrouter` (whose model ids name the vendor); never for `openai-compatible`,
// where a familiar model name says nothing about what that server charges. The operator's prices
// (MODEL_PRICES) go before the table, and UNPRICED_MODEL_PRICE, when set, prices every model left.
import type { ProviderMetadata } from 'ai';
import type { ModelRef } from '../../contract/bundle.ts';
import { isRecord } from '../../lib/workflow-safe/is-record.ts';
import { modelTableKey } from './model-key.ts';
import { operatorPrice, type ModelPrice } from '../../lib/model-prices.ts';
import type { PricingSettings } from '../../lib/config.ts';

export interface UsageForCost {
  /** All input tokens, those read from or written to a prompt cache included. */
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  /** Of the input: read from, and written to, the provider's prompt cache (AI SDK `inputTokenDetails`). */
  inputTokenDetails?: { cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined };
  /** The provider's usage object as sent (AI SDK `usage.raw`); OpenRouter puts `cost` here. */
  raw?: unknown;
}

export interface Price {
  inputPerMillion: number;
  outputPerMillion: number;
  /** Input read from the prompt cache. */
  cachedInputPerMillion: number;
  /** Input written to the prompt cache; the input price where writing costs nothing extra. */
  cacheWritePerMillion: number;
}

/** OpenAI: cached input at its own rate, writing at no extra cost. */
const openai = (input: number, cached: number, output: number): Price => ({
  inputPerMillion: input,
  outputPerMillion: output,
  cachedInputPerMillion: cached,
  cacheWritePerMillion: input,
});
/** Anthropic: a cache read at 0.1× the input price, a five-minute cache write at 1.25×. */
const anthropic = (input: number, output: number): Price => ({
  inputPerMillion: input,
  outputPerMillion: output,
  cachedInputPerMillion: input * 0.1,
  cacheWritePerMillion: input * 1.25,
});

export const PRICES_CHECKED_ON = '2025-11-01';

/** Keys are model ids without vendor prefix or date suffix, dots written as dashes. */
const PRICES: Record<string, Price> = {
  'gpt-5': openai(1.25, 0.125, 10),
  'gpt-5-mini': openai(0.25, 0.025, 2),
  'gpt-5-nano': openai(0.05, 0.005, 0.4),
  'gpt-4-1': openai(2, 0.5, 8),
  'gpt-4-1-mini': openai(0.4, 0.1, 1.6),
  'gpt-4-1-nano': openai(0.1, 0.025, 0.4),
  'gpt-4o': openai(2.5, 1.25, 10),
  'gpt-4o-mini': openai(0.15, 0.075, 0.6),
  o3: openai(2, 0.5, 8),
  'o4-mini': openai(1.1, 0.275, 4.4),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
};

const TABLE_PROVIDERS = new Set(['openai', 'anthropic', 'openrouter']);

/** Providers that report each call's cost (OpenRouter, asked with `usage.include`; providers.ts). */
const COST_REPORTING_PROVIDERS = new Set(['openrouter']);

export type Pricing = Pick<PricingSettings, 'modelPrices' | 'unpricedModelPrice'>;

/** The operator's price of the model, else the table's, else UNPRICED_MODEL_PRICE; undefined when none applies. */
export function priceOf(ref: ModelRef, pricing: Pricing): Price | undefined {
  return knownPrice(ref, pricing) ?? (pricing.unpricedModelPrice && fromSetting(pricing.unpricedModelPrice));
}

function knownPrice(ref: ModelRef, pricing: Pricing): Price | undefined {
  const set = operatorPrice(pricing.modelPrices, ref);
  if (set) return fromSetting(set);
  return TABLE_PROVIDERS.has(ref.providerId) ? PRICES[modelTableKey(ref.modelId)] : undefined;
}

/**
 * What a call is held at against a budget before it runs: its known price, else the price its provider
 * lists for it (OpenRouter's model list), else UNPRICED_MODEL_PRICE, else, for a provider that reports
 * each call's cost, the dearest price of the table (the call settles at what the provider reports);
 * undefined when nothing would say what the call cost.
 */
export function holdPriceOf(
  ref: ModelRef,
  pricing: Pricing,
  listed: { inputPerMillion: number; outputPerMillion: number } | undefined,
): Price | undefined {
  const listedPrice = listed && fromSetting({ ...listed, cachedInputPerMillion: listed.inputPerMillion });
  return (
    knownPrice(ref, pricing) ??
    listedPrice ??
    (pricing.unpricedModelPrice && fromSetting(pricing.unpricedModelPrice)) ??
    (COST_REPORTING_PROVIDERS.has(ref.providerId) ? DEAREST : undefined)
  );
}

/** The dearest input and output prices of the table. */
const DEAREST: Price = Object.values(PRICES).reduce((most, price) => ({
  inputPerMillion: Math.max(most.inputPerMillion, price.inputPerMillion),
  outputPerMillion: Math.max(most.outputPerMillion, price.outputPerMillion),
  cachedInputPerMillion: Math.max(most.cachedInputPerMillion, price.cachedInputPerMillion),
  cacheWritePerMillion: Math.max(most.cacheWritePerMillion, price.cacheWritePerMillion),
}));

/** An operator's price: writing to a cache costs what input costs. */
function fromSetting(price: ModelPrice): Price {
  return { ...price, cacheWritePerMillion: price.inputPerMillion };
}

/** US dollars for `tokens` at `perMillion`, without float noise. */
export function tokensUsd(tokens: number, perMillion: number): number {
  return round((tokens * perMillion) / 1_000_000);
}

export function costUsd(
  ref: ModelRef,
  usage: UsageForCost,
  providerMetadata: ProviderMetadata | undefined,
  pricing: Pricing,
): number | null {
  const reported = reportedCost(usage, providerMetadata);
  if (reported !== undefined) return reported;
  const price = priceOf(ref, pricing);
  if (price === undefined || usage.inputTokens === undefined || usage.outputTokens === undefined) return null;
  const read = usage.inputTokenDetails?.cacheReadTokens ?? 0;
  const written = usage.inputTokenDetails?.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - read - written);
  return round(
    (uncached * price.inputPerMillion +
      read * price.cachedInputPerMillion +
      written * price.cacheWritePerMillion +
      usage.outputTokens * price.outputPerMillion) /
      1_000_000,
  );
}

/** OpenRouter's provider metadata first (`openrouter.usage.cost`), then the raw usage's `cost`. */
function reportedCost(usage: UsageForCost, providerMetadata: ProviderMetadata | undefined): number | undefined {
  const openrouterUsage = providerMetadata?.openrouter?.usage;
  const candidates = [isRecord(openrouterUsage) ? openrouterUsage.cost : undefined, isRecord(usage.raw) ? usage.raw.cost : undefined];
  for (const value of candidates) {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  return undefined;
}

function round(value: number): number {
  // Float noise (0.000025000000000000002) would show in every total the API sums.
  return Math.round(value * 1e10) / 1e10;
}
