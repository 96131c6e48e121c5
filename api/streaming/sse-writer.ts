// An SSE response held open: its headers, a keep-alive comment on a timer, writes that honour
// backpressure (a slow client holds its own stream back, not the process's memory), and one signal for
// the client gone. Every event stream of the API opens its response through it.
import type { Response } from 'express';
import { onClientGone } from './client-gone.ts';
import { sseConnectionsOpen } from '../../lib/metrics/http-metrics.ts';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx and similar proxies buffer responses unless told not to.
  'x-accel-buffering': 'no',
};

export interface EventStreamWriter {
  /** Aborted when the client leaves or the stream is closed. */
  readonly closed: AbortSignal;
  /** Whether nothing more can reach the client. */
  gone(): boolean;
  /** Writes SSE text, waiting for the client to drain its buffer first when it is full. */
  write(chunk: string): Promise<void>;
  /** Ends the response (the stream is complete); the caller still calls release(). */
  end(): void;
  /** Stops the heartbeat and the listening: once, when the stream is over however it ended. */
  release(): void;
}

export function openEventStream(res: Response, heartbeatMs: number): EventStreamWriter {
  const closed = new AbortController();
  const gone = () => closed.signal.aborted || res.destroyed || res.writableEnded || !res.socket || res.socket.destroyed;
  const stopListening = onClientGone(res, () => closed.abort());
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  sseConnectionsOpen.inc();
  const heartbeat = setInterval(() => {
    // Skipped while backpressured: the client is evidently still connected and the buffer is full.
    if (!gone() && !res.writableNeedDrain) res.write(': keep-alive\n\n');
  }, heartbeatMs);
  let released = false;
  return {
    closed: closed.signal,
    gone,
    async write(chunk) {
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
    },
    end() {
      if (!gone()) res.end();
    },
    release() {
      if (released) return;
      released = true;
      sseConnectionsOpen.dec();
      closed.abort();
      clearInterval(heartbeat);
      stopListening();
    },
  };
}
