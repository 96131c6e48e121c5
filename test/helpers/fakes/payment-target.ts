// A target for a tool that acts (the http tool POSTing a payment): a real HTTP server on 127.0.0.1 that
// records every request body, so a test can tell whether, and how often, the action ran.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './recorded.ts';

export interface PaymentTarget {
  /** The URL to POST to. */
  url: string;
  /** Every body received, in order. */
  received: string[];
  close(): Promise<void>;
}

export async function startPaymentTarget(): Promise<PaymentTarget> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`paid: ${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pay`,
    received,
    close: () => closeServer(server),
  };
}
