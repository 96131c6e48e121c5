// Figure (c) of the performance issue: many streams at once. N sessions each get one async send,
// the fake model streams 120 tokens 50 ms apart for each, all N started together after every
// reader is subscribed; per token, the lag from the fake writing it to the reader receiving the
// delta that completes it, and per stream, the terminal event after the last token. N = 50, then
// 200. API and worker run as two child processes, as in production; the fake model and the readers
// stay in this process, so a token's write and its receipt are timed on one clock. The baseline,
// measured in the same run with the same fake, readers and N: an in-memory relay in a child process
// of its own (bench/concurrent-streams-relay.ts), what a server that keeps streams in memory adds.
import { lastUserText, startFakeModel, type FakeModel, type FakeScript } from '../test/helpers/fakes/fake-model.ts';
import type { Benchmark } from './benchmark.ts';
import { startBaseline, type BaselineTarget } from './concurrent-streams-baseline.ts';
import { streamRound, type RoundResult, type StreamTarget } from './concurrent-streams-round.ts';
import { startService, type ServiceTarget } from './concurrent-streams-service.ts';
import { summarize } from './measure.ts';

const TOKENS = 120;
const CHUNK_DELAY_MS = 50;
const CONCURRENCY = [50, 200];
const WARMUP_STREAMS = 5;
const ROUND_TIMEOUT_MS = 120_000;

const round = (value: number) => Math.round(value * 100) / 100;

/** Whether PostgreSQL runs on this machine, so that an event's stored `at` is on this machine's clock. */
function databaseIsLocal(databaseUrl: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]', ''].includes(new URL(databaseUrl).hostname);
  } catch {
    return false;
  }
}

function describe(result: RoundResult) {
  const endLag = summarize(result.endLags);
  const deltaEvents = result.deltaEvents.reduce((sum, count) => sum + count, 0) / result.deltaEvents.length;
  return {
    lagMs: summarize(result.lags),
    // Empty when the last stream began after the others ended (no moment with all of them running).
    steadyLagMs: result.steadyLags.length ? { tokens: result.steadyLags.length, ...summarize(result.steadyLags) } : null,
    streamEndMs: { p50Ms: endLag.p50Ms, p99Ms: endLag.p99Ms, maxMs: endLag.maxMs },
    deltaEventsPerStream: round(deltaEvents),
    tokensPerDeltaEvent: round(TOKENS / deltaEvents),
    startSpreadMs: round(result.startSpreadMs),
    peakConcurrentStreams: result.peakConcurrentStreams,
    wallMs: round(result.wallMs),
    cpuCores: result.cores,
    ...(result.untilWriteTransaction
      ? {
          split: {
            untilWriteTransactionMs: summarize(result.untilWriteTransaction),
            fromWriteTransactionToReaderMs: summarize(result.fromWriteTransactionToReader!),
          },
        }
      : {}),
  };
}

async function measureAt(
  streams: number,
  service: StreamTarget,
  baseline: StreamTarget,
  scripts: Map<string, FakeScript>,
  storedAt: boolean,
  log: (line: string) => void,
) {
  const options = { streams, tokens: TOKENS, chunkDelayMs: CHUNK_DELAY_MS, scripts, timeoutMs: ROUND_TIMEOUT_MS };
  const ours = await streamRound(service, { ...options, tag: `o${streams}`, storedAt });
  const oursLag = summarize(ours.lags);
  const steady = ours.steadyLags.length ? summarize(ours.steadyLags) : undefined;
  log(
    `${streams} streams, service: lag p50 ${oursLag.p50Ms.toFixed(1)} ms, p99 ${oursLag.p99Ms.toFixed(1)} ms` +
      (steady ? `; once all ${streams} stream: p50 ${steady.p50Ms.toFixed(1)} ms, p99 ${steady.p99Ms.toFixed(1)} ms` : ''),
  );
  const base = await streamRound(baseline, { ...options, tag: `b${streams}`, storedAt: false });
  const baseLag = summarize(base.lags);
  log(`${streams} streams, relay: lag p50 ${baseLag.p50Ms.toFixed(1)} ms, p99 ${baseLag.p99Ms.toFixed(1)} ms`);
  const baseEnd = summarize(base.endLags);
  const oursEnd = summarize(ours.endLags);
  return {
    ours: describe(ours),
    baseline: describe(base),
    ratio: {
      lagP50: round(oursLag.p50Ms / baseLag.p50Ms),
      lagP99: round(oursLag.p99Ms / baseLag.p99Ms),
      streamEndP50: round(oursEnd.p50Ms / baseEnd.p50Ms),
      streamEndP99: round(oursEnd.p99Ms / baseEnd.p99Ms),
    },
  };
}

const concurrentStreams: Benchmark = {
  name: 'concurrent-streams',
  description: `${CONCURRENCY.join(' then ')} concurrent streams of ${TOKENS} tokens ${CHUNK_DELAY_MS} ms apart: token lag at SSE readers, API and worker as child processes, vs an in-memory relay`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    // Each request is answered with the script its user text names: the N requests of a round arrive in any order.
    const scripts = new Map<string, FakeScript>();
    const unknown: string[] = [];
    let fake: FakeModel | undefined;
    let service: ServiceTarget | undefined;
    let baselineStarting: Promise<BaselineTarget> | undefined;
    try {
      fake = await startFakeModel();
      fake.setHandler((request) => {
        const text = lastUserText(request) ?? '';
        const script = scripts.get(text);
        if (!script) unknown.push(text);
        return script ?? { text: 'unexpected request' };
      });
      log('starting the API and the worker (child processes) and the relay');
      baselineStarting = startBaseline(fake.baseUrl, infra.scratchDir);
      // Awaited (and stopped) below even if the service fails to start first.
      baselineStarting.catch(() => undefined);
      service = await startService(infra, fake.baseUrl, log);
      const baseline = await baselineStarting;
      const storedAt = databaseIsLocal(infra.databaseUrl());

      log(`warm-up: ${WARMUP_STREAMS} streams on each`);
      const warmup = {
        streams: WARMUP_STREAMS,
        tokens: TOKENS,
        chunkDelayMs: CHUNK_DELAY_MS,
        scripts,
        timeoutMs: ROUND_TIMEOUT_MS,
        storedAt: false,
      };
      await streamRound(service, { ...warmup, tag: 'wo' });
      await streamRound(baseline, { ...warmup, tag: 'wb' });

      const results: Record<string, unknown> = {};
      for (const streams of CONCURRENCY) results[`streams${streams}`] = await measureAt(streams, service, baseline, scripts, storedAt, log);
      if (unknown.length)
        throw new Error(`the fake was asked ${unknown.length} request(s) no script answers, e.g. ${JSON.stringify(unknown[0])}`);
      return {
        tokensPerStream: TOKENS,
        chunkDelayMs: CHUNK_DELAY_MS,
        scheduledStreamMs: (TOKENS - 1) * CHUNK_DELAY_MS,
        warmupStreams: WARMUP_STREAMS,
        deltaFlushMs: service.deltaFlushMs,
        method:
          'per N: N fresh sessions, a reader on GET /session/<id>/events?after=<lastSeq> each, opened first; then N async sends ' +
          '(POST /session/<id>?async=1) at once, one socket each; the fake streams each session its own tokens. Per token: ' +
          'arrival at the reader of the message.part.delta completing it minus the fake writing it (performance.now() in this ' +
          'process). Stream end: terminal event at the reader minus the last token written. API and worker: one child process ' +
          'each (NODE_ENV=production, pools of 10, logs at info to a file); fake model and readers: this process. Baseline: the ' +
          'same round through an in-memory relay child process (POST -> streamed Chat Completions from the same fake -> each ' +
          "content delta at once as SSE to the readers). ratio = ours / baseline. cpuCores: CPU time over the round's wall " +
          'time, for the whole machine and per process (api, worker, and temporal and postgres, its backends included, ' +
          'when started for the run). startSpreadMs / ' +
          'peakConcurrentStreams: how far apart the fake began the streams, and the most it was streaming at one moment. ' +
          'steadyLagMs: the lag of the tokens written after the last stream began, when no turn was being started. ' +
          "split (ours only, when PostgreSQL is local): the event's stored `at` is its write transaction's start (ms precision).",
        ...results,
        childLogWarnings: service.logWarnings(),
      };
    } finally {
      await service?.close().catch((error: unknown) => log(`stopping the service failed: ${(error as Error).message}`));
      const baseline = await baselineStarting?.catch(() => undefined);
      await baseline?.close().catch((error: unknown) => log(`stopping the relay failed: ${(error as Error).message}`));
      await fake?.close();
    }
  },
};

export default concurrentStreams;
