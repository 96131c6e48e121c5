// From an agent's model reference to an AI SDK language model. Keys and base URLs come from the
// user's granted secrets first, then the service's environment (docs/models.md); the providers'
// own habit of reading process.env is defeated by always passing both explicitly.
//
// openai uses the Chat Completions API, not Responses. Our loop is stateless: each step sends the
// whole history from PostgreSQL, and we store no reasoning items or response ids, which is where
// Responses has its edge. Chat Completions keeps nothing at OpenAI by default, works with any
// OpenAI-shaped gateway set as OPENAI_BASE_URL, and is what the fake model speaks, so the code
// the tests run is the code production runs. The cost: Responses-only models are not reachable.
//
// A base URL from a user's secret is an address a user chose, so the provider reaches it only
// through the outbound guard (lib/outbound.ts): private, loopback, link-local and metadata addresses
// are refused unless OUTBOUND_ALLOW_CIDRS lists them, literal IPs when the model is built and host
// names on the connection's own DNS lookup. A base URL from the environment is the operator's own
// choice and keeps the plain global fetch: a model server on loopback or the private network is a
// legitimate setup there, and the guard would only get in its way.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { isHttpUrl } from '../../lib/urls.ts';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import type { LanguageModel } from 'ai';
import { PROVIDER_IDS, type ProviderId } from '../../contract/bundle-constants.ts';
import type { Config } from '../../lib/config.ts';
import { createOutboundClient, OutboundAddressRefusedError, OutboundUrlError } from '../../lib/outbound.ts';
import { limitedFetch, type FetchLimits } from '../../lib/response-limits.ts';
import {
  InvalidBaseUrlError,
  MissingApiKeyError,
  MissingBaseUrlError,
  RefusedBaseUrlError,
  UnknownProviderError,
} from './config-errors.ts';
import type { ModelRef } from '../../contract/bundle.ts';

/** Environment variables, and the user's secrets of the same names (lib/config.ts reads the same). */
const VARIABLES: Record<ProviderId, { apiKey: string; baseUrl: string }> = {
  openrouter: { apiKey: 'OPENROUTER_API_KEY', baseUrl: 'OPENROUTER_BASE_URL' },
  openai: { apiKey: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL' },
  anthropic: { apiKey: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL' },
  'openai-compatible': { apiKey: 'OPENAI_COMPATIBLE_API_KEY', baseUrl: 'OPENAI_COMPATIBLE_BASE_URL' },
};

/** Where a provider is reached when neither a secret nor the environment says otherwise. */
export const DEFAULT_BASE_URLS: Record<ProviderId, string | undefined> = {
  openrouter: 'https://openrouter.ai/api/v1',
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  'openai-compatible': undefined,
};

export interface ProviderCredentials {
  apiKey?: string;
  /** Includes the version path (`.../v1`). Undefined means the provider's default. */
  baseUrl?: string;
  /**
   * The base URL came from the user's secret; then the key must come from their secrets too, and the
   * provider reaches it only through the outbound guard.
   */
  baseUrlFromSecret?: boolean;
  /** OUTBOUND_ALLOW_CIDRS, for a base URL from a secret. Absent means none: every refused range stays refused. */
  outboundAllowCidrs?: readonly string[];
}

export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

function variablesOf(providerId: string): { apiKey: string; baseUrl: string } {
  if (!isProviderId(providerId)) throw new UnknownProviderError(providerId, PROVIDER_IDS);
  return VARIABLES[providerId];
}

/** The secrets that may configure this provider, so the caller opens only those of the granted ones. */
export function credentialSecretNames(providerId: string): string[] {
  const names = variablesOf(providerId);
  return [names.apiKey, names.baseUrl];
}

/**
 * The key and base URL for a provider: the user's secret of the same name when present in `secrets`
 * (the caller passes only secrets the agent was granted), else the environment. A base URL from a
 * secret brings no key from the environment: the operator's key must never be sent to a URL that
 * a user picked.
 */
export function providerCredentials(
  providerId: string,
  secrets: ReadonlyMap<string, string>,
  config: Pick<Config, 'providers' | 'outbound'>,
): ProviderCredentials {
  const names = variablesOf(providerId);
  const env = config.providers[providerId as ProviderId];
  const secretKey = nonEmpty(secrets.get(names.apiKey));
  const secretBaseUrl = nonEmpty(secrets.get(names.baseUrl));
  if (secretBaseUrl !== undefined) {
    return { apiKey: secretKey, baseUrl: secretBaseUrl, baseUrlFromSecret: true, outboundAllowCidrs: config.outbound.allowCidrs };
  }
  return { apiKey: secretKey ?? env.apiKey, baseUrl: env.baseUrl };
}

/**
 * The AI SDK model for a reference. Model ids pass through unchanged (OpenRouter's
 * `anthropic/claude-sonnet-4` and `~anthropic/claude-sonnet-latest` included). Throws a
 * ModelConfigError when the provider is unknown or lacks what it needs, or when a base URL from a
 * secret is a refused address; a host name that resolves to one fails the call with a
 * RefusedBaseUrlError instead.
 */
export function languageModel(ref: ModelRef, credentials: ProviderCredentials, answerLimits: FetchLimits): LanguageModel {
  const names = variablesOf(ref.providerId);
  const providerId = ref.providerId as ProviderId;
  const baseURL = checkedBaseUrl(providerId, credentials, names.baseUrl) ?? DEFAULT_BASE_URLS[providerId];
  // The global fetch unless the base URL came from a secret; whoever chose the address, what its
  // answers may make the worker hold is limited (lib/response-limits.ts).
  const guarded = limitedFetch(
    credentials.baseUrlFromSecret
      ? guardedFetch(providerId, names.baseUrl, baseURL, credentials)
      : (input, init) => globalThis.fetch(input, init),
    answerLimits,
  );
  const apiKey = () => {
    if (credentials.apiKey) return credentials.apiKey;
    throw new MissingApiKeyError(providerId, names.apiKey, credentials.baseUrlFromSecret ? names.baseUrl : undefined);
  };
  switch (providerId) {
    case 'openrouter':
      // 'strict' asks for usage in the stream; usage.include makes OpenRouter report the cost too.
      return createOpenRouter({ apiKey: apiKey(), baseURL, fetch: guarded, compatibility: 'strict' }).chat(ref.modelId, {
        usage: { include: true },
      });
    case 'openai':
      return createOpenAI({ apiKey: apiKey(), baseURL, fetch: guarded }).chat(ref.modelId);
    case 'anthropic':
      return createAnthropic({ apiKey: apiKey(), baseURL, fetch: guarded }).languageModel(ref.modelId);
    case 'openai-compatible':
      // A local server often needs no key; without one, no Authorization header is sent.
      if (baseURL === undefined) throw new MissingBaseUrlError(providerId, names.baseUrl);
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        apiKey: credentials.apiKey || undefined,
        fetch: guarded,
        includeUsage: true,
      }).chatModel(ref.modelId);
  }
}

function checkedBaseUrl(providerId: ProviderId, credentials: ProviderCredentials, variable: string): string | undefined {
  const raw = credentials.baseUrl;
  if (raw === undefined) return undefined;
  if (!isHttpUrl(raw)) throw new InvalidBaseUrlError(providerId, variable);
  return raw;
}

/**
 * A fetch that reaches a user's base URL only through the outbound guard. The URL is checked here,
 * before any request, so a literal refused address fails while the model is built; a host name
 * that resolves to a refused address fails the call, as the same non-retryable RefusedBaseUrlError.
 */
function guardedFetch(
  providerId: ProviderId,
  variable: string,
  baseUrl: string | undefined,
  credentials: ProviderCredentials,
): typeof globalThis.fetch {
  const outbound = createOutboundClient({ allowCidrs: credentials.outboundAllowCidrs ?? [] });
  const refused = (error: unknown): unknown => {
    if (error instanceof OutboundAddressRefusedError) return new RefusedBaseUrlError(providerId, variable, { range: error.range });
    if (error instanceof OutboundUrlError) return new RefusedBaseUrlError(providerId, variable, { problem: error.message });
    return error;
  };
  if (baseUrl !== undefined) {
    try {
      outbound.checkUrl(baseUrl);
    } catch (error) {
      throw refused(error);
    }
  }
  return async (input, init) => {
    try {
      return await outbound.fetch(input, init);
    } catch (error) {
      throw refused(error);
    }
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
