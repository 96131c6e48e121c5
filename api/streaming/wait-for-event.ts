// Waits for the first event matching a predicate, following the session through the event hub's
// feed: the same shared read per wake that serves the session's SSE streams.
import type { SessionEvent } from '../../contract/events.ts';
import type { EventHub } from './event-hub.ts';

export async function waitForEvent(
  options: { hub: EventHub; sessionId: string; afterSeq: number; timeoutMs: number; signal?: AbortSignal },
  matches: (event: SessionEvent) => boolean,
): Promise<SessionEvent | undefined> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), options.timeoutMs);
  const onAbort = () => stop.abort();
  if (options.signal?.aborted) stop.abort();
  options.signal?.addEventListener('abort', onAbort);
  try {
    for await (const batch of options.hub.follow(options.sessionId, options.afterSeq, stop.signal)) {
      for (const event of batch) if (matches(event)) return event;
    }
    return undefined;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
