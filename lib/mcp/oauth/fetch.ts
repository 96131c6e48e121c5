// Every request of an OAuth exchange (metadata, registration, tokens, revocation) goes through the
// outbound guard (private addresses refused, redirects returned, not followed), is bounded in time, and
// reads at most a small answer: a hostile or broken authorization server ends its own sign-in, nothing else.
import { limitedFetch } from '../../response-limits.ts';

/** Metadata documents and token answers are a few KiB; an answer past this is refused. */
export const OAUTH_ANSWER_BYTES = 64 * 1024;

/** A fetch whose requests together end by `timeoutMs` from now (or `signal`). */
export function oauthFetch(guarded: typeof globalThis.fetch, timeoutMs: number, signal?: AbortSignal): typeof globalThis.fetch {
  const what = 'The authorization server';
  const limited = limitedFetch(guarded, {
    body: { maxBytes: OAUTH_ANSWER_BYTES, what },
    errorBody: { maxBytes: OAUTH_ANSWER_BYTES, what },
  });
  // One deadline for everything done with this fetch (a sign-in's discovery and registration, a refresh
  // and its redirects): never `timeoutMs` per request, which a chain of redirects would multiply.
  const deadline = AbortSignal.timeout(timeoutMs);
  return (input, init) => {
    const signals = [deadline, ...(signal ? [signal] : []), ...(init?.signal ? [init.signal] : [])];
    return limited(input, { ...init, signal: AbortSignal.any(signals) });
  };
}
