// Whose credentials a model call uses: the operator's, shared by every user without their own, or a
// user's own key or base URL. A user's own credentials have a scope of their own (for what a provider's
// error teaches), and their cache counts are shown only when the prompt cache behind them is theirs alone.
import { describe, expect, it } from 'vitest';
import { callCredentials, OPERATOR_CREDENTIALS } from '../../activities/model/credential-scope.ts';
import { providerCredentials } from '../../activities/model/providers.ts';
import type { Config } from '../../lib/config.ts';

type Settings = Pick<Config, 'providers' | 'outbound' | 'sharedCacheCounts'>;

function config(providers: Partial<Config['providers']>, sharedCacheCounts = false): Settings {
  const none = { apiKey: undefined, baseUrl: undefined };
  return {
    providers: { openrouter: none, openai: none, anthropic: none, 'openai-compatible': none, ...providers },
    outbound: { allowCidrs: [] },
    sharedCacheCounts,
  } as unknown as Settings;
}

const of = (providerId: string, secrets: Record<string, string>, settings: Settings) =>
  callCredentials(providerId, providerCredentials(providerId, new Map(Object.entries(secrets)), settings), settings);

describe('callCredentials', () => {
  const operator = config({
    openai: { apiKey: 'sk-operator-openai', baseUrl: undefined },
    'openai-compatible': { apiKey: 'operator-local', baseUrl: 'http://models.internal/v1' },
  });

  it("names the operator's key and base URL as the operator's, and shows no cache counts", () => {
    expect(of('openai', {}, operator)).toEqual({ scope: OPERATOR_CREDENTIALS, showsCacheCounts: false });
    expect(of('openai-compatible', {}, operator)).toEqual({ scope: OPERATOR_CREDENTIALS, showsCacheCounts: false });
    // A secret holding the operator's own key is the operator's key.
    expect(of('openai', { OPENAI_API_KEY: 'sk-operator-openai' }, operator)).toEqual({
      scope: OPERATOR_CREDENTIALS,
      showsCacheCounts: false,
    });
  });

  it("gives a user's own key or base URL a scope of its own, the same for the same credentials", () => {
    const mine = of('openai', { OPENAI_API_KEY: 'sk-mine-0001' }, operator);
    const theirs = of('openai', { OPENAI_API_KEY: 'sk-theirs-0002' }, operator);
    expect(mine.scope).toMatch(/^own:[0-9a-f]{32}$/);
    expect(mine.scope).not.toBe(theirs.scope);
    expect(of('openai', { OPENAI_API_KEY: 'sk-mine-0001' }, operator).scope).toBe(mine.scope);
    expect(mine.scope).not.toContain('sk-mine');
    const ownServer = of('openai-compatible', { OPENAI_COMPATIBLE_BASE_URL: 'https://mine.example/v1' }, operator);
    expect(ownServer.scope).toMatch(/^own:/);
  });

  it("shows cache counts for a user's own base URL, or their own key at the provider's own address only", () => {
    expect(of('openai', { OPENAI_API_KEY: 'sk-mine-0001' }, operator).showsCacheCounts).toBe(true);
    expect(of('openai-compatible', { OPENAI_COMPATIBLE_BASE_URL: 'https://mine.example/v1' }, operator).showsCacheCounts).toBe(true);
    // Their key sent to the operator's own server: the cache there serves every tenant.
    expect(of('openai-compatible', { OPENAI_COMPATIBLE_API_KEY: 'mine' }, operator)).toEqual({
      scope: expect.stringMatching(/^own:/),
      showsCacheCounts: false,
    });
    const gateway = config({ openai: { apiKey: 'sk-operator-openai', baseUrl: 'https://gateway.internal/v1' } });
    expect(of('openai', { OPENAI_API_KEY: 'sk-mine-0001' }, gateway).showsCacheCounts).toBe(false);
  });

  it("shows them behind the operator's credentials too where the operator says its tenants may see them", () => {
    const shared = config({ openai: { apiKey: 'sk-operator-openai', baseUrl: undefined } }, true);
    expect(of('openai', {}, shared)).toEqual({ scope: OPERATOR_CREDENTIALS, showsCacheCounts: true });
  });
});
