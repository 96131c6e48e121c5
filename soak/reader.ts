// A client following one session's events for the whole soak, as a dashboard would: GET
// /session/<id>/events as SSE, and after every break (its API killed, the balancer's connection reset)
// again with Last-Event-ID set to the last seq it received. It keeps everything the server sent, in
// order, without dropping repeats: a seq that is not the one after the last is a gap or a repeat.
import { setTimeout as sleep } from 'node:timers/promises';
import { readSse } from '../test/helpers/client/sse-parse.ts';
import type { SessionEvent } from '../contract/events.ts';
import type { SoakHttp } from './http.ts';

export interface Received {
  event: SessionEvent;
  /** performance.now() when it arrived. */
  at: number;
}

export interface SessionReader {
  sessionId: string;
  received: Received[];
  /** Seqs that came out of order: not the one after the last (a gap) or one seen already (a repeat). */
  outOfOrder: Array<{ expected: number; got: number }>;
  reconnects: number;
  /** What broke a connection other than a network break (an answer other than 200, say). */
  errors: string[];
  /** Resolves true once more than `count` events were received, false after `timeoutMs` without. */
  waitBeyond(count: number, timeoutMs: number): Promise<boolean>;
  lastSeq(): number;
  stop(): Promise<void>;
}

/** What fetch says when the connection under a body breaks. */
const NETWORK_BREAK = /terminated|fetch failed|socket|ECONNRESET|other side closed/i;
const RECONNECT_PAUSE_MS = 50;

export function followSession(http: SoakHttp, sessionId: string): SessionReader {
  const received: Received[] = [];
  const outOfOrder: SessionReader['outOfOrder'] = [];
  const waiters = new Set<() => void>();
  const stopped = new AbortController();
  let lastSeq = 0;
  let reconnects = 0;
  const errors: string[] = [];

  const loop = (async () => {
    while (!stopped.signal.aborted) {
      try {
        const response = await http.open(`/session/${sessionId}/events`, {
          headers: { accept: 'text/event-stream', ...(lastSeq > 0 ? { 'last-event-id': String(lastSeq) } : {}) },
          signal: stopped.signal,
        });
        if (response.status !== 200) throw new Error(`GET events answered ${response.status}: ${await response.text()}`);
        for await (const frame of readSse(response)) {
          const event = JSON.parse(frame.data) as SessionEvent;
          if (event.seq !== lastSeq + 1) outOfOrder.push({ expected: lastSeq + 1, got: event.seq });
          lastSeq = Math.max(lastSeq, event.seq);
          received.push({ event, at: performance.now() });
          for (const wake of [...waiters]) wake();
        }
      } catch (error) {
        if (stopped.signal.aborted) return;
        const message = String((error as Error)?.message ?? error);
        if (!NETWORK_BREAK.test(message)) errors.push(message);
      }
      if (stopped.signal.aborted) return;
      reconnects += 1;
      await sleep(RECONNECT_PAUSE_MS);
    }
  })();

  return {
    sessionId,
    received,
    outOfOrder,
    errors,
    get reconnects() {
      return reconnects;
    },
    lastSeq: () => lastSeq,
    waitBeyond(count, timeoutMs) {
      if (received.length > count) return Promise.resolve(true);
      return new Promise((resolve) => {
        const wake = () => {
          if (received.length <= count) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(true);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          resolve(false);
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    async stop() {
      stopped.abort();
      await loop.catch(() => undefined);
    },
  };
}
