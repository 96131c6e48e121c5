// What the SDK's turn stream adds per event: a send through `client.sessions.send()`, iterated with
// `for await`, beside raw `fetch` SSE readers of the same turn. Two comparisons, every event of the
// turn matched by seq:
// - the same bytes: the SDK's fetch is wrapped so that the send's answer is teed, one branch to the
//   SDK, one to the raw reader (bench/fetch-sse.ts). The difference is the SDK's alone: its SSE
//   parser, the turn filter, seq bookkeeping, the text accumulator and its async generators.
// - a second connection: a raw reader on GET /session/<id>/events opened before the send, as a
//   client following the session would. This one also holds what differs between the two answers
//   on the server (the send's stream filters the turn's events).
// The fake model streams TOKENS tokens CHUNK_DELAY_MS apart with DELTA_FLUSH_MS=1, so nearly every
// token is an event of its own: many events per turn, at a rate a fast model reaches.
import type { SessionEvent } from '../contract/events.ts';
import { Client, type FetchLike } from '../sdk/src/index.ts';
import { startAgentStack, type AgentStack } from './agent-stack.ts';
import type { Benchmark } from './benchmark.ts';
import { readFetchSse } from './fetch-sse.ts';
import { summarize } from './measure.ts';

const TOKENS = 400;
const CHUNK_DELAY_MS = 5;
const RUNS = 4;
const WARMUP_RUNS = 1;

interface RunResult {
  events: number;
  /** SDK arrival minus the raw reader's on the same bytes, per event. */
  sameBytes: number[];
  /** SDK arrival minus the raw reader's on GET /session/<id>/events, per event. */
  secondConnection: number[];
}

const TERMINAL = new Set(['turn.completed', 'turn.failed', 'turn.aborted']);

async function oneRun(stack: AgentStack, apiKey: string, sessionId: string, run: number): Promise<RunResult> {
  const tokens = Array.from({ length: TOKENS }, (_, i) => `r${run}t${i} `);
  stack.fake.enqueue({ text: tokens, chunkDelayMs: CHUNK_DELAY_MS });

  const teed = new Map<number, number>();
  const teeReads: Promise<number>[] = [];
  // The send's SSE answer is teed; anything else (a reconnection would be a GET) goes through as is.
  const teeFetch: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method !== 'POST' || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream'))
      return response;
    const [raw, forSdk] = response.body.tee();
    teeReads.push(readFetchSse(raw, (event, at) => void teed.set(event.seq, at)));
    return new Response(forSdk, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const client = new Client({ baseUrl: stack.url, apiKey, fetch: teeFetch, maxRetries: 0 });

  const { lastSeq } = await client.sessions.retrieve(sessionId);
  const following = await fetch(`${stack.url}/session/${sessionId}/events?after=${lastSeq}`, {
    headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' },
  });
  if (following.status !== 200 || !following.body) throw new Error(`GET events answered ${following.status}`);
  const second = new Map<number, number>();
  const secondRead = readFetchSse(following.body, (event, at) => {
    second.set(event.seq, at);
    return TERMINAL.has(event.type);
  });

  const sdk = new Map<number, number>();
  let end: SessionEvent | undefined;
  const stream = client.sessions.send(sessionId, `stream ${TOKENS} tokens`, {
    onReconnect: () => {
      throw new Error('the SDK reconnected: the run does not measure one stream');
    },
  });
  for await (const event of stream) {
    sdk.set(event.seq, performance.now());
    if (event.type === 'step.retry') throw new Error('the model step was retried; the run does not measure one stream');
    end = event;
  }
  await secondRead;
  await Promise.all(teeReads);
  if (end?.type !== 'turn.completed') throw new Error(`the turn ended with ${JSON.stringify(end)}`);
  if ((await stream.text()) !== tokens.join('')) throw new Error('the streamed text is not what the model sent');

  const sameBytes: number[] = [];
  const secondConnection: number[] = [];
  for (const [seq, at] of sdk) {
    const raw = teed.get(seq);
    const other = second.get(seq);
    if (raw === undefined || other === undefined) throw new Error(`event ${seq} reached the SDK but not every raw reader`);
    sameBytes.push(at - raw);
    secondConnection.push(at - other);
  }
  return { events: sdk.size, sameBytes, secondConnection };
}

const sdkStream: Benchmark = {
  name: 'sdk-stream',
  description: `added latency per event of the SDK's turn stream beside raw fetch SSE readers of the same turn (${TOKENS} tokens ${CHUNK_DELAY_MS} ms apart); ${RUNS} runs`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { env: { DELTA_FLUSH_MS: '1' } });
    try {
      const apiKey = String(stack.headers.authorization).slice('Bearer '.length);
      const sessionId = await stack.newSession(await stack.deployAgent());
      for (let run = 0; run < WARMUP_RUNS; run++) {
        log(`warm-up run ${run + 1}`);
        await oneRun(stack, apiKey, sessionId, -1 - run);
      }
      const results: RunResult[] = [];
      for (let run = 0; run < RUNS; run++) {
        const result = await oneRun(stack, apiKey, sessionId, run);
        log(
          `run ${run + 1}: ${result.events} events, same bytes p50 ${summarize(result.sameBytes).p50Ms.toFixed(3)} ms, ` +
            `second connection p50 ${summarize(result.secondConnection).p50Ms.toFixed(3)} ms`,
        );
        results.push(result);
      }
      return {
        tokensPerRun: TOKENS,
        chunkDelayMs: CHUNK_DELAY_MS,
        deltaFlushMs: 1,
        runs: RUNS,
        warmupRuns: WARMUP_RUNS,
        eventsPerRun: results.map((result) => result.events),
        method:
          'per event of the turn (by seq): performance.now() when the SDK yields it to for-await minus when a raw fetch reader ' +
          'parsed it, in this one process; negative: the SDK had it first',
        addedLatencySameBytes: summarize(results.flatMap((result) => result.sameBytes)),
        addedLatencyVsSecondConnection: summarize(results.flatMap((result) => result.secondConnection)),
      };
    } finally {
      await stack.close();
    }
  },
};

export default sdkStream;
