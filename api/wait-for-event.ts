// Waits for the first event matching a predicate, reading PostgreSQL after each wake of the hub.
import type { Db } from '../store/db.ts';
import { readEvents } from '../store/events.ts';
import type { SessionEvent } from '../lib/events.ts';
import type { EventHub } from './event-hub.ts';

export async function waitForEvent(
  options: { db: Db; hub: EventHub; sessionId: string; afterSeq: number; timeoutMs: number; signal?: AbortSignal },
  matches: (event: SessionEvent) => boolean,
): Promise<SessionEvent | undefined> {
  let lastSeq = options.afterSeq;
  let wake: (() => void) | undefined;
  let woken = true;
  const unsubscribe = options.hub.subscribe(options.sessionId, () => {
    woken = true;
    wake?.();
  });
  const deadline = Date.now() + options.timeoutMs;
  const onAbort = () => wake?.();
  options.signal?.addEventListener('abort', onAbort);
  try {
    while (Date.now() < deadline && !options.signal?.aborted) {
      if (woken) {
        woken = false;
        for (;;) {
          const events = await readEvents(options.db, options.sessionId, lastSeq, 1_000);
          for (const event of events) if (matches(event)) return event;
          if (events.length === 0) break;
          lastSeq = events[events.length - 1]!.seq;
        }
      }
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, Math.min(1_000, Math.max(0, deadline - Date.now())));
        if (woken) resolve();
      });
      clearTimeout(timer);
      wake = undefined;
      // The timer is only a safety net against a missed wake.
      woken = true;
    }
    return undefined;
  } finally {
    unsubscribe();
    options.signal?.removeEventListener('abort', onAbort);
  }
}
