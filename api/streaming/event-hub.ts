// One LISTEN connection per API process, shared by every event stream it serves. A wake says "look
// again", and may bring the appended events themselves (store/event-notices.ts): a session tail that
// holds everything before them takes them as they are, any other reads PostgreSQL after its last seq.
// So a wake that is lost, doubled or late costs a query, never an event. That is why a dropped
// connection needs no replay of what was missed: after re-LISTENing, every subscriber is woken and
// catches up by itself.
// Event streams follow sessions through the hub's feed (api/streaming/event-feed.ts): at most one read per
// session per wake, shared by every stream of that session in this process.
import type { Logger } from '../../lib/logger.ts';
import type { Db } from '../../store/db.ts';
import { EVENTS_CHANNEL, lastSeqsOf } from '../../store/events.ts';
import { LISTENER_QUERY_TIMEOUT_MS, openListener } from '../../store/listener.ts';
import { withTimeout } from '../../lib/with-timeout.ts';
import { noticeId, parseEventNotice } from '../../store/event-notices.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { createEventFeed, type EventFeed, type Wake } from './event-feed.ts';
import type { TailLimits } from './session-tail.ts';

export interface EventHub extends EventFeed {
  /**
   * Calls `onWake` whenever `sessionId` may have new events, with them when the notice brought them;
   * returns the unsubscribe function.
   */
  subscribe(sessionId: string, onWake: Wake): () => void;
  close(): Promise<void>;
}

export interface EventHubOptions {
  databaseUrl: string;
  /** The pool the feed reads events with. */
  db: Db;
  logger: Logger;
  /** The bounds of each session's shared buffer of recent events. */
  tailLimits?: TailLimits;
  /** Shown in pg_stat_activity, so operators (and tests) can find the LISTEN connection. */
  applicationName?: string;
  /** How often to compare sessions.last_seq with what was announced, for NOTIFYs that never came. */
  safetyPollMs?: number;
  /** Reconnect delays: doubling from `minMs` up to `maxMs`, with jitter. */
  backoff?: { minMs: number; maxMs: number };
}

const DEFAULT_APPLICATION_NAME = 'agent-service-events';
const DEFAULT_SAFETY_POLL_MS = 5_000;

export async function createEventHub(options: EventHubOptions): Promise<EventHub> {
  const { logger } = options;
  const log = logger.child({ component: 'event-hub' });
  const safetyPollMs = options.safetyPollMs ?? DEFAULT_SAFETY_POLL_MS;
  const subscribers = new Map<string, Set<Wake>>();
  // The highest seq each watched session has been woken for (by NOTIFY or by the poll). The poll
  // wakes a session only when last_seq went beyond it: all idle streams together cost one query.
  const announced = new Map<string, number>();
  let polling = false;

  function wake(sessionId: string, events?: readonly SessionEvent[]): void {
    for (const onWake of [...(subscribers.get(sessionId) ?? [])]) {
      try {
        onWake(events);
      } catch (error) {
        log.error({ err: error, sessionId }, 'event subscriber failed');
      }
    }
  }

  function wakeAll(): void {
    announced.clear();
    for (const sessionId of [...subscribers.keys()]) wake(sessionId);
  }

  function noteSeq(sessionId: string, seq: number): boolean {
    const known = announced.get(sessionId);
    if (known !== undefined && seq <= known) return false;
    if (subscribers.has(sessionId)) announced.set(sessionId, seq);
    return true;
  }

  function onNotification(payload: string): void {
    // Only the id is read for a session nobody here follows: most notices are for other processes' readers.
    if (!subscribers.has(noticeId(payload))) return;
    const notice = parseEventNotice(payload);
    if (Number.isFinite(notice.lastSeq)) noteSeq(notice.id, notice.lastSeq);
    wake(notice.id, notice.events);
  }

  // The API still starts when PostgreSQL is down (its health check reports it); streams catch up once it listens.
  const listener = await openListener({
    databaseUrl: options.databaseUrl,
    channel: EVENTS_CHANNEL,
    applicationName: options.applicationName ?? DEFAULT_APPLICATION_NAME,
    logger: log,
    onNotification,
    // Anything committed while we were deaf was announced to nobody: everyone re-reads.
    onRestored: wakeAll,
    ...(options.backoff ? { backoff: options.backoff } : {}),
  });

  /** Wakes sessions whose last_seq moved past what was announced: covers NOTIFYs that never arrived. */
  async function poll(): Promise<void> {
    const current = listener.client;
    if (!current || polling || subscribers.size === 0) return;
    polling = true;
    try {
      // One that takes too long means the connection is dead, even if TCP has not noticed.
      const rows = await withTimeout(lastSeqsOf(current, [...subscribers.keys()]), LISTENER_QUERY_TIMEOUT_MS, 'The safety poll');
      for (const row of rows) if (noteSeq(row.sessionId, row.lastSeq)) wake(row.sessionId);
    } catch (error) {
      listener.lost(current, error);
    } finally {
      polling = false;
    }
  }

  const pollTimer = setInterval(() => void poll(), safetyPollMs);
  pollTimer.unref();

  function subscribe(sessionId: string, onWake: Wake): () => void {
    let set = subscribers.get(sessionId);
    if (!set) subscribers.set(sessionId, (set = new Set()));
    // A wrapper per call, so subscribing the same function twice needs two unsubscribes.
    const entry: Wake = (events) => onWake(events);
    set.add(entry);
    return () => {
      const current = subscribers.get(sessionId);
      if (!current?.delete(entry) || current.size > 0) return;
      subscribers.delete(sessionId);
      announced.delete(sessionId);
    };
  }
  const feed = createEventFeed({ db: options.db, subscribe, logger, ...(options.tailLimits ? { limits: options.tailLimits } : {}) });

  return {
    subscribe,
    follow: feed.follow,
    stats: feed.stats,
    async close() {
      clearInterval(pollTimer);
      await listener.close();
    },
  };
}
