// Serves a process's metrics in the Prometheus text format on a port of its own (METRICS_PORT for the
// API, WORKER_METRICS_PORT for a worker), bound to METRICS_HOST (127.0.0.1 unless set): never on the
// API's public port, so no key of the API reaches them and no proxy in front of the API exposes them.
import http from 'node:http';
import { collectDefaultMetrics, register } from 'prom-client';
import type { Logger } from '../logger.ts';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  host: string;
  port: number;
  logger: Logger;
  /** More exposition text appended to ours (the Temporal SDK's own metrics, in a worker). */
  more?: () => Promise<string>;
}

let defaultsCollected = false;

export async function serveMetrics(options: MetricsServerOptions): Promise<MetricsServer> {
  if (!defaultsCollected) {
    // Node's own: CPU, memory, event loop lag, garbage collection.
    collectDefaultMetrics({ prefix: 'agent_service_' });
    defaultsCollected = true;
  }
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are served at /metrics\n');
      return;
    }
    void exposition(options.more).then(
      (text) => res.writeHead(200, { 'content-type': register.contentType }).end(text),
      (error: unknown) => {
        options.logger.warn({ err: error }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected; the log says why.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}/metrics`;
  options.logger.info({ url }, 'metrics served');
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function exposition(more: (() => Promise<string>) | undefined): Promise<string> {
  const ours = await register.metrics();
  if (!more) return ours;
  const theirs = await more();
  return `${ours.endsWith('\n') ? ours : `${ours}\n`}${theirs}`;
}
