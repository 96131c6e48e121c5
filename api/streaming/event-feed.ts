// Follows sessions' events for one API process. Every reader of a session shares one SessionTail,
// which reads PostgreSQL once per wake for all of them; a reader pages PostgreSQL itself only while
// it is behind that tail (a replay from an older Last-Event-ID, or a client too slow to keep up),
// then joins it. With 500 readers of a busy session, a delta costs one query, not 500; and the tails
// of sessions woken together read in one query (grouped-tail-reads.ts). A reader that only writes
// SSE may take its batches as frames: its own pages then come framed by PostgreSQL
// (store/event-frames.ts), which is what makes a long replay cheap.
import type { Db } from '../../store/db.ts';
import { lastSeqOf, readEvents } from '../../store/events.ts';
import { readEventFrames } from '../../store/event-frames.ts';
import type { SessionEvent } from '../../contract/events.ts';
import type { Logger } from '../../lib/logger.ts';
import { DEFAULT_TAIL_LIMITS, SessionTail, type TailLimits } from './session-tail.ts';
import { sseFrame } from './sse-frame.ts';
import { groupedTailReads } from './grouped-tail-reads.ts';

export interface EventFeed {
  /**
   * The events of `sessionId` with a seq above `afterSeq`, in order and each once, in batches, then
   * new ones as they are committed; ends when `signal` aborts. Pull the next batch only when the
   * previous one is written: that is the backpressure.
   */
  follow(sessionId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<SessionEvent[], void, undefined>;
  /**
   * The same events as SSE text (api/streaming/sse-frame.ts), for a stream that writes every event: a page this
   * reader reads from PostgreSQL itself (a replay) comes framed by PostgreSQL, with no per-event work here.
   */
  follow(sessionId: string, afterSeq: number, signal: AbortSignal, form: 'frames'): AsyncGenerator<FrameBatch, void, undefined>;
  /** Sessions followed now, and what their tails buffer (for tests and metrics). */
  stats(): { sessions: number; readers: number; bufferedEvents: number; bufferedBytes: number };
}

/** A subscriber's wake: `events`, when given, are the appended events, consecutive and in seq order. */
export type Wake = (events?: readonly SessionEvent[]) => void;

export interface EventFeedOptions {
  db: Db;
  /** The hub's subscription: calls `onWake` when the session may have new events, with them when it has them. */
  subscribe: (sessionId: string, onWake: Wake) => () => void;
  logger: Logger;
  limits?: TailLimits;
}

/** Consecutive events as SSE frames. */
export interface FrameBatch {
  /** Their frames, in seq order. */
  text: string;
  /** How many events. */
  count: number;
  /** The seq of the last of them. */
  lastSeq: number;
}

/** How a reader's batches are made: from its own page of PostgreSQL, or from the tail's events. */
interface BatchForm<B> {
  read(sessionId: string, afterSeq: number, limit: number): Promise<Page<B>>;
  fromTail(events: SessionEvent[]): B;
  /** Whether to read the next page while the caller writes this one. */
  readAhead: boolean;
}

interface Page<B> {
  batch: B;
  count: number;
  /** The seq of the page's last event; the position read after when the page is empty. */
  lastSeq: number;
}

interface Followed {
  tail: SessionTail;
  readers: number;
  unsubscribe: () => void;
}

export function createEventFeed(options: EventFeedOptions): EventFeed {
  const { db } = options;
  const limits = options.limits ?? DEFAULT_TAIL_LIMITS;
  const log = options.logger.child({ component: 'event-feed' });
  const followed = new Map<string, Followed>();
  // The tails woken together read together: one query for the sessions of one worker commit.
  const tailReads = groupedTailReads(db);

  function acquire(sessionId: string): Followed {
    let entry = followed.get(sessionId);
    if (!entry) {
      const tail = new SessionTail(
        (afterSeq, limit) => tailReads(sessionId, afterSeq, limit),
        limits,
        (error) => log.warn({ err: error, sessionId }, 'reading the session tail failed'),
      );
      // Subscribed before any reader's first read: an event committed after that read wakes the tail.
      entry = { tail, readers: 0, unsubscribe: options.subscribe(sessionId, (events) => tail.wake(events)) };
      followed.set(sessionId, entry);
    }
    entry.readers++;
    return entry;
  }

  function release(sessionId: string, entry: Followed): void {
    if (--entry.readers > 0) return;
    entry.unsubscribe();
    entry.tail.close();
    followed.delete(sessionId);
  }

  /**
   * The loop every reader runs, whatever form its batches take: from the tail while the tail reaches
   * back to the reader's position, else pages of its own from PostgreSQL.
   */
  async function* run<B>(sessionId: string, afterSeq: number, signal: AbortSignal, form: BatchForm<B>): AsyncGenerator<B, void, undefined> {
    const entry = acquire(sessionId);
    const { tail } = entry;
    try {
      let lastSeq = afterSeq;
      // Whether `lastSeq` is a position in the log (0, a seq read, or one the tail has reached): only such
      // a position may join the tail or position it. A start beyond them all is checked against PostgreSQL.
      let inLog = afterSeq === 0;
      // The read of the page after `lastSeq`, begun while the previous page was being written.
      let ahead: { read: Promise<Page<B>>; changes: number } | undefined;
      while (!signal.aborted) {
        if (!inLog && tail.reached(lastSeq)) inLog = true;
        const buffered = inLog ? tail.after(lastSeq) : undefined;
        // Begun after a full page from lastSeq, so it is the page this reader would read now, if it must.
        const early = ahead;
        ahead = undefined;
        if (buffered === undefined) {
          const changes = early?.changes ?? tail.changes;
          const page = await (early?.read ?? form.read(sessionId, lastSeq, limits.pageSize));
          if (page.count === limits.pageSize && form.readAhead) {
            // More pages are likely: PostgreSQL makes the next while this one is written. Only one ahead,
            // so a slow client holds two pages at most; one the tail then covers is dropped unread.
            const read = form.read(sessionId, page.lastSeq, limits.pageSize);
            read.catch(() => undefined);
            ahead = { read, changes: tail.changes };
          }
          if (page.count > 0) {
            lastSeq = page.lastSeq;
            inLog = true;
          } else if (!inLog) {
            // A start beyond the end of the log is taken as its end: this reader gets what comes next.
            lastSeq = Math.min(lastSeq, await lastSeqOf(db, sessionId));
            inLog = true;
          }
          // The end of the log as of this read: from here the tail serves this reader.
          if (page.count < limits.pageSize) tail.caughtUp(lastSeq);
          if (page.count > 0) yield page.batch;
          // Nothing to read, yet the tail is beyond this reader: reading again at once would spin, so
          // wait for the tail to move (at once if it moved during the read).
          else if (tail.after(lastSeq) === undefined) await tail.changed(signal, changes);
        } else if (buffered.length > 0) {
          lastSeq = buffered[buffered.length - 1]!.seq;
          yield form.fromTail(buffered);
        } else {
          await tail.changed(signal);
        }
      }
    } finally {
      release(sessionId, entry);
    }
  }

  const asEvents: BatchForm<SessionEvent[]> = {
    async read(sessionId, afterSeq, limit) {
      const events = await readEvents(db, sessionId, afterSeq, limit);
      return { batch: events, count: events.length, lastSeq: events.at(-1)?.seq ?? afterSeq };
    },
    fromTail: (events) => events,
    // Readers of objects mostly start near the head (a turn's stream, a wait): reading ahead would be waste.
    readAhead: false,
  };

  const asFrames: BatchForm<FrameBatch> = {
    async read(sessionId, afterSeq, limit) {
      const page = await readEventFrames(db, sessionId, afterSeq, limit);
      return { batch: page, count: page.count, lastSeq: page.lastSeq };
    },
    // The tail's events are shared by every reader of the session; sseFrame serializes each once.
    fromTail(events) {
      let text = '';
      for (const event of events) text += sseFrame(event);
      return { text, count: events.length, lastSeq: events[events.length - 1]!.seq };
    },
    // A replay: its pages cost PostgreSQL time that can overlap with writing the one before.
    readAhead: true,
  };

  function follow(sessionId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<SessionEvent[], void, undefined>;
  function follow(sessionId: string, afterSeq: number, signal: AbortSignal, form: 'frames'): AsyncGenerator<FrameBatch, void, undefined>;
  function follow(
    sessionId: string,
    afterSeq: number,
    signal: AbortSignal,
    form?: 'frames',
  ): AsyncGenerator<SessionEvent[] | FrameBatch, void, undefined> {
    return form === 'frames' ? run(sessionId, afterSeq, signal, asFrames) : run(sessionId, afterSeq, signal, asEvents);
  }

  return {
    follow,
    stats() {
      let readers = 0;
      let bufferedEvents = 0;
      let bufferedBytes = 0;
      for (const entry of followed.values()) {
        readers += entry.readers;
        bufferedEvents += entry.tail.buffered.events;
        bufferedBytes += entry.tail.buffered.bytes;
      }
      return { sessions: followed.size, readers, bufferedEvents, bufferedBytes };
    },
  };
}
