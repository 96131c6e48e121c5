// What a step's message records of the usage its provider reported. The input count includes what was
// read from or written to the provider's prompt cache; those two are kept beside it when the provider
// reported any, so a reader sees how much of the input the cache served and `costUsd` prices them
// (activities/model/pricing.ts).
import type { LanguageModelUsage } from 'ai';
import type { TokenUsage } from '../../contract/events.ts';

export function stepTokens(usage: LanguageModelUsage | undefined): TokenUsage {
  const read = usage?.inputTokenDetails?.cacheReadTokens;
  const written = usage?.inputTokenDetails?.cacheWriteTokens;
  return {
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    ...(read ? { cacheReadTokens: read } : {}),
    ...(written ? { cacheWriteTokens: written } : {}),
  };
}
