// How soon a turn that waits on `ask_my_user` resumes once the user answers, as a client watching
// the session sees it. The answer's 200 means "recorded", not "resumed": after it, the approval
// workflow completes, its parent turn workflow gets the child's result, records the tool result,
// and starts the next model step. A user who clicks "yes" waits for exactly that, so it is timed
// from the moment the answer's 200 is complete at the client to the arrival on a live SSE stream
// (GET /session/<id>/events, Last-Event-ID) of
//   - the `tool.result` of the tool call (the turn has resumed),
//   - the next model output: the assistant's `message.created` or first `message.part.delta`
//     after that tool result (the next step has started),
//   - the first `message.part.delta` alone (what a reader first sees as text; it includes the
//     DELTA_FLUSH_MS batching window),
//   - `turn.completed`.
// The answer request's own latency (POST /approval/<id>/answer, which waits for the approval
// workflow's update and the stored `approval.answered`) is reported beside them.
//
// Each iteration opens a new session on one deployed agent, so every run starts with the same short
// history; the fake model answers at once, so what is measured is the service and Temporal.
import http from 'node:http';
import { TERMINAL_TURN_EVENTS, type SessionEvent } from '../contract/events.ts';
import { ASK_MY_USER } from '../lib/workflow-safe/ask-my-user.ts';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, TURN_TIMEOUT_MS, type AgentStack } from './agent-stack.ts';
import { expectStatus, timedRequest } from './http-json.ts';
import { summarize } from './measure.ts';
import { readSse } from './sse-reader.ts';

const RUNS = 30;
const WARMUP = 3;
const OPTIONS = ['yes', 'no'];
const CHOICE = 'yes';
const NOTE = 'go ahead';
const REPLY = 'done';

interface RunResult {
  answerMs: number;
  toToolResultMs: number;
  toModelOutputMs: number;
  toFirstDeltaMs: number;
  toTurnCompletedMs: number;
}

type Event<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

async function oneRun(stack: AgentStack, agent: http.Agent, agentName: string, run: number): Promise<RunResult> {
  const sessionId = await stack.newSession(agentName);
  const toolCallId = `call_bench_${run}`;
  stack.fake.enqueue(
    { toolCalls: [{ id: toolCallId, name: ASK_MY_USER, arguments: { question: `Benchmark run ${run}: go on?`, options: OPTIONS } }] },
    { text: REPLY },
  );

  // The stream starts after what the session already holds, as a reconnecting EventSource would.
  const session = expectStatus(
    await timedRequest<{ lastSeq: number }>(agent, `${stack.url}/session/${sessionId}`, { headers: stack.headers, timeoutMs: 30_000 }),
    200,
    'GET /session/<id>',
  );
  let markRequested: (event: Event<'approval.requested'>) => void = () => undefined;
  const requested = new Promise<Event<'approval.requested'>>((resolve) => (markRequested = resolve));
  let toolResult: { event: Event<'tool.result'>; at: number } | undefined;
  let modelOutputAt: number | undefined;
  let firstDeltaAt: number | undefined;
  let end: { event: SessionEvent; at: number } | undefined;
  let retried = false;
  const reader = readSse(
    `${stack.url}/session/${sessionId}/events`,
    { ...stack.headers, 'last-event-id': String(session.lastSeq) },
    {
      onEvent(event, at) {
        if (event.type === 'approval.requested' && event.toolCallId === toolCallId) markRequested(event);
        if (event.type === 'tool.result' && event.toolCallId === toolCallId) toolResult = { event, at };
        if (event.type === 'step.retry') retried = true;
        // Only what follows the tool result belongs to the resumed step; the first step streamed too.
        if (toolResult) {
          const isOutput = event.type === 'message.part.delta' || (event.type === 'message.created' && event.message.role === 'assistant');
          if (isOutput) modelOutputAt ??= at;
          if (event.type === 'message.part.delta') firstDeltaAt ??= at;
        }
        if (TERMINAL_TURN_EVENTS.includes(event.type)) end = { event, at };
      },
      until: (event) => TERMINAL_TURN_EVENTS.includes(event.type),
      timeoutMs: TURN_TIMEOUT_MS,
    },
  );
  try {
    await reader.opened;
    const sent = await timedRequest<{ messageId: string }>(agent, `${stack.url}/session/${sessionId}?async=1`, {
      method: 'POST',
      headers: stack.headers,
      body: JSON.stringify({ parts: [{ type: 'text', text: `ask me (run ${run})` }] }),
      timeoutMs: 30_000,
    });
    const { messageId } = expectStatus(sent, 202, 'POST /session/<id>?async=1');
    // A stream that fails (or a turn that ends without asking) must not leave this waiting forever.
    const asked = await Promise.race([requested, reader.done.then(() => undefined)]);
    if (!asked) throw new Error(`the turn ended with ${JSON.stringify(end?.event)} before asking`);

    // The answer's 200 is complete when its last byte is read: its start plus its measured duration
    // (both on the monotonic clock the SSE reader stamps arrivals with), rather than whenever this
    // continuation happens to run.
    const answerStart = performance.now();
    const answer = await timedRequest<{ status: string; choice: string }>(agent, `${stack.url}/approval/${asked.approvalId}/answer`, {
      method: 'POST',
      headers: stack.headers,
      body: JSON.stringify({ choice: CHOICE, note: NOTE }),
      timeoutMs: 30_000,
    });
    const answered = expectStatus(answer, 200, 'POST /approval/<id>/answer');
    if (answered.status !== 'answered' || answered.choice !== CHOICE) throw new Error(`unexpected answer ${JSON.stringify(answered)}`);
    const answeredAt = answerStart + answer.ms;

    await reader.done;
    if (end?.event.type !== 'turn.completed' || end.event.turnId !== messageId)
      throw new Error(`the turn ended with ${JSON.stringify(end?.event)}`);
    // A retried step would time its second attempt, not the resume.
    if (retried) throw new Error('a model step was retried; the run does not measure one resume');
    if (!toolResult) throw new Error('no tool.result of the ask_my_user call arrived');
    const output = toolResult.event.output as { choice?: unknown; note?: unknown };
    if (output.choice !== CHOICE || output.note !== NOTE) throw new Error(`unexpected tool result ${JSON.stringify(output)}`);
    if (modelOutputAt === undefined || firstDeltaAt === undefined) throw new Error('the resumed step streamed no output');
    return {
      answerMs: answer.ms,
      toToolResultMs: toolResult.at - answeredAt,
      toModelOutputMs: modelOutputAt - answeredAt,
      toFirstDeltaMs: firstDeltaAt - answeredAt,
      toTurnCompletedMs: end.at - answeredAt,
    };
  } finally {
    reader.close();
  }
}

const approvalResume: Benchmark = {
  name: 'approval-resume',
  description: `answer's 200 → the resumed turn's events on a live SSE stream (ask_my_user, zero-delay fake model), ${RUNS} sequential runs`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: REPLY } } });
    // One keep-alive socket for sends and answers, so no answer pays for a connection set-up.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const agentName = await stack.deployAgent();
      log(`warming up (${WARMUP} runs)`);
      for (let run = 0; run < WARMUP; run++) await oneRun(stack, agent, agentName, -1 - run);
      log(`measuring (${RUNS} runs)`);
      const results: RunResult[] = [];
      for (let run = 0; run < RUNS; run++) {
        const result = await oneRun(stack, agent, agentName, run);
        results.push(result);
        if ((run + 1) % 10 === 0) log(`${run + 1}/${RUNS}: last tool.result ${result.toToolResultMs.toFixed(1)} ms after the 200`);
      }
      const pick = (key: keyof RunResult) => summarize(results.map((result) => result[key]));
      return {
        runs: RUNS,
        warmup: WARMUP,
        method:
          'sequential; per run a new session, an async send whose turn calls ask_my_user, approval.requested awaited on the ' +
          'SSE stream, then POST /approval/<id>/answer; figures are SSE arrival times minus the moment the answer 200 was ' +
          'complete at the client (performance.now() in this one process, which also runs the API and the worker)',
        fakeModel: { reply: REPLY, chunkDelayMs: 0 },
        deltaFlushMs: stack.config.limits.deltaFlushMs,
        answerRequest: pick('answerMs'),
        toToolResult: pick('toToolResultMs'),
        toModelOutput: pick('toModelOutputMs'),
        toFirstDelta: pick('toFirstDeltaMs'),
        toTurnCompleted: pick('toTurnCompletedMs'),
        // The API answers once the update is accepted, so the resume may in principle overtake it.
        toolResultBeforeAnswer: results.filter((result) => result.toToolResultMs < 0).length,
      };
    } finally {
      agent.destroy();
      await stack.close();
    }
  },
};

export default approvalResume;
