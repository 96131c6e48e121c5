// What a step's message records of the usage its provider reported. The input count includes what was
// read from or written to the provider's prompt cache; those two are kept beside it when the provider
// reported any, so a reader sees how much of the input the cache served and `costUsd` prices them
// (activities/model/pricing.ts).
//
// Behind the operator's shared key the cache is shared by every tenant: a tenant who sends a long prefix
// and reads how much of it the cache served learns whether someone else sent that exact prefix. So a
// message, its events and the totals built from them keep the cache counts only when the cache is the
// user's alone, or the operator says its tenants may see them (credential-scope.ts); the cost is priced
// from the provider's full usage before that.
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

/** What the user is shown of a call's usage: its cache counts only when `showsCacheCounts` (credential-scope.ts). */
export function shownUsage(tokens: TokenUsage, showsCacheCounts: boolean): TokenUsage {
  if (showsCacheCounts) return tokens;
  const { cacheReadTokens: _read, cacheWriteTokens: _written, ...shown } = tokens;
  return shown;
}
