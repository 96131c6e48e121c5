// Follows sessions' events for one API process. Every reader of a session shares one SessionTail,
// which reads PostgreSQL once per wake for all of them; a reader pages PostgreSQL itself only while
// it is behind that tail (a replay from an older Last-Event-ID, or a client too slow to keep up),
// then joins it. With 500 readers of a busy session, a delta costs one query, not 500.
import type { Db } from '../store/db.ts';
import { lastSeqOf, readEvents } from '../store/events.ts';
import type { SessionEvent } from '../lib/events.ts';
import type { Logger } from '../lib/logger.ts';
import { DEFAULT_TAIL_LIMITS, SessionTail, type TailLimits } from './session-tail.ts';

export interface EventFeed {
  /**
   * The events of `sessionId` with a seq above `afterSeq`, in order and each once, in batches, then
   * new ones as they are committed; ends when `signal` aborts. Pull the next batch only when the
   * previous one is written: that is the backpressure.
   */
  follow(sessionId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<SessionEvent[], void, undefined>;
  /** Sessions followed now, and what their tails buffer (for tests and metrics). */
  stats(): { sessions: number; readers: number; bufferedEvents: number; bufferedBytes: number };
}

export interface EventFeedOptions {
  db: Db;
  /** The hub's subscription: calls `onWake` when the session may have new events. */
  subscribe: (sessionId: string, onWake: () => void) => () => void;
  logger: Logger;
  limits?: TailLimits;
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

  function acquire(sessionId: string): Followed {
    let entry = followed.get(sessionId);
    if (!entry) {
      const tail = new SessionTail(
        (afterSeq, limit) => readEvents(db, sessionId, afterSeq, limit),
        limits,
        (error) => log.warn({ err: error, sessionId }, 'reading the session tail failed'),
      );
      // Subscribed before any reader's first read: an event committed after that read wakes the tail.
      entry = { tail, readers: 0, unsubscribe: options.subscribe(sessionId, () => tail.wake()) };
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

  return {
    async *follow(sessionId, afterSeq, signal) {
      const entry = acquire(sessionId);
      const { tail } = entry;
      try {
        let lastSeq = afterSeq;
        // Whether `lastSeq` is a position in the log (0, a seq read, or one the tail has reached): only such
        // a position may join the tail or position it. A start beyond them all is checked against PostgreSQL.
        let inLog = afterSeq === 0;
        while (!signal.aborted) {
          if (!inLog && tail.reached(lastSeq)) inLog = true;
          const buffered = inLog ? tail.after(lastSeq) : undefined;
          if (buffered === undefined) {
            const changes = tail.changes;
            const page = await readEvents(db, sessionId, lastSeq, limits.pageSize);
            if (page.length > 0) {
              lastSeq = page[page.length - 1]!.seq;
              inLog = true;
            } else if (!inLog) {
              // A start beyond the end of the log is taken as its end: this reader gets what comes next.
              lastSeq = Math.min(lastSeq, await lastSeqOf(db, sessionId));
              inLog = true;
            }
            // The end of the log as of this read: from here the tail serves this reader.
            if (page.length < limits.pageSize) tail.caughtUp(lastSeq);
            if (page.length > 0) yield page;
            // Nothing to read, yet the tail is beyond this reader: reading again at once would spin, so
            // wait for the tail to move (at once if it moved during the read).
            else if (tail.after(lastSeq) === undefined) await tail.changed(signal, changes);
          } else if (buffered.length > 0) {
            lastSeq = buffered[buffered.length - 1]!.seq;
            yield buffered;
          } else {
            await tail.changed(signal);
          }
        }
      } finally {
        release(sessionId, entry);
      }
    },
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
