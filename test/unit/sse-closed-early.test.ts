// A client that hangs up before its event stream starts (while the route still reads the session) must
// not leave the stream following the session: the response's 'close' has come and gone, so nothing
// else would ever end it, and an idle session would hold its subscription, heartbeat and gauge for good.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import { expect, test } from 'vitest';
import { streamEvents, type StreamEnd } from '../../api/streaming/sse.ts';
import type { EventHub } from '../../api/streaming/event-hub.ts';

/** A hub whose session never gets another event: its follow ends only when its signal aborts. */
const idleHub = {
  async *follow(_sessionId: string, _afterSeq: number, signal: AbortSignal): AsyncGenerator<never, void, undefined> {
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    yield* [];
  },
} as unknown as EventHub;

test('a stream whose client left before it started ends at once', async () => {
  let ended: Promise<StreamEnd> | undefined;
  const started = new Promise<void>((resolve) => {
    const server = http.createServer((req, res) => {
      // The route's own reads take a moment; the client is gone before the stream starts.
      res.once('close', () => {
        const log = { warn: () => undefined };
        ended = streamEvents({
          req: Object.assign(req, { log }) as unknown as Request,
          res: res as unknown as Response,
          hub: idleHub,
          sessionId: 'ses_x',
          afterSeq: 0,
          heartbeatMs: 50,
        });
        server.close();
        resolve();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
        socket.write('GET /session/ses_x/events HTTP/1.1\r\nhost: x\r\naccept: text/event-stream\r\n\r\n');
        setTimeout(() => socket.destroy(), 50);
      });
    });
  });
  await started;
  const outcome = await Promise.race([ended!, new Promise((resolve) => setTimeout(() => resolve('still following'), 1_000))]);
  expect(outcome).toEqual({ lastSeq: 0, reason: 'client-closed' });
});
