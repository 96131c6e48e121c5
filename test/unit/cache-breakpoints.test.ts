// Where the service marks a prompt for Anthropic's cache: which models take marks, and the two marks
// (the system prompt, the last message) that let every later step and turn read the prefix cached.
import { describe, expect, test } from 'vitest';
import type { ModelMessage } from 'ai';
import { cachesByBreakpoints, withCacheBreakpoints } from '../../activities/model/cache-breakpoints.ts';

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } };

describe('cachesByBreakpoints', () => {
  test("Anthropic's models, directly or through OpenRouter; no other", () => {
    expect(cachesByBreakpoints({ providerId: 'anthropic', modelId: 'claude-sonnet-4-5' })).toBe(true);
    expect(cachesByBreakpoints({ providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4.5' })).toBe(true);
    expect(cachesByBreakpoints({ providerId: 'openrouter', modelId: '~anthropic/claude-sonnet-latest' })).toBe(true);
    expect(cachesByBreakpoints({ providerId: 'openrouter', modelId: 'openai/gpt-4o' })).toBe(false);
    expect(cachesByBreakpoints({ providerId: 'openai', modelId: 'gpt-4o' })).toBe(false);
    expect(cachesByBreakpoints({ providerId: 'openai-compatible', modelId: 'anthropic/claude' })).toBe(false);
  });
});

describe('withCacheBreakpoints', () => {
  const messages: ModelMessage[] = [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: 'two' },
    { role: 'user', content: 'three', providerOptions: { other: { kept: true } } },
  ];

  test('marks the system prompt and the last message, and nothing else', () => {
    const marked = withCacheBreakpoints('You are terse.', messages);
    expect(marked.instructions).toEqual({ role: 'system', content: 'You are terse.', providerOptions: EPHEMERAL });
    expect(marked.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(marked.messages[2]).toEqual({ role: 'user', content: 'three', providerOptions: { other: { kept: true }, ...EPHEMERAL } });
    // The messages given are not changed.
    expect(messages[2]!.providerOptions).toEqual({ other: { kept: true } });
  });

  test('without a system prompt or messages, marks what there is', () => {
    expect(withCacheBreakpoints(undefined, messages).instructions).toBeUndefined();
    expect(withCacheBreakpoints('x', [])).toEqual({
      instructions: { role: 'system', content: 'x', providerOptions: EPHEMERAL },
      messages: [],
    });
  });
});
