// A model's context window: the operator's setting, else what a provider's error said (for calls with
// the same credentials only, and below the published window only once a second error agrees), else the
// catalog (not for openai-compatible, whose model names promise nothing), else the default.
import { describe, expect, it } from 'vitest';
import { ContextWindows } from '../../activities/model/context-windows.ts';
import { OPERATOR_CREDENTIALS } from '../../activities/model/credential-scope.ts';
import { modelTableKey } from '../../activities/model/model-key.ts';

// The default differs from every catalog entry, so a fallback to it cannot pass for a catalog match.
const DEFAULT = 32_000;

describe('ContextWindows', () => {
  it('takes a `providerId:modelId` setting over a bare `modelId` one', async () => {
    const windows = new ContextWindows({ overrides: { 'openai:gpt-4o': 64_000, 'gpt-4o': 100_000 }, defaultTokens: DEFAULT });
    expect(await windows.of({ providerId: 'openai', modelId: 'gpt-4o' })).toEqual({ tokens: 64_000, source: 'setting' });
    expect(await windows.of({ providerId: 'openai-compatible', modelId: 'gpt-4o' })).toEqual({ tokens: 100_000, source: 'setting' });
    // A setting names the id exactly: a dated id is not `gpt-4o`, so the catalog answers.
    expect(await windows.of({ providerId: 'openai', modelId: 'gpt-4o-2024-08-06' })).toEqual({ tokens: 128_000, source: 'catalog' });
  });

  it('finds vendor-prefixed, dotted and dated ids in the catalog', async () => {
    const windows = new ContextWindows({ overrides: {}, defaultTokens: DEFAULT });
    expect(await windows.of({ providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4.5' })).toEqual({
      tokens: 200_000,
      source: 'catalog',
    });
    expect(await windows.of({ providerId: 'anthropic', modelId: 'claude-sonnet-4-5-20250929' })).toEqual({
      tokens: 200_000,
      source: 'catalog',
    });
    expect(await windows.of({ providerId: 'anthropic', modelId: 'claude-3-5-haiku-latest' })).toEqual({
      tokens: 200_000,
      source: 'catalog',
    });
    expect(await windows.of({ providerId: 'openai', modelId: 'gpt-4.1' })).toEqual({ tokens: 1_047_576, source: 'catalog' });
    expect(await windows.of({ providerId: 'openrouter', modelId: 'openai/gpt-5-mini' })).toEqual({ tokens: 272_000, source: 'catalog' });
    expect(await windows.of({ providerId: 'openai', modelId: 'o3' })).toEqual({ tokens: 200_000, source: 'catalog' });
    // A variant keeps its suffix and matches nothing; an unknown model gets the default.
    expect(await windows.of({ providerId: 'openrouter', modelId: 'openai/gpt-4o:free' })).toEqual({ tokens: DEFAULT, source: 'default' });
    expect(await windows.of({ providerId: 'openrouter', modelId: 'meta-llama/llama-3.3-70b-instruct' })).toEqual({
      tokens: DEFAULT,
      source: 'default',
    });
  });

  it('does not use the catalog for openai-compatible', async () => {
    const windows = new ContextWindows({ overrides: {}, defaultTokens: DEFAULT });
    expect(await windows.of({ providerId: 'openai-compatible', modelId: 'gpt-4o' })).toEqual({ tokens: DEFAULT, source: 'default' });
    expect(await windows.of({ providerId: 'openai-compatible', modelId: 'claude-sonnet-4' })).toEqual({
      tokens: DEFAULT,
      source: 'default',
    });
  });

  it('believes a learned window over the catalog and the default, per provider and model, but not over a setting', async () => {
    const windows = new ContextWindows({ overrides: { 'anthropic:claude-opus-4': 150_000 }, defaultTokens: DEFAULT });
    const sonnet = { providerId: 'anthropic', modelId: 'claude-sonnet-4' };
    windows.learn(sonnet, 250_000);
    expect(await windows.of(sonnet)).toEqual({ tokens: 250_000, source: 'learned' });
    // The same model through another provider has not been learned.
    expect(await windows.of({ providerId: 'openrouter', modelId: 'claude-sonnet-4' })).toEqual({ tokens: 200_000, source: 'catalog' });
    // The last learned wins (below the catalog, once two errors agree).
    windows.learn(sonnet, 190_000);
    windows.learn(sonnet, 190_000);
    expect(await windows.of(sonnet)).toEqual({ tokens: 190_000, source: 'learned' });

    const opus = { providerId: 'anthropic', modelId: 'claude-opus-4' };
    windows.learn(opus, 100_000);
    windows.learn(opus, 100_000);
    expect(await windows.of(opus)).toEqual({ tokens: 150_000, source: 'setting' });

    const local = { providerId: 'openai-compatible', modelId: 'llama3' };
    windows.learn(local, 8192);
    expect(await windows.of(local)).toEqual({ tokens: 8192, source: 'learned' });
  });

  it('learns nothing from a window that is not a positive integer', async () => {
    const windows = new ContextWindows({ overrides: {}, defaultTokens: DEFAULT });
    const ref = { providerId: 'openai', modelId: 'gpt-4o' };
    for (const tokens of [0, -8192, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) windows.learn(ref, tokens);
    expect(await windows.of(ref)).toEqual({ tokens: 128_000, source: 'catalog' });
  });
});

describe('modelTableKey', () => {
  it('drops a vendor prefix, a date or `latest`, and turns dots into dashes', async () => {
    expect(modelTableKey('anthropic/claude-sonnet-4.5')).toBe('claude-sonnet-4-5');
    expect(modelTableKey('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(modelTableKey('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(modelTableKey('claude-3-5-haiku-latest')).toBe('claude-3-5-haiku');
    expect(modelTableKey('~openai/GPT-4.1')).toBe('gpt-4-1');
    expect(modelTableKey('openai/gpt-4o:free')).toBe('gpt-4o:free');
  });
});

describe('a provider that lists its windows', () => {
  it('is believed after a setting and a learned window, before the catalog; models it does not list fall through', async () => {
    const table: Record<string, number> = { 'anthropic/claude-sonnet-4.5': 1_000_000, 'acme/small:free': 8_192 };
    const listed = { windowOf: async (modelId: string) => table[modelId] };
    const windows = new ContextWindows({ overrides: { 'openrouter:acme/set': 50_000 }, defaultTokens: 128_000 }, { openrouter: listed });
    expect(await windows.of({ providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4.5' })).toEqual({
      tokens: 1_000_000,
      source: 'listed',
    });
    expect(await windows.of({ providerId: 'openrouter', modelId: 'acme/small:free' })).toEqual({ tokens: 8_192, source: 'listed' });
    expect(await windows.of({ providerId: 'openrouter', modelId: 'acme/set' })).toEqual({ tokens: 50_000, source: 'setting' });
    expect(await windows.of({ providerId: 'openrouter', modelId: 'openai/gpt-4o' })).toEqual({ tokens: 128_000, source: 'catalog' });
    // Another provider's models are not looked up in OpenRouter's list.
    expect(await windows.of({ providerId: 'anthropic', modelId: 'anthropic/claude-sonnet-4.5' })).toEqual({
      tokens: 200_000,
      source: 'catalog',
    });
    // Below the listed window, one error is not believed; a second naming the same window is.
    windows.learn({ providerId: 'openrouter', modelId: 'acme/small:free' }, 4_096);
    expect(await windows.of({ providerId: 'openrouter', modelId: 'acme/small:free' })).toEqual({ tokens: 8_192, source: 'listed' });
    windows.learn({ providerId: 'openrouter', modelId: 'acme/small:free' }, 4_096);
    expect(await windows.of({ providerId: 'openrouter', modelId: 'acme/small:free' })).toEqual({ tokens: 4_096, source: 'learned' });
  });
});

describe('a learned window', () => {
  it('is not believed under 1,000 tokens, and is forgotten after a day', async () => {
    let now = 0;
    const windows = new ContextWindows({ overrides: {}, defaultTokens: DEFAULT }, {}, () => now);
    const ref = { providerId: 'openai', modelId: 'gpt-4o' };
    windows.learn(ref, 999);
    windows.learn(ref, 999);
    expect(await windows.of(ref)).toEqual({ tokens: 128_000, source: 'catalog' });
    windows.learn(ref, 64_000);
    windows.learn(ref, 64_000);
    now += 23 * 60 * 60_000;
    expect(await windows.of(ref)).toEqual({ tokens: 64_000, source: 'learned' });
    now += 2 * 60 * 60_000;
    expect(await windows.of(ref)).toEqual({ tokens: 128_000, source: 'catalog' });
  });
});

describe('whose errors are believed', () => {
  const model = { providerId: 'openai', modelId: 'gpt-4o' };
  const local = { providerId: 'openai-compatible', modelId: 'llama3' };
  const tenant = 'own:0123456789abcdef0123456789abcdef';
  const other = 'own:fedcba9876543210fedcba9876543210';

  it("keeps what one user's own credentials taught to calls with those credentials", async () => {
    const windows = new ContextWindows({ overrides: {}, defaultTokens: DEFAULT });
    // No published window for an openai-compatible model: one error is believed, for its credentials alone.
    windows.learn(local, 4_096, tenant);
    expect(await windows.of(local, tenant)).toEqual({ tokens: 4_096, source: 'learned' });
    expect(await windows.of(local, other)).toEqual({ tokens: DEFAULT, source: 'default' });
    expect(await windows.of(local, OPERATOR_CREDENTIALS)).toEqual({ tokens: DEFAULT, source: 'default' });
    expect(await windows.of(local)).toEqual({ tokens: DEFAULT, source: 'default' });
    // And the operator's key teaches nothing to a user's own.
    windows.learn(model, 300_000);
    expect(await windows.of(model)).toEqual({ tokens: 300_000, source: 'learned' });
    expect(await windows.of(model, tenant)).toEqual({ tokens: 128_000, source: 'catalog' });
  });

  it('believes a window below the catalog only once a second error names the same', async () => {
    const windows = new ContextWindows({ overrides: {}, defaultTokens: DEFAULT });
    windows.learn(model, 8_192);
    expect(await windows.of(model)).toEqual({ tokens: 128_000, source: 'catalog' });
    // A second error naming another window does not confirm the first.
    windows.learn(model, 16_384);
    expect(await windows.of(model)).toEqual({ tokens: 128_000, source: 'catalog' });
    windows.learn(model, 16_384);
    expect(await windows.of(model)).toEqual({ tokens: 16_384, source: 'learned' });
    // Confirmations count per credentials: a user's own key's one error is not the operator's second.
    windows.learn({ providerId: 'anthropic', modelId: 'claude-sonnet-4' }, 100_000);
    windows.learn({ providerId: 'anthropic', modelId: 'claude-sonnet-4' }, 100_000, tenant);
    expect(await windows.of({ providerId: 'anthropic', modelId: 'claude-sonnet-4' })).toEqual({ tokens: 200_000, source: 'catalog' });
    expect(await windows.of({ providerId: 'anthropic', modelId: 'claude-sonnet-4' }, tenant)).toEqual({
      tokens: 200_000,
      source: 'catalog',
    });
    // At or above the catalog, one error is believed.
    windows.learn({ providerId: 'anthropic', modelId: 'claude-opus-4' }, 200_000);
    expect(await windows.of({ providerId: 'anthropic', modelId: 'claude-opus-4' })).toEqual({ tokens: 200_000, source: 'learned' });
  });
});
