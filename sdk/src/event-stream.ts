// The SDK's promise about events: every event exactly once, in seq order, whatever happens to the
// connection. A stream that breaks (a proxy cut, an API process restarted, a network change) is
// opened again with `Last-Event-ID` set to the last seq seen; anything at or below it that arrives
// again is dropped, so a retried request that replays from the start repeats nothing either.
import type { RelayedEvent, SessionEvent } from './contract.ts';
import { APIConnectionError, APIError, APIUserAbortError, AgentServiceError } from './errors.ts';
import { parseServerSentEvents } from './sse.ts';
import { isRetryableStatus, retryDelayMs, sleep } from './retry.ts';

export interface ResumingStreamOptions {
  /** The stream already opened (a send's SSE answer); events on it are the server's choice, not filtered again. */
  first?: Promise<Response>;
  /** Opens the session's event stream after `lastSeq`. */
  reconnect: (lastSeq: number, signal: AbortSignal | undefined) => Promise<Response>;
  /** Events with a seq at or below this were seen already. */
  after?: number;
  /** Keeps only the events wanted (called on every event, in seq order, so it may keep state). */
  filter?: (event: SessionEvent) => boolean;
  /** The event after which the stream ends. */
  isEnd?: (event: SessionEvent) => boolean;
  signal?: AbortSignal;
  /** Reconnections in a row without an event before giving up (the error of the last one is thrown). */
  maxReconnects?: number;
  /** Called before each reconnection, with the seq it resumes after (for logs and tests). */
  onReconnect?: (lastSeq: number) => void;
  /** A child session's event relayed on the stream (asked with `?children=1`): not one of the stream's, no seq. */
  onChildEvent?: (relayed: RelayedEvent) => void;
}

/** The events of one or more SSE connections, as if they were one that never broke. */
export async function* resumingEvents(options: ResumingStreamOptions): AsyncGenerator<SessionEvent> {
  const { signal } = options;
  const maxReconnects = options.maxReconnects ?? 10;
  let lastSeq = options.after ?? 0;
  let failures = 0;
  let pending: Promise<Response> | undefined = options.first;
  let filtered = pending === undefined;
  for (;;) {
    try {
      const response = await (pending ?? options.reconnect(lastSeq, signal));
      if (!response.body) throw new AgentServiceError('The event stream has no body');
      for await (const frame of parseServerSentEvents(response.body)) {
        if (frame.event === 'subagent.event') {
          options.onChildEvent?.(JSON.parse(frame.data) as RelayedEvent);
          continue;
        }
        const event = JSON.parse(frame.data) as SessionEvent;
        if (typeof event.seq !== 'number' || event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        failures = 0;
        const wanted = options.filter ? options.filter(event) : true;
        if (!wanted && filtered) continue;
        yield event;
        if (options.isEnd?.(event)) return;
      }
      // The server closed the stream before the end we wait for: a restart, a proxy's timeout.
      if (++failures > maxReconnects) throw new APIConnectionError('The event stream kept closing before its end');
    } catch (error) {
      if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: signal.reason });
      if (error instanceof APIError && !isRetryableStatus(error.status, true)) throw error;
      if (error instanceof SyntaxError) throw new AgentServiceError(`The event stream sent a frame that is not JSON: ${error.message}`);
      if (error instanceof AgentServiceError && !(error instanceof APIError) && !(error instanceof APIConnectionError)) throw error;
      if (++failures > maxReconnects) throw error;
    }
    // The first reconnection is at once (most breaks are one dropped connection); then backing off.
    if (failures > 1) {
      await sleep(retryDelayMs(failures - 1) ?? 1000, signal).catch(() => {
        throw new APIUserAbortError(undefined, { cause: signal?.reason });
      });
    }
    if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: signal.reason });
    pending = undefined;
    filtered = true;
    options.onReconnect?.(lastSeq);
  }
}
