// Streams a session's events as Server-Sent Events: a replay from PostgreSQL after a given seq, then
// live events, both through the event hub's feed (api/streaming/event-feed.ts). PostgreSQL is the only source
// of events; the feed hands them over in order, each once, with no gap between replay and live, and
// this stream pulls the next batch only once the previous one is written, so a slow client holds its
// own stream back (and reads PostgreSQL itself when it falls behind), never the process's memory.
// A stream with no filter takes its batches as SSE text, so a replay's pages are framed by PostgreSQL.
import type { Request, Response } from 'express';
import type { SessionEvent } from '../../contract/events.ts';
import type { EventHub } from './event-hub.ts';
import { sseFrame } from './sse-frame.ts';
import { DEFAULT_TAIL_LIMITS } from './session-tail.ts';
import { openEventStream } from './sse-writer.ts';
import type { Db } from '../../store/db.ts';
import { ChildRelay } from './child-relay.ts';

export { sseFrame };

/** Rows per replay query: large enough for a fast replay, small enough to hold in memory. */
export const REPLAY_PAGE_SIZE = DEFAULT_TAIL_LIMITS.pageSize;

export interface StreamEventsOptions {
  req: Request;
  res: Response;
  hub: EventHub;
  sessionId: string;
  /** Events with a seq above this are sent. */
  afterSeq: number;
  heartbeatMs: number;
  /**
   * Only events for which this is true are written (e.g. one turn's events in a busy session).
   * Called once per event, in seq order, so it may keep state.
   */
  filter?: (event: SessionEvent) => boolean;
  /**
   * The stream ends after the first event for which this is true (e.g. a turn's terminal event),
   * written if `filter` lets it through. Checked on every event, filtered or not, so a filter can
   * never keep a stream open past its end.
   */
  until?: (event: SessionEvent) => boolean;
  /**
   * The client asked for the events of the agents the session's turns call (`?children=1`), read from
   * `db`. `resume`: calls still open that began before `afterSeq` are relayed too (a reconnecting client);
   * a turn's own stream, which starts before its calls, has none to resume.
   */
  relayChildren?: { db: Db; resume: boolean };
}

export interface StreamEnd {
  /** The seq of the last event read and handled, written or filtered out (`afterSeq` if none). */
  lastSeq: number;
  reason: 'until' | 'client-closed' | 'error';
}

/** Whether the client asked for an SSE stream rather than JSON. */
export function acceptsEventStream(req: Request): boolean {
  return req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream';
}

/** Whether a request that starts a turn holds its connection until the turn ends: streamed or waiting, not ?async=1. */
export function holdsTurn(_req: Request, query: { async?: unknown }): boolean {
  return !isAsync(query);
}

/** Whether a request that starts a turn asked for `?async=1` (or `true`): 202 at once, the turn runs on. */
export function isAsync(query: { async?: unknown }): boolean {
  return query.async === '1' || query.async === 'true';
}

/** Whether an SSE request asked for the events of the agents its session's turns call, relayed (`?children=1`). */
export function wantsChildren(query: { children?: unknown }): boolean {
  return query.children === '1' || query.children === 'true';
}

/** Writes the SSE response; resolves when it has ended, whichever way. */
export async function streamEvents(options: StreamEventsOptions): Promise<StreamEnd> {
  const { req, res, hub, sessionId, filter, until } = options;
  let lastSeq = options.afterSeq;
  const stream = openEventStream(res, options.heartbeatMs);
  const { gone, write } = stream;

  let reason: StreamEnd['reason'] = 'client-closed';
  const relay = options.relayChildren
    ? new ChildRelay({ db: options.relayChildren.db, hub, log: req.log }, sessionId, write, stream.closed)
    : undefined;
  try {
    if (options.relayChildren?.resume) await relay?.resume(lastSeq);
    if (!filter && !until && !relay) {
      // Every event is written and none ends the stream: the events need not be objects here, and a
      // replay's pages arrive as SSE text made by PostgreSQL. One write per batch, drained before the next.
      for await (const batch of hub.follow(sessionId, lastSeq, stream.closed, 'frames')) {
        if (gone()) break;
        lastSeq = batch.lastSeq;
        await write(batch.text);
      }
    } else {
      for await (const batch of hub.follow(sessionId, lastSeq, stream.closed)) {
        if (gone()) break;
        // A batch goes out as one write; a stop event cuts it short.
        let chunk = '';
        let stop = false;
        for (const event of batch) {
          if (!filter || filter(event)) {
            chunk += sseFrame(event);
            relay?.see(event);
          }
          lastSeq = event.seq;
          if (until?.(event)) {
            stop = true;
            break;
          }
        }
        if (chunk) await write(chunk);
        if (stop) {
          reason = 'until';
          await relay?.settle();
          stream.end();
          break;
        }
      }
    }
  } catch (error) {
    // The client reconnects with Last-Event-ID and loses nothing; ending beats hanging.
    reason = 'error';
    req.log.warn({ err: error, sessionId, lastSeq }, 'event stream failed');
    stream.end();
  } finally {
    stream.release();
  }
  return { lastSeq, reason };
}
