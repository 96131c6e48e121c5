import type { EventPage, RelayedEvent, SessionEvent } from '../contract.ts';
import { resumingEvents } from '../event-stream.ts';
import { path, type RequestOptions, type Transport } from '../transport.ts';

export interface EventsOptions {
  /** Only events with a greater seq (default 0: from the start). */
  after?: number;
  /** true: after the replay, keep going with live events until the signal aborts or the loop breaks. */
  follow?: boolean;
  /** JSON pages only: events per page (up to 1000). */
  limit?: number;
  signal?: AbortSignal;
  /** Reconnections in a row without an event before giving up (follow only; default 10). */
  maxReconnects?: number;
  /**
   * Follow only: the events of the agents the session's turns call, as they come (their deltas, questions
   * and ends), and of the agents those call. Not among the iterated events: they are the children's.
   */
  onChildEvent?: (relayed: RelayedEvent) => void;
}

/** Opens the SSE stream of a session's events after `lastSeq`. */
export function openEventStream(
  transport: Transport,
  sessionId: string,
  lastSeq: number,
  signal: AbortSignal | undefined,
  children = false,
): Promise<Response> {
  return transport.raw(
    {
      method: 'GET',
      path: path`/session/${sessionId}/events`,
      ...(children ? { query: { children: 1 } } : {}),
      accept: 'text/event-stream',
      headers: { 'last-event-id': String(lastSeq) },
      idempotent: true,
    },
    { signal },
  );
}

/**
 * A session's events, each once, in seq order. Without `follow`, the JSON pages of what happened so
 * far; with it, an SSE replay that goes on live and reconnects by itself (`Last-Event-ID`).
 */
export function sessionEvents(transport: Transport, sessionId: string, options: EventsOptions = {}): AsyncIterable<SessionEvent> {
  if (options.follow) {
    return resumingEvents({
      after: options.after,
      reconnect: (lastSeq, signal) => openEventStream(transport, sessionId, lastSeq, signal, options.onChildEvent !== undefined),
      signal: options.signal,
      maxReconnects: options.maxReconnects,
      ...(options.onChildEvent ? { onChildEvent: options.onChildEvent } : {}),
    });
  }
  return (async function* pages() {
    let after: number | null = options.after ?? 0;
    while (after !== null) {
      const page: EventPage = await listEvents(transport, sessionId, { after, limit: options.limit ?? 1000 }, { signal: options.signal });
      yield* page.events as SessionEvent[];
      after = page.next;
    }
  })();
}

/** One JSON page of a session's events after `after`; `next` is the `after` of the following page. */
export function listEvents(
  transport: Transport,
  sessionId: string,
  query: { after?: number; limit?: number } = {},
  options?: RequestOptions,
): Promise<EventPage> {
  return transport.json({ method: 'GET', path: path`/session/${sessionId}/events`, query, idempotent: true }, options);
}

/** `client.events(sessionId, options)`, with `client.events.list(sessionId, query)` for one page. */
export interface EventsFunction {
  (sessionId: string, options?: EventsOptions): AsyncIterable<SessionEvent>;
  list(sessionId: string, query?: { after?: number; limit?: number }, options?: RequestOptions): Promise<EventPage>;
}

export function eventsFunction(transport: Transport): EventsFunction {
  return Object.assign((sessionId: string, options?: EventsOptions) => sessionEvents(transport, sessionId, options), {
    list: (sessionId: string, query?: { after?: number; limit?: number }, options?: RequestOptions) =>
      listEvents(transport, sessionId, query, options),
  });
}
