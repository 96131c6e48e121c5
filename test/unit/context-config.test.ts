// The settings of conversation compaction and of what the model is shown of tool results, with their
// defaults, how they are read, and what is refused.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.ts';

describe('context settings', () => {
  it('have defaults', () => {
    expect(loadConfig({}).context).toEqual({
      compactAtPercent: 80,
      keepPercent: 30,
      compactionModels: {},
      windows: {},
      defaultWindowTokens: 128_000,
      toolResultMaxChars: 40_000,
    });
  });

  it('are read from the environment', () => {
    const config = loadConfig({
      COMPACTION_THRESHOLD_PERCENT: '90',
      COMPACTION_KEEP_PERCENT: '20',
      MODEL_CONTEXT_WINDOWS: 'gpt-4o=64000,openrouter:anthropic/claude-sonnet-4=100000',
      COMPACTION_MODELS: 'openai=gpt-4o-mini,openrouter=openai/gpt-4o-mini',
      MODEL_CONTEXT_WINDOW_DEFAULT: '32000',
      TOOL_RESULT_MAX_CHARS: '5000',
    });
    expect(config.context).toEqual({
      compactAtPercent: 90,
      keepPercent: 20,
      compactionModels: { openai: 'gpt-4o-mini', openrouter: 'openai/gpt-4o-mini' },
      windows: { 'gpt-4o': 64_000, 'openrouter:anthropic/claude-sonnet-4': 100_000 },
      defaultWindowTokens: 32_000,
      toolResultMaxChars: 5000,
    });
  });

  it('trim spaces around pairs, keys and values', () => {
    const config = loadConfig({
      MODEL_CONTEXT_WINDOWS: ' gpt-4o = 64000 , openai-compatible:llama3=8192 ',
      COMPACTION_MODELS: ' anthropic = claude-haiku-4-5 ',
    });
    expect(config.context.windows).toEqual({ 'gpt-4o': 64_000, 'openai-compatible:llama3': 8192 });
    expect(config.context.compactionModels).toEqual({ anthropic: 'claude-haiku-4-5' });
  });

  it('refuse a malformed pair', () => {
    for (const value of ['gpt-4o', '=64000', 'gpt-4o=', 'gpt-4o=64000;o3=200000x']) {
      expect(() => loadConfig({ MODEL_CONTEXT_WINDOWS: value }), value).toThrow(ConfigError);
    }
    expect(() => loadConfig({ MODEL_CONTEXT_WINDOWS: 'gpt-4o' })).toThrow(
      'MODEL_CONTEXT_WINDOWS must be comma-separated [providerId:]modelId=tokens pairs, got "gpt-4o"',
    );
    expect(() => loadConfig({ COMPACTION_MODELS: 'openai' })).toThrow(
      'COMPACTION_MODELS must be comma-separated providerId=modelId pairs, got "openai"',
    );
  });

  it('refuse a compaction model for an unknown provider', () => {
    expect(() => loadConfig({ COMPACTION_MODELS: 'openai=gpt-4o-mini,mistral=mistral-small' })).toThrow(ConfigError);
    expect(() => loadConfig({ COMPACTION_MODELS: 'mistral=mistral-small' })).toThrow(/COMPACTION_MODELS: "mistral" is not a provider/);
  });

  it('refuse a window below 1000 tokens or not a number', () => {
    expect(() => loadConfig({ MODEL_CONTEXT_WINDOWS: 'gpt-4o=999' })).toThrow(
      'MODEL_CONTEXT_WINDOWS: gpt-4o must be a number of tokens >= 1000, got "999"',
    );
    expect(() => loadConfig({ MODEL_CONTEXT_WINDOWS: 'gpt-4o=64k' })).toThrow(ConfigError);
    expect(() => loadConfig({ MODEL_CONTEXT_WINDOWS: 'gpt-4o=-64000' })).toThrow(ConfigError);
    expect(loadConfig({ MODEL_CONTEXT_WINDOWS: 'gpt-4o=1000' }).context.windows).toEqual({ 'gpt-4o': 1000 });
    expect(() => loadConfig({ MODEL_CONTEXT_WINDOW_DEFAULT: '999' })).toThrow(ConfigError);
    expect(() => loadConfig({ TOOL_RESULT_MAX_CHARS: '999' })).toThrow(ConfigError);
  });

  it('refuse a percentage past 100 or below its minimum', () => {
    expect(() => loadConfig({ COMPACTION_THRESHOLD_PERCENT: '101' })).toThrow(
      'COMPACTION_THRESHOLD_PERCENT must be a percentage (at most 100), got "101"',
    );
    expect(() => loadConfig({ COMPACTION_KEEP_PERCENT: '150' })).toThrow(ConfigError);
    expect(() => loadConfig({ COMPACTION_THRESHOLD_PERCENT: '9' })).toThrow(ConfigError);
    expect(() => loadConfig({ COMPACTION_KEEP_PERCENT: '0' })).toThrow(ConfigError);
    expect(loadConfig({ COMPACTION_THRESHOLD_PERCENT: '100' }).context.compactAtPercent).toBe(100);
  });

  it('refuse keeping as much as the threshold or more', () => {
    expect(() => loadConfig({ COMPACTION_THRESHOLD_PERCENT: '50', COMPACTION_KEEP_PERCENT: '50' })).toThrow(
      /COMPACTION_KEEP_PERCENT must be below COMPACTION_THRESHOLD_PERCENT/,
    );
    expect(() => loadConfig({ COMPACTION_KEEP_PERCENT: '85' })).toThrow(ConfigError);
    expect(loadConfig({ COMPACTION_THRESHOLD_PERCENT: '50', COMPACTION_KEEP_PERCENT: '49' }).context).toMatchObject({
      compactAtPercent: 50,
      keepPercent: 49,
    });
  });
});
