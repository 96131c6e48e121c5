// Providers, credentials, error classification and cost, driven through the real AI SDK providers
// against the fake Chat Completions server: what these tests see is what a turn's model step sees.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { streamText, type LanguageModel, type LanguageModelUsage, type ProviderMetadata } from 'ai';
import { startFakeModel, type FakeModel, type FakeScript } from '../helpers/fakes/fake-model.ts';
import { loadConfig } from '../../lib/config.ts';
import { PROVIDER_IDS } from '../../contract/bundle-constants.ts';
import { credentialSecretNames, languageModel, providerCredentials, type ProviderCredentials } from '../../activities/model/providers.ts';
import {
  InvalidBaseUrlError,
  MissingApiKeyError,
  MissingBaseUrlError,
  ModelConfigError,
  RefusedBaseUrlError,
  UnknownProviderError,
} from '../../activities/model/config-errors.ts';
import { classifyModelError, MAX_RETRY_AFTER_MS, retryAfter } from '../../activities/model/errors.ts';
import { costUsd, type Pricing } from '../../activities/model/pricing.ts';
import { parseModelPrice } from '../../lib/model-prices.ts';
import { modelAnswerLimits } from '../../activities/model/answer-limits.ts';

const KEY = 'sk-test-0123456789abcdef';
const LIMITS = modelAnswerLimits(loadConfig({}).limits);
let fake: FakeModel;

beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

interface StreamOutcome {
  text: string;
  usage?: LanguageModelUsage;
  providerMetadata?: ProviderMetadata;
  errors: unknown[];
}

async function run(model: LanguageModel, abortSignal?: AbortSignal): Promise<StreamOutcome> {
  // onError set so the SDK does not also log the error; the stream's error part is what we read.
  const result = streamText({ model, prompt: 'Say hello', maxRetries: 0, abortSignal, onError: () => {} });
  const outcome: StreamOutcome = { text: '', errors: [] };
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') outcome.text += part.text;
    if (part.type === 'finish-step') Object.assign(outcome, { usage: part.usage, providerMetadata: part.providerMetadata });
    if (part.type === 'error') outcome.errors.push(part.error);
  }
  return outcome;
}

function at(providerId: string, modelId: string, credentials: ProviderCredentials = { apiKey: KEY, baseUrl: fake.baseUrl }) {
  return languageModel({ providerId, modelId }, credentials, LIMITS);
}

async function freePortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

describe('languageModel against the fake', () => {
  it.each([
    ['openai-compatible', 'fake-model-large'],
    ['openrouter', '~anthropic/claude-sonnet-latest'],
    ['openrouter', 'anthropic/claude-sonnet-4'],
    ['openai', 'gpt-4o'],
  ])('%s streams text and usage, with model id %s unchanged', async (providerId, modelId) => {
    fake.enqueue({ text: 'Hello there, friend', usage: { promptTokens: 12, completionTokens: 4 } });
    const outcome = await run(at(providerId, modelId));
    expect(outcome.errors).toEqual([]);
    expect(outcome.text).toBe('Hello there, friend');
    expect(outcome.usage).toMatchObject({ inputTokens: 12, outputTokens: 4 });
    const request = fake.requests[0]!;
    expect(request.body.model).toBe(modelId);
    expect(request.body.stream_options).toEqual({ include_usage: true });
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('openai-compatible works without a key and then sends no Authorization header', async () => {
    const outcome = await run(at('openai-compatible', 'fake-model', { baseUrl: fake.baseUrl }));
    expect(outcome.text).toBe('ok');
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('builds an anthropic model without calling it', () => {
    const model = at('anthropic', 'claude-sonnet-4-5', { apiKey: KEY });
    expect(model).toMatchObject({ modelId: 'claude-sonnet-4-5', provider: 'anthropic.messages' });
  });
});

describe('credentials', () => {
  const config = loadConfig({
    OPENAI_API_KEY: 'env-openai-key',
    OPENAI_BASE_URL: 'https://gateway.example/v1',
    OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:11434/v1',
  });

  it('are read from the environment by lib/config.ts under the names users give their secrets', () => {
    for (const providerId of PROVIDER_IDS) {
      const [keyName, urlName] = credentialSecretNames(providerId);
      const env = { [keyName!]: `key-of-${providerId}`, [urlName!]: `https://${providerId}.example/v1` };
      expect(loadConfig(env).providers[providerId]).toEqual({
        apiKey: `key-of-${providerId}`,
        baseUrl: `https://${providerId}.example/v1`,
      });
    }
    expect(credentialSecretNames('openai-compatible')).toEqual(['OPENAI_COMPATIBLE_API_KEY', 'OPENAI_COMPATIBLE_BASE_URL']);
    expect(() => loadConfig({ OPENAI_BASE_URL: 'not a url' })).toThrow(/OPENAI_BASE_URL must be an http\(s\) URL/);
  });

  it('come from the environment when no secret is granted', () => {
    expect(providerCredentials('openai', new Map(), config)).toEqual({ apiKey: 'env-openai-key', baseUrl: 'https://gateway.example/v1' });
    expect(providerCredentials('anthropic', new Map(), config)).toEqual({ apiKey: undefined, baseUrl: undefined });
  });

  it("take the user's secret over the environment", () => {
    const secrets = new Map([['OPENAI_API_KEY', 'user-key']]);
    expect(providerCredentials('openai', secrets, config)).toEqual({ apiKey: 'user-key', baseUrl: 'https://gateway.example/v1' });
  });

  it("never pair the environment's key with a base URL from a secret", () => {
    const secrets = new Map([['OPENAI_BASE_URL', 'https://mine.example/v1']]);
    const credentials = providerCredentials('openai', secrets, config);
    expect(credentials).toEqual({ apiKey: undefined, baseUrl: 'https://mine.example/v1', baseUrlFromSecret: true, outboundAllowCidrs: [] });
    expect(() => languageModel({ providerId: 'openai', modelId: 'gpt-4o' }, credentials, LIMITS)).toThrow(
      /no API key for the base URL in your secret OPENAI_BASE_URL.*store a secret named OPENAI_API_KEY/,
    );
  });

  it('from secrets reach the provider (key and base URL)', async () => {
    const secrets = new Map([
      ['OPENAI_COMPATIBLE_API_KEY', 'user-compatible-key'],
      ['OPENAI_COMPATIBLE_BASE_URL', fake.baseUrl],
    ]);
    // The fake is on loopback, which a base URL from a secret may reach only when allowed.
    const allowing = loadConfig({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    const outcome = await run(at('openai-compatible', 'fake-model', providerCredentials('openai-compatible', secrets, allowing)));
    expect(outcome.text).toBe('ok');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer user-compatible-key');
  });
});

describe('a base URL from a secret goes through the outbound guard', () => {
  const guarding = loadConfig({});
  const allowing = loadConfig({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

  function fromSecret(providerId: string, baseUrl: string, config = guarding): ProviderCredentials {
    const [keyName, urlName] = credentialSecretNames(providerId);
    return providerCredentials(
      providerId,
      new Map([
        [keyName!, KEY],
        [urlName!, baseUrl],
      ]),
      config,
    );
  }

  it.each([
    ['openai-compatible', 'fake-model'],
    ['openai', 'gpt-4o'],
    ['openrouter', 'openai/gpt-4o'],
    ['anthropic', 'claude-sonnet-4'],
  ])('%s: a loopback address is refused before any request, unless OUTBOUND_ALLOW_CIDRS lists it', async (providerId, modelId) => {
    const error = catchError(() => at(providerId, modelId, fromSecret(providerId, fake.baseUrl)));
    expect(error).toBeInstanceOf(RefusedBaseUrlError);
    const [, urlName] = credentialSecretNames(providerId);
    expect(error.message).toBe(
      `The ${providerId} provider's base URL in your secret ${urlName} points at a refused address (loopback). The service ` +
        `does not send requests to private, loopback, link-local or metadata addresses on a user's behalf unless its ` +
        `operator allows them (OUTBOUND_ALLOW_CIDRS).`,
    );
    expect(error.message).not.toContain(String(fake.port));
    expect(classifyModelError(error)).toEqual({ retryable: false, message: error.message });
    expect(fake.requests).toHaveLength(0);

    // Allowed, the same secret reaches the fake (anthropic speaks another API: built, not called).
    const model = at(providerId, modelId, fromSecret(providerId, fake.baseUrl, allowing));
    if (providerId === 'anthropic') return;
    fake.enqueue({ text: 'through the guard', usage: { promptTokens: 3, completionTokens: 3 } });
    const outcome = await run(model);
    expect(outcome.errors).toEqual([]);
    expect(outcome.text).toBe('through the guard');
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it.each(['http://169.254.169.254/v1', 'http://[::1]:8080/v1', 'http://10.0.0.1/v1', 'http://192.168.1.10/v1'])(
    'refuses %s (allowing loopback IPv4 allows nothing else)',
    (baseUrl) => {
      expect(catchError(() => at('openai', 'gpt-4o', fromSecret('openai', baseUrl, allowing)))).toBeInstanceOf(RefusedBaseUrlError);
    },
  );

  it('refuses loopback in any spelling', () => {
    for (const baseUrl of ['http://2130706433/v1', 'http://0x7f.1/v1', 'http://127.1:8080/v1', 'http://[::ffff:127.0.0.1]/v1']) {
      expect(
        catchError(() => at('openai', 'gpt-4o', fromSecret('openai', baseUrl))),
        baseUrl,
      ).toBeInstanceOf(RefusedBaseUrlError);
    }
  });

  it('refuses a base URL carrying a user name or password, without echoing it', () => {
    const error = catchError(() => at('openai', 'gpt-4o', fromSecret('openai', 'https://me:hunter2@gateway.example/v1')));
    expect(error).toBeInstanceOf(RefusedBaseUrlError);
    expect(error.message).toBe(
      "The openai provider's base URL in your secret OPENAI_BASE_URL was refused: it must not carry a user name or password.",
    );
  });

  it('refuses a host name that resolves to loopback, on the connection, without reaching the server', async () => {
    const model = at('openai-compatible', 'fake-model', fromSecret('openai-compatible', `http://localhost:${fake.port}/v1`));
    const outcome = await run(model);
    expect(outcome.errors).toHaveLength(1);
    const error = outcome.errors[0];
    expect(error).toBeInstanceOf(RefusedBaseUrlError);
    expect((error as Error).message).toMatch(
      /^The openai-compatible provider's base URL in your secret OPENAI_COMPATIBLE_BASE_URL points at a refused address \((loopback|IPv4-mapped IPv6)\)/,
    );
    // The turn fails at once with that message: not a network error to retry.
    expect(classifyModelError(error, { providerId: 'openai-compatible' })).toEqual({ retryable: false, message: (error as Error).message });
    expect(fake.requests).toHaveLength(0);
  });

  it('lets a host name through when every address it resolves to is allowed', async () => {
    const config = loadConfig({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8,::1/128' });
    const outcome = await run(
      at('openai-compatible', 'fake-model', fromSecret('openai-compatible', `http://localhost:${fake.port}/v1`, config)),
    );
    expect(outcome.errors).toEqual([]);
    expect(outcome.text).toBe('ok');
  });

  it('streams through the guarded fetch, and an abort closes its connection', async () => {
    const model = at('openai-compatible', 'fake-model', fromSecret('openai-compatible', fake.baseUrl, allowing));
    fake.enqueue({ text: ['one ', 'two ', 'three'], chunkDelayMs: 20 });
    expect((await run(model)).text).toBe('one two three');

    fake.enqueue({ text: ['first ', 'never'], stallAfterChunks: 1 });
    const controller = new AbortController();
    const outcome = run(model, controller.signal);
    await fake.waitForRequests(2);
    controller.abort();
    await outcome;
    await fake.waitForDisconnects(1);
    expect(fake.requests[1]!.aborted).toBe(true);
  });

  it("leaves the environment's base URL alone: the operator may run a model server on loopback", async () => {
    const config = loadConfig({ OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl });
    const credentials = providerCredentials('openai-compatible', new Map(), config);
    expect(credentials).toEqual({ apiKey: undefined, baseUrl: fake.baseUrl });
    const outcome = await run(at('openai-compatible', 'fake-model', credentials));
    expect(outcome.errors).toEqual([]);
    expect(outcome.text).toBe('ok');
  });
});

describe('configuration errors', () => {
  it('name the variable and the secret to set for a missing key', () => {
    const error = catchError(() => at('anthropic', 'claude-sonnet-4', {}));
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect(error.message).toBe(
      "The anthropic provider has no API key: set ANTHROPIC_API_KEY in the service's environment, or store a secret named ANTHROPIC_API_KEY and grant it to the agent (secretGrants).",
    );
    expect(catchError(() => at('openrouter', 'openai/gpt-4o', {}))).toBeInstanceOf(MissingApiKeyError);
    expect(catchError(() => at('openai', 'gpt-4o', { apiKey: '' }))).toBeInstanceOf(MissingApiKeyError);
  });

  it('ask for a base URL for openai-compatible', () => {
    const error = catchError(() => at('openai-compatible', 'llama3', { apiKey: KEY }));
    expect(error).toBeInstanceOf(MissingBaseUrlError);
    expect(error.message).toMatch(/set OPENAI_COMPATIBLE_BASE_URL .* or store a secret named OPENAI_COMPATIBLE_BASE_URL/);
  });

  it('refuse a base URL that is not http(s), without echoing it', () => {
    const error = catchError(() => at('openai', 'gpt-4o', { apiKey: KEY, baseUrl: 'file:///etc/passwd' }));
    expect(error).toBeInstanceOf(InvalidBaseUrlError);
    expect(error.message).not.toContain('passwd');
  });

  it('refuse an unknown provider', () => {
    const error = catchError(() => at('mistral', 'large', {}));
    expect(error).toBeInstanceOf(UnknownProviderError);
    expect(error.message).toBe('Unknown model provider "mistral"; known providers: openrouter, openai, anthropic, openai-compatible.');
    expect(() => credentialSecretNames('mistral')).toThrow(UnknownProviderError);
    expect(classifyModelError(error)).toEqual({ retryable: false, message: error.message });
  });
});

describe('classifyModelError on errors from real calls', () => {
  async function failure(script: FakeScript, providerId = 'openai'): Promise<unknown> {
    fake.enqueue(script);
    const outcome = await run(at(providerId, providerId === 'openai' ? 'gpt-4o' : 'fake-model'));
    expect(outcome.errors).toHaveLength(1);
    return outcome.errors[0];
  }

  it('401: the key was rejected, not retryable, and the key never shows', async () => {
    const error = await failure({
      status: 401,
      errorBody: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' } },
    });
    const result = classifyModelError(error, { providerId: 'openai', secrets: [KEY] });
    expect(result).toEqual({
      retryable: false,
      message: 'The openai provider rejected the API key (401): Incorrect API key provided: [redacted]',
    });
    // Even without being told the key, key-shaped strings are masked.
    expect(classifyModelError(error, { providerId: 'openai' }).message).not.toContain(KEY);
  });

  it('400: the request was rejected, not retryable', async () => {
    const error = await failure({
      status: 400,
      errorBody: { error: { message: 'Unsupported parameter: tools', type: 'invalid_request_error' } },
    });
    expect(classifyModelError(error)).toEqual({
      retryable: false,
      message: 'The model provider rejected the request (400): Unsupported parameter: tools',
    });
  });

  it('429 and 500 are retryable', async () => {
    const limited = classifyModelError(await failure({ status: 429, headers: { 'retry-after': '2' } }), { providerId: 'openai' });
    expect(limited).toEqual({
      retryable: true,
      message: 'The openai provider is rate limiting requests (429): Fake error 429',
      retryAfterMs: 2000,
    });
    const broken = classifyModelError(await failure({ status: 500 }, 'openai-compatible'), { providerId: 'openai-compatible' });
    expect(broken).toEqual({ retryable: true, message: 'The openai-compatible provider failed to answer (500): Fake error 500' });
  });

  it('retry-after: seconds, an HTTP date or retry-after-ms, within five minutes; nothing when it is unreadable', () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    expect(retryAfter({ 'retry-after': '7' }, now)).toEqual({ retryAfterMs: 7000 });
    expect(retryAfter({ 'retry-after': '0.5' }, now)).toEqual({ retryAfterMs: 500 });
    expect(retryAfter({ 'retry-after': 'Sat, 28 Nov 2026 10:00:30 GMT' }, now)).toEqual({ retryAfterMs: 30_000 });
    expect(retryAfter({ 'retry-after': 'Sat, 28 Nov 2026 09:00:00 GMT' }, now)).toEqual({ retryAfterMs: 0 });
    expect(retryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toEqual({ retryAfterMs: 250 });
    expect(retryAfter({ 'retry-after': '86400' }, now)).toEqual({ retryAfterMs: MAX_RETRY_AFTER_MS });
    expect(retryAfter({ 'retry-after': 'soon' }, now)).toEqual({});
    expect(retryAfter({}, now)).toEqual({});
    expect(retryAfter(undefined, now)).toEqual({});
  });

  it('a plain-text error body is shown as sent', async () => {
    const error = await failure({ status: 404, errorBody: 'model "nope" not found' }, 'openai-compatible');
    expect(classifyModelError(error)).toEqual({
      retryable: false,
      message: 'The model provider rejected the request (404): model "nope" not found',
    });
  });

  it('a refused connection is retryable', async () => {
    const outcome = await run(at('openai-compatible', 'fake-model', { baseUrl: await freePortUrl() }));
    expect(outcome.errors).toHaveLength(1);
    const result = classifyModelError(outcome.errors[0], { providerId: 'openai-compatible' });
    expect(result.retryable).toBe(true);
    expect(result.message).toMatch(/^Could not reach the openai-compatible provider: /);
  });

  it('aborts are not retried; timeouts and stream error events are judged by kind', () => {
    expect(classifyModelError(new DOMException('This operation was aborted', 'AbortError'))).toEqual({
      retryable: false,
      message: 'The model call was aborted.',
    });
    expect(classifyModelError(new DOMException('timed out', 'TimeoutError')).retryable).toBe(true);
    expect(classifyModelError({ type: 'overloaded_error', message: 'Overloaded' })).toEqual({
      retryable: true,
      message: 'The model provider reported an error: Overloaded',
    });
    expect(classifyModelError({ error: { code: 400, message: 'context too long' } }).retryable).toBe(false);
    expect(classifyModelError(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } })).retryable).toBe(true);
  });
});

describe('costUsd', () => {
  const NO_PRICES: Pricing = { modelPrices: {}, unpricedModelPrice: undefined };

  it("takes OpenRouter's reported cost, through the real provider", async () => {
    fake.enqueue({ text: 'priced', usage: { promptTokens: 1000, completionTokens: 100, cost: 0.00123 } });
    const outcome = await run(at('openrouter', 'anthropic/claude-sonnet-4'));
    expect(outcome.providerMetadata?.openrouter?.usage).toMatchObject({ cost: 0.00123 });
    expect(fake.requests[0]!.body.usage).toEqual({ include: true });
    expect(
      costUsd({ providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4' }, outcome.usage!, outcome.providerMetadata, NO_PRICES),
    ).toBe(0.00123);
  });

  it('takes a gateway-reported usage.cost through openai-compatible (raw usage)', async () => {
    fake.enqueue({ text: 'priced', usage: { promptTokens: 10, completionTokens: 2, cost: 0.5 } });
    const outcome = await run(at('openai-compatible', 'fake-model'));
    expect(costUsd({ providerId: 'openai-compatible', modelId: 'fake-model' }, outcome.usage!, outcome.providerMetadata, NO_PRICES)).toBe(
      0.5,
    );
  });

  it('falls back to the price table, then to null', async () => {
    fake.enqueue({ text: 'unpriced', usage: { promptTokens: 1_000_000, completionTokens: 100_000 } });
    const outcome = await run(at('openai', 'gpt-4o-2024-08-06'));
    // gpt-4o: $2.50 in, $10 out per million tokens.
    expect(costUsd({ providerId: 'openai', modelId: 'gpt-4o-2024-08-06' }, outcome.usage!, outcome.providerMetadata, NO_PRICES)).toBe(3.5);

    const usage = { inputTokens: 2000, outputTokens: 1000 };
    expect(costUsd({ providerId: 'anthropic', modelId: 'claude-sonnet-4-20250514' }, usage, undefined, NO_PRICES)).toBe(0.021);
    expect(costUsd({ providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4.5' }, usage, undefined, NO_PRICES)).toBe(0.021);
    expect(costUsd({ providerId: 'openrouter', modelId: '~anthropic/claude-sonnet-latest' }, usage, undefined, NO_PRICES)).toBeNull();
    expect(costUsd({ providerId: 'openai-compatible', modelId: 'gpt-4o' }, usage, undefined, NO_PRICES)).toBeNull();
    expect(
      costUsd({ providerId: 'openai', modelId: 'gpt-4o' }, { inputTokens: undefined, outputTokens: 5 }, undefined, NO_PRICES),
    ).toBeNull();
  });

  it("takes the operator's price over the table's, and UNPRICED_MODEL_PRICE for a model nothing else prices", () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 100_000 };
    const pricing: Pricing = {
      modelPrices: { 'openai-compatible:llama-3': parseModelPrice('0.6/0.8', 'test'), 'gpt-4o': parseModelPrice('1/2', 'test') },
      unpricedModelPrice: parseModelPrice('20/80', 'test'),
    };
    expect(costUsd({ providerId: 'openai-compatible', modelId: 'llama-3' }, usage, undefined, pricing)).toBe(0.68);
    // The bare model id names it for every provider; the operator's price goes before the table's.
    expect(costUsd({ providerId: 'openai', modelId: 'gpt-4o' }, usage, undefined, pricing)).toBe(1.2);
    // Nothing else prices it: the ceiling.
    expect(costUsd({ providerId: 'openai', modelId: 'gpt-4-turbo' }, usage, undefined, pricing)).toBe(28);
    expect(costUsd({ providerId: 'openai', modelId: 'gpt-4-turbo' }, usage, undefined, NO_PRICES)).toBeNull();
    // A provider's reported cost goes before every price.
    expect(costUsd({ providerId: 'openai-compatible', modelId: 'llama-3' }, { ...usage, raw: { cost: 0.01 } }, undefined, pricing)).toBe(
      0.01,
    );
  });

  it('prices input read from and written to the prompt cache at their own rates', () => {
    // claude-sonnet-4: $3 in, $15 out; a cache read at $0.30, a cache write at $3.75 per million.
    const cached = { inputTokens: 10_000, outputTokens: 100, inputTokenDetails: { cacheReadTokens: 8000, cacheWriteTokens: 1000 } };
    expect(costUsd({ providerId: 'anthropic', modelId: 'claude-sonnet-4' }, cached, undefined, NO_PRICES)).toBe(0.01065);
    expect(
      costUsd({ providerId: 'anthropic', modelId: 'claude-sonnet-4' }, { inputTokens: 10_000, outputTokens: 100 }, undefined, NO_PRICES),
    ).toBe(0.0315);
    // gpt-4o: cached input at $1.25 of $2.50; writing costs nothing extra.
    const read = { inputTokens: 10_000, outputTokens: 0, inputTokenDetails: { cacheReadTokens: 6000, cacheWriteTokens: 4000 } };
    expect(costUsd({ providerId: 'openai', modelId: 'gpt-4o' }, read, undefined, NO_PRICES)).toBe(0.0175);
  });
});

function catchError(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelConfigError);
    return error as Error;
  }
  throw new Error('expected an error');
}
