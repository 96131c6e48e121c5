// Streams a session's events as Server-Sent Events: a replay from PostgreSQL after a given seq, then
// live events as the event hub wakes the stream. PostgreSQL is the only source of events; a wake
// just means "read again after the last seq sent". One read runs at a time per stream and the
// position only moves forward, so every event is sent once and in order, however wakes race reads.
import type { Request, Response } from 'express';
import type { Db } from '../store/db.ts';
import { readEvents } from '../store/events.ts';
import type { SessionEvent } from '../lib/events.ts';
import type { EventHub } from './event-hub.ts';

/** Rows per replay query: large enough for a fast replay, small enough to hold in memory. */
export const REPLAY_PAGE_SIZE = 1_000;

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx and similar proxies buffer responses unless told not to.
  'x-accel-buffering': 'no',
};

export interface StreamEventsOptions {
  req: Request;
  res: Response;
  db: Db;
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
}

export interface StreamEnd {
  /** The seq of the last event read and handled, written or filtered out (`afterSeq` if none). */
  lastSeq: number;
  reason: 'until' | 'client-closed' | 'error';
}

export function sseFrame(event: SessionEvent): string {
  // JSON.stringify escapes line breaks inside strings, so the data is always one line.
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Writes the SSE response; resolves when it has ended, whichever way. */
export async function streamEvents(options: StreamEventsOptions): Promise<StreamEnd> {
  const { req, res, db, hub, sessionId, filter, until } = options;
  let lastSeq = options.afterSeq;
  let done = false;
  let woken = false;
  let resume: (() => void) | undefined;

  const gone = () => done || res.destroyed || res.writableEnded || !res.socket || res.socket.destroyed;
  const onClose = () => {
    done = true;
    resume?.();
  };
  const wakeUp = () => {
    woken = true;
    resume?.();
  };
  /** Resolves at the next wake, at once if one came since the last read began, or on close. */
  const nextWake = () =>
    new Promise<void>((resolve) => {
      if (woken || gone()) return resolve();
      resume = resolve;
    }).finally(() => (resume = undefined));

  /** Writes and honours backpressure: a slow client holds the stream, not the process's memory. */
  const write = async (chunk: string): Promise<void> => {
    if (gone() || res.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const settle = () => {
        res.off('drain', settle);
        res.off('close', settle);
        resolve();
      };
      res.on('drain', settle);
      res.on('close', settle);
      if (gone()) settle();
    });
  };

  res.on('close', onClose);
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  // Subscribed before the first read: an event committed between the replay and the wait below
  // wakes us, so nothing falls between replay and live.
  const unsubscribe = hub.subscribe(sessionId, wakeUp);
  const heartbeat = setInterval(() => {
    // Skipped while backpressured: the client is evidently still connected and the buffer is full.
    if (!gone() && !res.writableNeedDrain) res.write(': keep-alive\n\n');
  }, options.heartbeatMs);

  let reason: StreamEnd['reason'] = 'client-closed';
  try {
    while (!gone()) {
      woken = false;
      let page: SessionEvent[];
      do {
        page = await readEvents(db, sessionId, lastSeq, REPLAY_PAGE_SIZE);
        if (gone()) break;
        // A page goes out as one write; a stop event cuts it short.
        let chunk = '';
        let stop = false;
        for (const event of page) {
          if (!filter || filter(event)) chunk += sseFrame(event);
          lastSeq = event.seq;
          if (until?.(event)) {
            stop = true;
            break;
          }
        }
        if (chunk) await write(chunk);
        if (stop) {
          reason = 'until';
          if (!gone()) res.end();
          return { lastSeq, reason };
        }
      } while (page.length === REPLAY_PAGE_SIZE && !gone());
      await nextWake();
    }
  } catch (error) {
    // The client reconnects with Last-Event-ID and loses nothing; ending beats hanging.
    reason = 'error';
    req.log.warn({ err: error, sessionId, lastSeq }, 'event stream failed');
    if (!gone()) res.end();
  } finally {
    done = true;
    unsubscribe();
    clearInterval(heartbeat);
    res.off('close', onClose);
  }
  return { lastSeq, reason };
}
