// The fake Messages API's prompt cache, which the caching benchmark and tests rely on to behave as the
// provider documents it: a marked prefix is written once and read by a later request that repeats it,
// also from a mark up to 20 blocks further on; short prefixes and unmarked requests are not cached.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MIN_CACHEABLE_TOKENS, startFakeAnthropic, type AnthropicMessage, type FakeAnthropic } from '../helpers/fakes/fake-anthropic.ts';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic({ cache: true });
});
afterAll(async () => fake.close());

const MARK = { cache_control: { type: 'ephemeral' as const } };
/** A system prompt of about `tokens` tokens (the fake counts four characters a token). */
const system = (tokens: number, marked = true) => [{ type: 'text', text: 'x'.repeat(tokens * 4), ...(marked ? MARK : {}) }];
const user = (text: string, marked = false): AnthropicMessage => ({
  role: 'user',
  content: [{ type: 'text', text, ...(marked ? MARK : {}) }],
});
const assistant = (text: string): AnthropicMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

async function usageOf(body: Record<string, unknown>) {
  const response = await fetch(`${fake.baseUrl}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify({ model: 'claude-fake', max_tokens: 100, ...body }),
  });
  const message = (await response.json()) as { usage: Record<string, number> };
  return message.usage;
}

describe('the fake prompt cache', () => {
  test('a marked prefix is written by the first request and read by the next that repeats it', async () => {
    const first = await usageOf({ system: system(2000), messages: [user('one', true)] });
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(2000);
    expect(first.input_tokens).toBe(0);
    const second = await usageOf({ system: system(2000), messages: [user('one'), assistant('reply'), user('two', true)] });
    // Read up to the first request's last mark (found looking back from this one's), the new blocks written.
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.input_tokens).toBe(0);
  });

  test('without marks nothing is cached; under the minimum nothing is written', async () => {
    const unmarked = await usageOf({ system: system(3000, false), messages: [user('three')] });
    expect(unmarked.cache_creation_input_tokens).toBe(0);
    const again = await usageOf({ system: system(3000, false), messages: [user('three')] });
    expect(again.cache_read_input_tokens).toBe(0);
    const short = await usageOf({ system: system(MIN_CACHEABLE_TOKENS / 4), messages: [user('four', true)] });
    expect(short.cache_creation_input_tokens).toBe(0);
    expect(short.input_tokens).toBeGreaterThan(0);
  });

  test('a changed prefix misses', async () => {
    await usageOf({ system: system(1500), messages: [user('five', true)] });
    const changed = await usageOf({ system: [{ type: 'text', text: 'y'.repeat(6000), ...MARK }], messages: [user('five', true)] });
    expect(changed.cache_read_input_tokens).toBe(0);
  });
});
