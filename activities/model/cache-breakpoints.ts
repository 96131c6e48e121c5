// Prompt caching. Anthropic's models (called directly, or through OpenRouter, which passes the marks on)
// cache a request's prefix only up to the blocks marked `cache_control`, at most four per request; a
// later request that begins with the same content reads that prefix at a tenth of the input price, and
// writing it costs 1.25× once. The Messages API reads tools, then the system prompt, then the messages,
// so two marks cover a conversation: one on the system prompt (the tool definitions before it with it),
// which every step of every turn shares, and one on the request's last message, so the next step of the
// turn and the next turn find everything before their new messages cached (the provider looks back for
// an earlier mark's prefix from each mark). OpenAI and most others cache prefixes without marks: for
// them the prefix only has to stay the same, and the system prompt is built deterministically for that.
import type { ModelMessage, SystemModelMessage } from 'ai';
import type { ModelRef } from '../../contract/bundle.ts';

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** Whether the model caches by marks: Anthropic's, directly or as an OpenRouter model id (`anthropic/...`). */
export function cachesByBreakpoints(ref: ModelRef): boolean {
  if (ref.providerId === 'anthropic') return true;
  return ref.providerId === 'openrouter' && /^~?anthropic\//.test(ref.modelId);
}

/** The prompt with its two marks: the system prompt, and the last message. */
export function withCacheBreakpoints(
  instructions: string | undefined,
  messages: ModelMessage[],
): { instructions: SystemModelMessage | undefined; messages: ModelMessage[] } {
  const last = messages.at(-1);
  return {
    instructions: instructions === undefined ? undefined : { role: 'system', content: instructions, providerOptions: EPHEMERAL },
    messages: last
      ? [...messages.slice(0, -1), { ...last, providerOptions: { ...last.providerOptions, ...EPHEMERAL } } as ModelMessage]
      : messages,
  };
}
