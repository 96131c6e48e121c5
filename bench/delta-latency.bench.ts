// Added latency per streamed token: the fake model streams 500 tokens 5 ms apart and notes when it
// wrote each one; an SSE reader on GET /session/<id>/events notes when the message.part.delta that
// completes each token arrives. The difference is what the service adds between a provider's
// socket and a client's: the AI SDK's parsing, the delta batching window (DELTA_FLUSH_MS as
// configured), the event's transaction and NOTIFY, the API's read and framing. A second pass with
// a 1 ms window shows the pipeline without the batching.
import http from 'node:http';
import { loadConfig } from '../lib/config.ts';
import { TERMINAL_TURN_EVENTS, type SessionEvent } from '../contract/events.ts';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, type AgentStack } from './agent-stack.ts';
import { expectStatus, timedRequest } from './http-json.ts';
import { summarize } from './measure.ts';
import type { Infra } from './infra.ts';
import { readSse } from './sse-reader.ts';

const TOKENS = 500;
const CHUNK_DELAY_MS = 5;
const RUNS = 4;
const WARMUP_RUNS = 1;

interface RunResult {
  /** Added latency of each token, in order. */
  latencies: number[];
  deltaEvents: number;
  /** From the fake's first chunk to its last. */
  streamMs: number;
}

async function oneRun(stack: AgentStack, agent: http.Agent, sessionId: string, run: number): Promise<RunResult> {
  const tokens = Array.from({ length: TOKENS }, (_, i) => `r${run}t${i} `);
  const sentAt: number[] = [];
  stack.fake.enqueue({ text: tokens, chunkDelayMs: CHUNK_DELAY_MS, onChunk: (index, at) => (sentAt[index] = at) });

  const session = expectStatus(
    await timedRequest<{ lastSeq: number }>(agent, `${stack.url}/session/${sessionId}`, { headers: stack.headers, timeoutMs: 30_000 }),
    200,
    'GET /session/<id>',
  );
  const arrivals: Array<{ delta: string; at: number }> = [];
  let end: SessionEvent | undefined;
  let retried = false;
  const reader = readSse(`${stack.url}/session/${sessionId}/events?after=${session.lastSeq}`, stack.headers, {
    onEvent(event, at) {
      if (event.type === 'message.part.delta') arrivals.push({ delta: event.delta, at });
      if (event.type === 'step.retry') retried = true;
      if (TERMINAL_TURN_EVENTS.includes(event.type)) end = event;
    },
    until: (event) => TERMINAL_TURN_EVENTS.includes(event.type),
    timeoutMs: 60_000,
  });
  try {
    await reader.opened;
    const sent = await timedRequest<{ messageId: string }>(agent, `${stack.url}/session/${sessionId}?async=1`, {
      method: 'POST',
      headers: stack.headers,
      body: JSON.stringify({ parts: [{ type: 'text', text: `stream ${TOKENS} tokens` }] }),
      timeoutMs: 30_000,
    });
    const { messageId } = expectStatus(sent, 202, 'POST /session/<id>?async=1');
    await reader.done;
    if (end?.type !== 'turn.completed' || end.turnId !== messageId) throw new Error(`the turn ended with ${JSON.stringify(end)}`);
  } finally {
    reader.close();
  }
  // A retried step streams its text again: its timings would not be of one stream.
  if (retried) throw new Error('the model step was retried; the run does not measure one stream');
  const streamed = arrivals.map((arrival) => arrival.delta).join('');
  if (streamed !== tokens.join('')) throw new Error(`the deltas do not add up to the streamed text (${streamed.length} characters)`);
  if (sentAt.length !== TOKENS) throw new Error(`the fake reported ${sentAt.length} chunks, expected ${TOKENS}`);

  // Token i is complete once the deltas so far reach its last character.
  const latencies: number[] = [];
  let received = 0;
  let tokenEnd = 0;
  let token = 0;
  for (const arrival of arrivals) {
    received += arrival.delta.length;
    while (token < TOKENS && tokenEnd + tokens[token]!.length <= received) {
      tokenEnd += tokens[token]!.length;
      latencies.push(arrival.at - sentAt[token]!);
      token++;
    }
  }
  return { latencies, deltaEvents: arrivals.length, streamMs: sentAt[TOKENS - 1]! - sentAt[0]! };
}

const round = (value: number) => Math.round(value * 100) / 100;

async function measure(stack: AgentStack, log: (line: string) => void) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    const sessionId = await stack.newSession(await stack.deployAgent());
    for (let run = 0; run < WARMUP_RUNS; run++) {
      log(`warm-up run ${run + 1}`);
      await oneRun(stack, agent, sessionId, -1 - run);
    }
    const results: RunResult[] = [];
    for (let run = 0; run < RUNS; run++) {
      const result = await oneRun(stack, agent, sessionId, run);
      const p50 = summarize(result.latencies).p50Ms;
      log(`run ${run + 1}: ${result.deltaEvents} delta events, stream ${result.streamMs.toFixed(0)} ms, p50 ${p50.toFixed(1)} ms`);
      results.push(result);
    }
    const deltaEvents = results.reduce((sum, result) => sum + result.deltaEvents, 0);
    return {
      deltaFlushMs: stack.config.limits.deltaFlushMs,
      addedLatencyPerToken: summarize(results.flatMap((result) => result.latencies)),
      deltaEventsPerRun: round(deltaEvents / RUNS),
      tokensPerDeltaEvent: round((TOKENS * RUNS) / deltaEvents),
      streamMsPerRun: results.map((result) => round(result.streamMs)),
    };
  } finally {
    agent.destroy();
  }
}

/** The same measurement under another service configuration, each in a stack of its own. */
async function measureWith(infra: Infra, log: (line: string) => void, env: Record<string, string>) {
  const stack = await startAgentStack(infra, log, { env });
  try {
    return await measure(stack, log);
  } finally {
    await stack.close();
  }
}

const deltaLatency: Benchmark = {
  name: 'delta-latency',
  description: `added latency per token at an SSE reader, the fake streaming ${TOKENS} tokens ${CHUNK_DELAY_MS} ms apart; ${RUNS} runs`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    // DELTA_FLUSH_MS as configured (production's default unless the environment sets it).
    const configured = String(loadConfig().limits.deltaFlushMs);
    log(`DELTA_FLUSH_MS=${configured} (as configured)`);
    const asConfigured = await measureWith(infra, log, { DELTA_FLUSH_MS: configured });
    // With a 1 ms window nearly every token is its own event: what is left is the pipeline itself.
    log('DELTA_FLUSH_MS=1 (batching all but off)');
    const unbatched = await measureWith(infra, log, { DELTA_FLUSH_MS: '1' });
    return {
      tokensPerRun: TOKENS,
      chunkDelayMs: CHUNK_DELAY_MS,
      scheduledStreamMs: (TOKENS - 1) * CHUNK_DELAY_MS,
      runs: RUNS,
      warmupRuns: WARMUP_RUNS,
      method:
        'per token: arrival at the SSE reader of the message.part.delta completing it minus the moment the fake wrote it ' +
        '(performance.now() in this one process); async send, reader on GET /session/<id>/events opened first',
      ...asConfigured,
      withoutBatching: unbatched,
    };
  },
};

export default deltaLatency;
