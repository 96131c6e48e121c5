// Timing HTTP requests and summarising latencies. Requests go one at a time over one keep-alive
// socket, so a figure is the latency of a request, not of connection set-up or of queueing.
import http from 'node:http';

export interface Latency {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  minMs: number;
  maxMs: number;
}

/** Nearest-rank percentile of ascending `sorted`: the smallest sample with at least `q` of them at or below it. */
function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

export function summarize(samplesMs: readonly number[]): Latency {
  if (!samplesMs.length) throw new Error('summarize: no samples');
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length;
  return {
    p50Ms: round(percentile(sorted, 0.5)),
    p90Ms: round(percentile(sorted, 0.9)),
    p99Ms: round(percentile(sorted, 0.99)),
    meanMs: round(mean),
    minMs: round(sorted[0]!),
    maxMs: round(sorted[sorted.length - 1]!),
  };
}

export function keepAliveAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 1 });
}

/**
 * One GET, timed from the call to the last byte of the body. Anything but 200 throws: a benchmark
 * that silently measured 401s or 429s would report a fast, meaningless number.
 */
export function timedGet(agent: http.Agent, url: string, headers: http.OutgoingHttpHeaders = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.get(url, { agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (response.statusCode === 200) resolve(ms);
        else reject(new Error(`GET ${url} answered ${response.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`));
      });
    });
    request.on('error', reject);
  });
}
