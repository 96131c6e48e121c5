// An SSE response read step by step, for tests that act between events (answer an approval once it
// is asked, then read on). The raw text is kept too, because comments (heartbeats) are not events.
import { readSse, type SseEvent } from './sse-parse.ts';
import type { SessionEvent } from '../../../contract/events.ts';

export interface SseReader {
  /** Every event read so far, parsed. */
  readonly events: SessionEvent[];
  /** Everything the server wrote so far, comments included. */
  readonly raw: string;
  /** Reads on until an event satisfies `done`, and returns it; fails if the stream ends or stalls first. */
  until(done: (event: SessionEvent) => boolean, timeoutMs?: number): Promise<SessionEvent>;
  /** Reads on until the server ends the stream; fails if it does not. Returns the events read meanwhile. */
  toEnd(timeoutMs?: number): Promise<SessionEvent[]>;
  /** Waits until the raw text after `from` (a character offset) satisfies `done`. */
  rawUntil(from: number, done: (text: string) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function sseReader(response: Response): SseReader {
  if (!response.body) throw new Error('sseReader: the response has no body');
  const body = response.body.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  // Read eagerly, so comments arrive in `raw` while nobody asks for the next event.
  const recorded = new ReadableStream<Uint8Array>({
    start(controller) {
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await body.read();
            if (done) break;
            raw += decoder.decode(value, { stream: true });
            controller.enqueue(value);
          }
          controller.close();
        } catch (error) {
          // Cancelled by close(): the controller is already closed.
          try {
            controller.error(error);
          } catch {
            /* closed */
          }
        }
      })();
    },
    async cancel() {
      await body.cancel();
    },
  });
  const source = readSse(new Response(recorded));
  const events: SessionEvent[] = [];
  const got = () => events.map((event) => `${event.seq} ${event.type}`).join(', ');

  /** The next event, `undefined` at the end of the stream. */
  async function next(timeoutMs: number, what: string): Promise<SessionEvent | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`sseReader: no ${what} within ${timeoutMs} ms; got ${got()}`)), timeoutMs);
    });
    try {
      const item: IteratorResult<SseEvent> = await Promise.race([source.next(), stalled]);
      if (item.done) return undefined;
      const event = JSON.parse(item.value.data) as SessionEvent;
      events.push(event);
      return event;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    events,
    get raw() {
      return raw;
    },
    async until(done, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const event = await next(Math.max(1, deadline - Date.now()), 'awaited event');
        if (!event) throw new Error(`sseReader: the stream ended before the awaited event; got ${got()}`);
        if (done(event)) return event;
      }
    },
    async toEnd(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      const start = events.length;
      while (await next(Math.max(1, deadline - Date.now()), 'end of stream'));
      return events.slice(start);
    },
    async rawUntil(from, done, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(raw.slice(from))) {
        if (Date.now() > deadline) throw new Error(`sseReader: the raw stream never matched; after ${from}: ${raw.slice(from)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await source.return(undefined);
    },
  };
}
