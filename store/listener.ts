// A dedicated PostgreSQL connection LISTENing on one channel, kept open for the life of its process.
// A lost connection (an error, its end, or a caller that finds it dead) is replaced after a doubling,
// jittered delay; `onRestored` then tells the caller that what was announced meanwhile reached nobody.
// The API's event hub (api/streaming/event-hub.ts) and the worker's abort notices
// (activities/turn/abort-notices.ts) each hold one.
import pg from 'pg';
import type { Logger } from '../lib/logger.ts';
import { withTimeout } from '../lib/with-timeout.ts';

export interface ListenerOptions {
  databaseUrl: string;
  channel: string;
  /** Shown in pg_stat_activity, so operators (and tests) can find the connection. */
  applicationName: string;
  logger: Logger;
  onNotification: (payload: string) => void;
  /** Called once the connection listens again after it was lost, or after a first connect that failed. */
  onRestored?: () => void;
  /** Reconnect delays: doubling from `minMs` up to `maxMs`, with jitter. */
  backoff?: { minMs: number; maxMs: number };
  /**
   * How often to ask the connection a trivial query, for a caller that queries it no other way: a
   * half-open connection would otherwise go unnoticed until TCP keep-alive gives up (minutes).
   */
  checkEveryMs?: number;
}

export interface Listener {
  /** The connection while it listens; undefined while it is being replaced. */
  readonly client: pg.Client | undefined;
  /** The caller found `which` dead (a query on it timed out, say): replace it. */
  lost(which: pg.Client, error: unknown): void;
  close(): Promise<void>;
}

const DEFAULT_BACKOFF = { minMs: 100, maxMs: 5_000 };
/** A query that takes longer than this means the connection is dead, even if TCP has not noticed. */
export const LISTENER_QUERY_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;
const CLOSE_TIMEOUT_MS = 1_000;

/** Connects and listens; a first connection that fails is retried like a lost one (the caller starts all the same). */
export async function openListener(options: ListenerOptions): Promise<Listener> {
  const { logger: log } = options;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  let client: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;

  async function connect(): Promise<pg.Client> {
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: options.applicationName,
      // Without keep-alives a silently dropped connection would look idle forever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // Registered before connecting: an 'error' without a listener would crash the process.
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('connection ended')));
    next.on('notification', (message) => {
      if (message.channel !== options.channel || !message.payload) return;
      // Thrown here, in the socket's data handler, an error would take the whole process down.
      try {
        options.onNotification(message.payload);
      } catch (error) {
        log.error({ err: error, channel: options.channel }, 'a notification could not be handled');
      }
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(options.channel)}`);
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
    log.warn({ err: error, channel: options.channel }, 'LISTEN connection lost; reconnecting');
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
          log.info({ channel: options.channel }, 'LISTEN connection restored');
          options.onRestored?.();
        },
        (error: unknown) => {
          failures++;
          log.warn({ err: error, failures, channel: options.channel }, 'LISTEN reconnect failed');
          scheduleReconnect();
        },
      );
    }, delay);
    reconnectTimer.unref();
  }

  try {
    client = await connect();
  } catch (error) {
    failures++;
    log.warn({ err: error, channel: options.channel }, 'LISTEN connection failed; retrying');
    scheduleReconnect();
  }
  let checking = false;
  const checkTimer = options.checkEveryMs
    ? setInterval(() => {
        const current = client;
        if (!current || checking) return;
        checking = true;
        withTimeout(current.query('SELECT 1'), LISTENER_QUERY_TIMEOUT_MS, 'The LISTEN connection')
          .catch((error: unknown) => lost(current, error))
          .finally(() => (checking = false));
      }, options.checkEveryMs)
    : undefined;
  checkTimer?.unref();

  return {
    get client() {
      return client;
    },
    lost,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(reconnectTimer);
      clearInterval(checkTimer);
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
