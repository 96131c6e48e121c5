// Prices the operator sets for models (MODEL_PRICES) and the price charged for a model nobody priced
// (UNPRICED_MODEL_PRICE): a budget that must hold needs a price for every call it admits, and the
// service's own table (activities/model/pricing.ts) knows only the models of OpenAI and Anthropic.
// Parsed here, with the rest of the configuration; looked up by the pricing of a step.
import { ConfigError } from './config-error.ts';

/** US dollars per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
  /** Input read from the provider's prompt cache; the input price when not given. */
  cachedInputPerMillion: number;
}

const NUMBER = /^\d+(\.\d+)?$/;

/** `input/output[/cachedInput]`, US dollars per million tokens. */
export function parseModelPrice(raw: string, where: string): ModelPrice {
  const parts = raw.split('/').map((part) => part.trim());
  if (parts.length < 2 || parts.length > 3 || !parts.every((part) => NUMBER.test(part))) {
    throw new ConfigError(`${where} must be "input/output" or "input/output/cachedInput" in USD per million tokens, got "${raw}"`);
  }
  const [input, output, cached] = parts.map(Number) as [number, number, number | undefined];
  return { inputPerMillion: input, outputPerMillion: output, cachedInputPerMillion: cached ?? input };
}

/** The operator's price of a model: `providerId:modelId` first, then the bare `modelId`, as MODEL_CONTEXT_WINDOWS is read. */
export function operatorPrice(
  prices: Readonly<Record<string, ModelPrice>>,
  ref: { providerId: string; modelId: string },
): ModelPrice | undefined {
  return prices[`${ref.providerId}:${ref.modelId}`] ?? prices[ref.modelId];
}
