// Authenticated `GET /key` through the real API (trace id, auth, PostgreSQL-backed rate limiter, key
// listing, request log) beside a bare Express 5 route, measured the same way in the same run. The
// ratio is the figure to compare across runs: the machine, the client and the loopback cancel out.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { startBenchApi } from './bench-api.ts';
import type { Benchmark } from './benchmark.ts';
import { keepAliveAgent, summarize, timedGet } from './measure.ts';

const REQUESTS = 2_000;
const WARMUP = 200;
/** The two targets take turns in blocks, so a slow spell of the machine hits both alike. */
const BLOCK = 100;

async function listen(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `count` requests of each target, alternating blocks; returns each target's latencies. */
async function alternate(targets: Array<() => Promise<number>>, count: number): Promise<number[][]> {
  const samples = targets.map((): number[] => []);
  for (let done = 0; done < count; done += BLOCK) {
    for (const [index, target] of targets.entries()) {
      for (let i = 0; i < Math.min(BLOCK, count - done); i++) samples[index]!.push(await target());
    }
  }
  return samples;
}

const keysLatency: Benchmark = {
  name: 'keys-latency',
  description: `authenticated GET /key beside a bare Express route, ${REQUESTS} sequential keep-alive requests each`,
  needs: ['postgres'],
  async run({ infra, log }) {
    // GET /key does not use Temporal: the client is never dialled.
    const api = await startBenchApi(infra);
    const bareApp = express();
    bareApp.get('/bare', (_req, res) => res.json({ ok: true }));
    const bare = await listen(bareApp).catch(async (error: unknown) => {
      await api.close();
      throw error;
    });

    try {
      const headers = api.auth;
      const listing = (await (await fetch(`${api.url}/key`, { headers })).json()) as { keys?: unknown[] };
      if (listing.keys?.length !== 1) throw new Error(`GET /key did not list the bench key: ${JSON.stringify(listing)}`);

      const apiAgent = keepAliveAgent();
      const bareAgent = keepAliveAgent();
      const targets = [() => timedGet(apiAgent, `${api.url}/key`, headers), () => timedGet(bareAgent, `${bare.url}/bare`)];
      log(`warming up (${WARMUP} requests each)`);
      await alternate(targets, WARMUP);
      log(`measuring (${REQUESTS} requests each)`);
      const [apiSamples, bareSamples] = await alternate(targets, REQUESTS);
      apiAgent.destroy();
      bareAgent.destroy();

      const apiLatency = summarize(apiSamples!);
      const bareLatency = summarize(bareSamples!);
      const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
      return {
        requests: REQUESTS,
        warmup: WARMUP,
        method: `sequential, one keep-alive socket per target, alternating blocks of ${BLOCK}`,
        api: { route: 'GET /key', ...apiLatency },
        bare: { route: 'GET /bare', ...bareLatency },
        ratioP50: ratio(apiLatency.p50Ms, bareLatency.p50Ms),
        ratioP99: ratio(apiLatency.p99Ms, bareLatency.p99Ms),
        ratioMean: ratio(apiLatency.meanMs, bareLatency.meanMs),
      };
    } finally {
      await bare.close();
      await api.close();
    }
  },
};

export default keysLatency;
