// One LISTEN connection per API process, shared by every event stream it serves. A wake says "look
// again", and may bring the appended events themselves (store/event-notices.ts): a session tail that
// holds everything before them takes them as they are, any other reads PostgreSQL after its last seq.
// So a wake that is lost, doubled or late costs a query, never an event. That is why a dropped
// connection needs no replay of what was missed: after re-LISTENing, every subscriber is woken and
// catches up by itself.
// Event streams follow sessions through the hub's feed (api/streaming/event-feed.ts): one read per session per
// wake, shared by every stream of that session in this process.
import pg from 'pg';
import type { Logger } from '../../lib/logger.ts';
import type { Db } from '../../store/db.ts';
import { EVENTS_CHANNEL, lastSeqsOf, listenForEvents } from '../../store/events.ts';
import { parseEventNotice } from '../../store/event-notices.ts';
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
const DEFAULT_BACKOFF = { minMs: 100, maxMs: 5_000 };
/** A poll that takes longer than this means the connection is dead, even if TCP has not noticed. */
const POLL_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;
const CLOSE_TIMEOUT_MS = 1_000;

export async function createEventHub(options: EventHubOptions): Promise<EventHub> {
  const { logger } = options;
  const log = logger.child({ component: 'event-hub' });
  const safetyPollMs = options.safetyPollMs ?? DEFAULT_SAFETY_POLL_MS;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const subscribers = new Map<string, Set<Wake>>();
  // The highest seq each watched session has been woken for (by NOTIFY or by the poll). The poll
  // wakes a session only when last_seq went beyond it: all idle streams together cost one query.
  const announced = new Map<string, number>();
  let client: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
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

  function onNotification(message: pg.Notification): void {
    if (message.channel !== EVENTS_CHANNEL || !message.payload) return;
    // Only the head is read for a session nobody here follows: most notices are for other processes' readers.
    const newline = message.payload.indexOf('\n');
    const head = newline === -1 ? message.payload : message.payload.slice(0, newline);
    const colon = head.lastIndexOf(':');
    if (!subscribers.has(colon === -1 ? head : head.slice(0, colon))) return;
    const notice = parseEventNotice(message.payload);
    if (!notice) return;
    if (Number.isFinite(notice.lastSeq)) noteSeq(notice.id, notice.lastSeq);
    wake(notice.id, notice.events);
  }

  async function connect(): Promise<pg.Client> {
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: options.applicationName ?? DEFAULT_APPLICATION_NAME,
      // Without keep-alives a silently dropped connection would look idle forever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // Registered before connecting: an 'error' without a listener would crash the process.
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('connection ended')));
    next.on('notification', onNotification);
    try {
      await next.connect();
      await listenForEvents(next);
    } catch (error) {
      discard(next);
      throw error;
    }
    return next;
  }

  /** Stops listening to a client without waiting for it: a half-open socket may never answer. */
  function discard(old: pg.Client): void {
    old.removeAllListeners('notification');
    old.removeAllListeners('end');
    old.removeAllListeners('error');
    old.on('error', () => undefined);
    old.end().catch(() => undefined);
  }

  function lost(which: pg.Client, error: unknown): void {
    if (which !== client || closed) return;
    client = undefined;
    discard(which);
    log.warn({ err: error }, 'LISTEN connection lost; reconnecting');
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer) return;
    const ceiling = Math.min(backoff.maxMs, backoff.minMs * 2 ** failures);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().then(
        (fresh) => {
          if (closed) {
            discard(fresh);
            return;
          }
          client = fresh;
          failures = 0;
          log.info('LISTEN connection restored');
          // Anything committed while we were deaf was announced to nobody: everyone re-reads.
          wakeAll();
        },
        (error: unknown) => {
          failures++;
          log.warn({ err: error, failures }, 'LISTEN reconnect failed');
          scheduleReconnect();
        },
      );
    }, delay);
    reconnectTimer.unref();
  }

  /** Wakes sessions whose last_seq moved past what was announced: covers NOTIFYs that never arrived. */
  async function poll(): Promise<void> {
    const current = client;
    if (!current || polling || subscribers.size === 0) return;
    polling = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`safety poll took over ${POLL_TIMEOUT_MS} ms`)), POLL_TIMEOUT_MS);
      });
      const rows = await Promise.race([lastSeqsOf(current, [...subscribers.keys()]), timeout]);
      for (const row of rows) if (noteSeq(row.sessionId, row.lastSeq)) wake(row.sessionId);
    } catch (error) {
      lost(current, error);
    } finally {
      clearTimeout(timer);
      polling = false;
    }
  }

  try {
    client = await connect();
  } catch (error) {
    // The API still starts (its health check reports PostgreSQL); streams catch up once we connect.
    failures++;
    log.warn({ err: error }, 'LISTEN connection failed; retrying');
    scheduleReconnect();
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
      if (closed) return;
      closed = true;
      clearInterval(pollTimer);
      clearTimeout(reconnectTimer);
      const last = client;
      client = undefined;
      if (!last) return;
      last.removeAllListeners('end');
      last.removeAllListeners('error');
      last.on('error', () => undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        last.end().catch(() => undefined),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
    },
  };
}
