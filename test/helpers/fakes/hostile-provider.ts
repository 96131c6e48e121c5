// A model provider a tenant points their OPENAI_COMPATIBLE_BASE_URL secret at to hurt the worker
// that calls it. The first path segment picks the answer, so one server serves every kind:
// `${url}/endless-line/v1`, `${url}/gzip-bomb/v1`, `${url}/huge-error/v1`. Each writes with
// backpressure, so this process holds one chunk at a time, and stops when the client goes away.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

export type HostileAnswer = 'endless-line' | 'gzip-bomb' | 'huge-error';

export interface HostileProvider {
  /** A base URL (with `/v1`) whose every request gets `answer`. */
  baseUrl(answer: HostileAnswer): string;
  /** Requests received, by answer. */
  requests: Record<HostileAnswer, number>;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
/** What each answer sends in all (decompressed, for the bomb): far past any limit the worker has. */
export const HOSTILE_BYTES: Record<HostileAnswer, number> = { 'endless-line': 200 * MiB, 'gzip-bomb': 1024 * MiB, 'huge-error': 200 * MiB };
const FILL = Buffer.alloc(MiB, 'a');

export async function startHostileProvider(): Promise<HostileProvider> {
  const requests: Record<HostileAnswer, number> = { 'endless-line': 0, 'gzip-bomb': 0, 'huge-error': 0 };
  const server = createServer((req, res) => {
    const answer = req.url?.split('/')[1] as HostileAnswer;
    req.resume();
    if (!(answer in requests)) {
      res.writeHead(404).end();
      return;
    }
    requests[answer]++;
    if (answer === 'huge-error') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      void pour(res, res, Buffer.alloc(0), HOSTILE_BYTES[answer]);
    } else if (answer === 'endless-line') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void pour(res, res, Buffer.from('data: '), HOSTILE_BYTES[answer]);
    } else {
      // One event-stream line of a GiB, gzipped to about a MiB, sent although nobody asked for gzip.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      const gzip = zlib.createGzip({ level: 9 });
      gzip.pipe(res);
      res.on('close', () => gzip.destroy());
      void pour(gzip, res, Buffer.from('data: '), HOSTILE_BYTES[answer]);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: (answer) => `http://127.0.0.1:${port}/${answer}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `head`, then `total` bytes of filler, into `into`, waiting for drain; stops once `res` closes. */
async function pour(into: NodeJS.WritableStream, res: ServerResponse, head: Buffer, total: number): Promise<void> {
  let closed = false;
  res.on('close', () => (closed = true));
  if (head.length) into.write(head);
  for (let sent = 0; sent < total && !closed; sent += FILL.length) {
    if (!into.write(FILL))
      await new Promise<void>((resolve) => {
        const done = () => {
          into.removeListener('drain', done);
          res.removeListener('close', done);
          resolve();
        };
        into.on('drain', done);
        res.on('close', done);
      });
  }
  if (!closed) into.end();
}
