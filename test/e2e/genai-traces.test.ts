// A turn as an LLM observability backend reads it: with OTEL_EXPORTER_OTLP_ENDPOINT set, its model
// steps, the tool it ran and the approval the tool's policy asked for arrive as spans in the
// OpenTelemetry GenAI conventions (`gen_ai.*`), in the trace of the request that sent the message.
// Content (prompts, replies, arguments, results, the question) is on them only when the operator opts
// in with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT. API and worker run as processes of their
// own, as in test/e2e/tracing.test.ts, against a local OTLP receiver.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startApiProcess, type ApiProcess } from '../helpers/harness/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/fakes/otlp-receiver.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';

const test = agentTest({ SESSION_IDLE_MS: '1000' }, { inProcessWorker: false });
const started: Array<ApiProcess | WorkerProcess> = [];
let collector: OtlpReceiver | undefined;
// Each test's processes go before the next test starts its own, whether it passed or not: a worker left
// running by a failed test would take the next test's turns with its own content setting.
afterEach(() => killStarted());
afterAll(async () => {
  await killStarted();
  await collector?.close();
});

async function killStarted(): Promise<void> {
  await Promise.all(started.splice(0).map((process) => process.kill('SIGKILL')));
}

const CONTENT_KEYS = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'agent_service.approval.question',
];

interface TurnTrace {
  spans: ReceivedSpan[];
  /** The API's span of the request that sent the turn's message. */
  request: ReceivedSpan;
}

/** The trace holding this session's model step spans other than `except`'s, once its request's span is there. */
function turnTrace(sessionId: string, except?: string): TurnTrace {
  const step = collector!.spans.find((span) => span.attributes['gen_ai.conversation.id'] === sessionId && span.traceId !== except);
  expect(step, 'a model step span of the session').toBeDefined();
  const spans = collector!.spans.filter((span) => span.traceId === step!.traceId);
  const request = spans.find((span) => span.service === 'agent-service-api' && span.name === 'POST /session/:id');
  expect(request, 'the send request span in the trace').toBeDefined();
  return { spans, request: request! };
}

/** An API and a worker process exporting spans to the collector, content captured or not. */
async function tracedProcesses(env: AgentEnv, captureContent: boolean) {
  collector ??= await startOtlpReceiver();
  const traced = {
    ...env.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    ...(captureContent ? { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' } : {}),
  };
  const api = await startApiProcess(traced);
  const worker = await startWorkerProcess(traced);
  started.push(api, worker);
  return { api, worker };
}

/**
 * Sends one message to an agent whose `time` tool asks first, and (with `followUp`) a second one while
 * the first waits, which the running session workflow queues; approves the question through the API;
 * returns the spans of the first send's trace once the approval's span has arrived, and the second's.
 */
async function tracedTurn(
  env: AgentEnv,
  captureContent: boolean,
  followUp = false,
): Promise<TurnTrace & { approvalId: string; followUp?: TurnTrace }> {
  const { api } = await tracedProcesses(env, captureContent);
  env.fake.enqueue(
    {
      toolCalls: [{ id: 'call_clock', name: 'current_time', arguments: { timezone: 'Europe/Paris' } }],
      usage: { promptTokens: 120, completionTokens: 9, cacheReadTokens: 100 },
    },
    { text: 'It is tea time in Paris.' },
    { text: 'Still tea time.' },
  );
  const { name } = await env.deploy({ instructions: 'You tell the time.', mcps: ['time'], toolPolicies: { time: { '*': 'ask' } } });
  const session = await call<{ id: string }>(`${api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
  const sent = await call(`${api.url}/session/${session.body.id}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'What time is it in Paris?' }] },
  });
  expect(sent.status).toBe(202);
  const sessionId = session.body.id;
  const requested = (await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'approval.requested'))).find(
    (event): event is Extract<SessionEvent, { type: 'approval.requested' }> => event.type === 'approval.requested',
  )!;
  const approvalId = requested.approvalId;
  if (followUp) {
    const queued = await call(`${api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'And later?' }] },
    });
    expect(queued.status).toBe(202);
  }
  const answered = await call(`${api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'approve' } });
  expect(answered.status).toBe(200);
  const turnsDone = followUp ? 2 : 1;
  await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.completed').length >= turnsDone, 60_000);

  const trace = await vi.waitFor(
    () => {
      // The trace of the first turn's model steps is the trace of the request that sent its message.
      const first = collector!.spans.find(
        (span) =>
          span.name === 'chat fake-model' &&
          span.attributes['gen_ai.conversation.id'] === sessionId &&
          span.attributes['agent_service.step'] === 1 &&
          span.attributes['agent_service.tool_calls'] === 1,
      );
      expect(first, 'the first turn').toBeDefined();
      const { spans, request } = turnTrace(sessionId);
      expect(
        spans.some((span) => span.spanId === first!.spanId),
        'one trace holds the first turn',
      ).toBe(true);
      expect(spans.map((span) => span.name)).toEqual(
        expect.arrayContaining(['chat fake-model', 'execute_tool current_time', `approval ${approvalId}`]),
      );
      expect(spans.filter((span) => span.name === 'chat fake-model')).toHaveLength(2);
      // A workflow's own span is exported when it ends: the session's (idle a second) and the approval's.
      expect(spans.map((span) => span.name)).toEqual(
        expect.arrayContaining(['RunWorkflow:sessionWorkflow', 'RunWorkflow:approvalWorkflow']),
      );
      if (!followUp) return { spans, request, approvalId };
      // The message queued by the running workflow: its turn is a trace of its own, under its request.
      const later = turnTrace(sessionId, first!.traceId);
      expect(later.spans.filter((span) => span.name === 'chat fake-model')).toHaveLength(1);
      return { spans, request, approvalId, followUp: later };
    },
    { timeout: 30_000, interval: 250 },
  );
  // The next turn's worker must be the only one taking turns.
  await killStarted();
  return trace;
}

/**
 * A turn whose provider refuses it with an error quoting the user's message, as validation and moderation
 * errors do: returns the user's words and every export request the collector got once the failed step's
 * spans (the model call's and the Temporal SDK's activity span) have arrived.
 */
async function refusedTurn(env: AgentEnv, captureContent: boolean): Promise<{ words: string; bodies: string[] }> {
  const { api } = await tracedProcesses(env, captureContent);
  const words = `my card ends in 4242, code ${randomUUID()}`;
  // Whatever an earlier test queued and did not use is not this turn's answer.
  env.fake.reset();
  env.fake.enqueue({
    status: 400,
    errorBody: { error: { message: `Invalid 'messages[0].content': could not process "${words}"`, type: 'invalid_request_error' } },
  });
  const { name } = await env.deploy({ instructions: 'You answer.' });
  const session = await call<{ id: string }>(`${api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
  const sessionId = session.body.id;
  const sent = await call(`${api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: words }] },
  });
  expect(sent.status).toBe(202);
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.failed'), 60_000);
  // The user is told what the provider said, whatever the traces hold.
  expect(JSON.stringify(events.find((event) => event.type === 'turn.failed'))).toContain(words);
  await vi.waitFor(
    () => {
      const chat = collector!.spans.find(
        (span) => span.name === 'chat fake-model' && span.attributes['gen_ai.conversation.id'] === sessionId,
      );
      expect(chat?.statusCode, 'the failed model call').toBe(2);
      const activity = collector!.spans.find((span) => span.name === 'RunActivity:runModelStep' && span.traceId === chat!.traceId);
      expect(activity?.statusCode, "the Temporal SDK's span of the failed step").toBe(2);
    },
    { timeout: 30_000, interval: 250 },
  );
  await killStarted();
  return { words, bodies: collector!.bodies };
}

/** The span's ancestors in its trace reach `root`. */
function descendsFrom(spans: ReceivedSpan[], span: ReceivedSpan, root: ReceivedSpan): boolean {
  const byId = new Map(spans.map((candidate) => [candidate.spanId, candidate]));
  for (let current: ReceivedSpan | undefined = span; current; current = current.parentSpanId ? byId.get(current.parentSpanId) : undefined) {
    if (current.spanId === root.spanId) return true;
  }
  return false;
}

describe('GenAI spans', () => {
  test(
    'a turn with a tool call and its approval is one trace of gen_ai spans, without content by default',
    { timeout: 240_000 },
    async ({ env }) => {
      const { spans, request, approvalId, followUp } = await tracedTurn(env, false, true);
      const [first, second] = spans
        .filter((span) => span.name === 'chat fake-model')
        .sort((a, b) => Number(a.attributes['agent_service.step']) - Number(b.attributes['agent_service.step']));
      expect(first!.kind).toBe(3);
      expect(first!.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai-compatible',
        'gen_ai.request.model': 'fake-model',
        'gen_ai.response.model': 'fake-model',
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 9,
        'gen_ai.usage.cache_read.input_tokens': 100,
        'gen_ai.conversation.id': expect.stringMatching(/^ses_/),
        'gen_ai.agent.id': expect.any(String),
        'agent_service.step': 1,
        'agent_service.tool_calls': 1,
      });
      expect(second!.attributes).toMatchObject({ 'gen_ai.response.finish_reasons': ['stop'], 'agent_service.step': 2 });
      expect(second!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);

      const tool = spans.find((span) => span.name === 'execute_tool current_time')!;
      expect(tool.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'current_time',
        'gen_ai.tool.call.id': 'call_clock',
        'gen_ai.tool.type': 'extension',
        'agent_service.tool.runs_on': 'builtin',
        'agent_service.tool.idempotency_key': expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      expect(tool.statusCode).not.toBe(2);

      const approval = spans.find((span) => span.name === `approval ${approvalId}`)!;
      expect(approval.attributes).toMatchObject({
        'agent_service.approval.id': approvalId,
        'agent_service.approval.source': 'tool',
        'agent_service.approval.outcome': 'answered',
        // The service's own options: the decision is no content.
        'agent_service.approval.choice': 'approve',
        'gen_ai.tool.call.id': 'call_clock',
      });
      // It spans the wait: from before the tool ran to the answer, which came before the second step.
      expect(approval.startMs).toBeLessThanOrEqual(tool.startMs);
      expect(approval.endMs).toBeLessThanOrEqual(second!.startMs);

      for (const span of [first!, second!, tool, approval]) {
        expect(descendsFrom(spans, span, request), `${span.name} descends from the request`).toBe(true);
        for (const key of CONTENT_KEYS) expect(span.attributes, `${span.name} carries no ${key}`).not.toHaveProperty(key);
      }
      // The second message reached the running session workflow as a signal; its turn is under its own request.
      const later = followUp!.spans.find((span) => span.name === 'chat fake-model')!;
      expect(followUp!.request.traceId).not.toBe(request.traceId);
      expect(descendsFrom(followUp!.spans, later, followUp!.request), 'the queued turn descends from its request').toBe(true);
    },
  );

  test(
    'with content capture on, the spans carry the prompt, the reply, the tool arguments and result, and the question',
    { timeout: 240_000 },
    async ({ env }) => {
      const { spans } = await tracedTurn(env, true);
      const chats = spans
        .filter((span) => span.name === 'chat fake-model')
        .sort((a, b) => Number(a.attributes['agent_service.step']) - Number(b.attributes['agent_service.step']));
      const firstInput = JSON.parse(String(chats[0]!.attributes['gen_ai.input.messages'])) as unknown[];
      expect(firstInput).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'What time is it in Paris?' }] }]);
      expect(JSON.parse(String(chats[0]!.attributes['gen_ai.system_instructions']))).toEqual([
        { type: 'text', content: expect.stringContaining('You tell the time.') },
      ]);
      expect(JSON.parse(String(chats[0]!.attributes['gen_ai.output.messages']))).toEqual([
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_clock', name: 'current_time', arguments: { timezone: 'Europe/Paris' } }],
          finish_reason: 'tool_calls',
        },
      ]);
      // The second step was sent the tool's result.
      const secondInput = JSON.parse(String(chats[1]!.attributes['gen_ai.input.messages'])) as Array<{ role: string; parts: unknown[] }>;
      expect(secondInput.at(-1)).toEqual({
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: 'call_clock', response: expect.anything() }],
      });
      expect(JSON.parse(String(chats[1]!.attributes['gen_ai.output.messages']))).toEqual([
        { role: 'assistant', parts: [{ type: 'text', content: 'It is tea time in Paris.' }], finish_reason: 'stop' },
      ]);

      const tool = spans.find((span) => span.name === 'execute_tool current_time')!;
      expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ timezone: 'Europe/Paris' });
      expect(String(tool.attributes['gen_ai.tool.call.result'])).toContain('Europe/Paris');

      const approval = spans.find((span) => span.name.startsWith('approval '))!;
      expect(approval.attributes['agent_service.approval.question']).toEqual(expect.stringContaining('current_time'));
    },
  );

  test(
    "a provider's error quoting the user's message reaches no span without content capture, and does with it",
    { timeout: 240_000 },
    async ({ env }) => {
      const off = await refusedTurn(env, false);
      for (const body of off.bodies) expect(body).not.toContain(off.words);
      const on = await refusedTurn(env, true);
      expect(on.bodies.some((body) => body.includes(on.words))).toBe(true);
    },
  );
});
