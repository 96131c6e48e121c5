// The cost of one model call in US dollars: what the provider reported when it reports one
// (OpenRouter, and any Chat Completions gateway that sends `usage.cost`), else an estimate from a
// small price table, else null: an unknown price is not zero.
//
// The table holds list prices per million tokens as published by OpenAI and Anthropic, checked on
// 2025-11-01. It is approximate: it ignores cached-input discounts, cache-write surcharges, batch
// and priority tiers and long-context rates, and prices change. It is used for `openai`,
// `anthropic` and `openrouter` (whose model ids name the vendor); never for `openai-compatible`,
// where a familiar model name says nothing about what that server charges.
import type { ProviderMetadata } from 'ai';
import type { ModelRef } from '../../contract/bundle.ts';
import { isRecord } from '../../lib/is-record.ts';

export interface UsageForCost {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  /** The provider's usage object as sent (AI SDK `usage.raw`); OpenRouter puts `cost` here. */
  raw?: unknown;
}

interface Price {
  inputPerMillion: number;
  outputPerMillion: number;
}

export const PRICES_CHECKED_ON = '2025-11-01';

/** Keys are model ids without vendor prefix or date suffix, dots written as dashes. */
const PRICES: Record<string, Price> = {
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4 },
  'gpt-4-1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4-1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4-1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'claude-opus-4-1': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-opus-4': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-sonnet-4': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-3-7-sonnet': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5 },
  'claude-3-5-haiku': { inputPerMillion: 0.8, outputPerMillion: 4 },
};

const TABLE_PROVIDERS = new Set(['openai', 'anthropic', 'openrouter']);

export function costUsd(ref: ModelRef, usage: UsageForCost, providerMetadata?: ProviderMetadata): number | null {
  const reported = reportedCost(usage, providerMetadata);
  if (reported !== undefined) return reported;
  if (!TABLE_PROVIDERS.has(ref.providerId)) return null;
  const price = PRICES[tableKey(ref.modelId)];
  if (price === undefined || usage.inputTokens === undefined || usage.outputTokens === undefined) return null;
  return round((usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000);
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

/**
 * `anthropic/claude-sonnet-4.5` and `claude-sonnet-4-5-20250929` both become `claude-sonnet-4-5`. Variants
 * such as OpenRouter's `:free` keep their suffix and so find no price.
 */
function tableKey(modelId: string): string {
  const name = modelId.replace(/^~/, '').split('/').pop() ?? modelId;
  return name
    .toLowerCase()
    .replace(/\./g, '-')
    .replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
}

function round(value: number): number {
  // Float noise (0.000025000000000000002) would show in every total the API sums.
  return Math.round(value * 1e10) / 1e10;
}
