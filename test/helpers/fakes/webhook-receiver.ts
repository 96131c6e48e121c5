// A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request (raw
// body, headers, arrival time) and answers with scripted statuses, 200 once the script runs out.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, waitForCount } from './recorded.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Answers for the next requests, in order. */
  enqueue(...answers: Array<number | Answer>): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const script: Answer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const answer = script.shift() ?? { status: 200 };
      res.writeHead(answer.status, answer.headers).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    enqueue(...answers) {
      script.push(...answers.map((answer) => (typeof answer === 'number' ? { status: answer } : answer)));
    },
    waitForRequests(count, timeoutMs = 20_000) {
      return waitForCount(requests, count, timeoutMs, 'the receiver');
    },
    close: () => closeServer(server),
  };
}
