// Custom tools run by the client, over HTTP with the fake model: the turn waits durably for the
// client's results (a worker restart in between included), calls are answered independently and once,
// a call nobody answers times out into an error the model reads, and an abort ends the wait.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { takeInbox } from '../../store/session-inbox.ts';
import { closeClientToolCalls, storeClientToolAnswer } from '../../store/client-tool-answers.ts';

const test = agentTest();

const LOOKUP = {
  id: 'lookup_order',
  description: 'Look up an order in the shop system',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
};
const WEATHER = {
  id: 'weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

interface Waiting {
  messageId: string;
  status: string;
  waitingFor?: { kind: string; toolCalls: { messageId: string; toolCallId: string; toolName: string; input: unknown }[] };
  reply?: string;
}

function send(env: AgentEnv, sessionId: string, text: string) {
  return call<Waiting>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth, json: { parts: [{ type: 'text', text }] } });
}

function answer(env: AgentEnv, sessionId: string, body: Record<string, unknown>, auth = env.user.auth) {
  return call<{ toolCallId: string; status: string; title?: string }>(`${env.api.url}/session/${sessionId}/tool-result`, {
    headers: auth,
    json: body,
  });
}

const ended = (events: SessionEvent[]) => events.some((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type));

describe('custom tools run by the client', () => {
  test('the turn waits for the result, across a worker restart, then goes on with it', async ({ env }) => {
    const sessionId = await env.newSession({ customTools: [LOOKUP] });
    env.fake.enqueue({ toolCalls: [{ id: 'call_a', name: 'lookup_order', arguments: { orderId: 'A-17' } }] }, { text: 'It has shipped.' });
    const before = env.fake.requests.length;

    const waiting = await send(env, sessionId, 'Where is order A-17?');
    expect(waiting.status).toBe(200);
    expect(waiting.body).toMatchObject({
      status: 'waiting',
      waitingFor: { kind: 'tool', toolCalls: [{ toolCallId: 'call_a', toolName: 'lookup_order', input: { orderId: 'A-17' } }] },
    });
    const events = await env.events(sessionId);
    // The client is told the call's idempotency key, the same in the event and in waitingFor.
    const key = (waiting.body.waitingFor!.toolCalls[0] as { idempotencyKey?: string }).idempotencyKey;
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(events.find((event) => event.type === 'tool.call')).toMatchObject({
      toolCallId: 'call_a',
      executor: 'client',
      idempotencyKey: key,
    });
    const session = await call<{ status: string; waitingFor: unknown }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.body).toMatchObject({ status: 'waiting', waitingFor: waiting.body.waitingFor });

    await env.restartWorker();
    const answered = await answer(env, sessionId, { toolCallId: 'call_a', output: { status: 'shipped', carrier: 'DHL' } });
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ toolCallId: 'call_a', status: 'answered' });

    const all = await env.waitForEvents(sessionId, ended);
    expect(all.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(all.filter((event) => event.type === 'tool.result')).toEqual([
      expect.objectContaining({ toolCallId: 'call_a', output: { status: 'shipped', carrier: 'DHL' } }),
    ]);
    const next = env.fake.requests[before + 1]!.body.messages.at(-1)!;
    expect(next).toMatchObject({ role: 'tool', tool_call_id: 'call_a' });
    expect(JSON.stringify(next.content)).toContain('DHL');
    const after = await call<{ status: string; waitingFor?: unknown }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(after.body.status).toBe('idle');
    expect(after.body.waitingFor).toBeUndefined();

    // Answered: a second answer is refused.
    // The same answer again, after its turn has written it: the same 200; another answer is refused.
    expect((await answer(env, sessionId, { toolCallId: 'call_a', output: { status: 'shipped', carrier: 'DHL' } })).status).toBe(200);
    expect((await answer(env, sessionId, { toolCallId: 'call_a', output: 'again' })).status).toBe(409);
  });

  test('with no worker running, an answer is taken at once and the turn goes on once one runs', async ({ env }) => {
    const sessionId = await env.newSession({ customTools: [LOOKUP, WEATHER] });
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'n1', name: 'lookup_order', arguments: { orderId: 'C-9' } },
          { id: 'n2', name: 'weather', arguments: { city: 'Lima' } },
        ],
      },
      { text: 'Done without a worker.' },
    );
    const before = env.fake.requests.length;
    const waiting = await send(env, sessionId, 'Two things, while the workers restart');
    expect(waiting.body.waitingFor!.toolCalls.map((toolCall) => toolCall.toolCallId)).toEqual(['n1', 'n2']);

    await env.restartWorker(async () => {
      // Taken by PostgreSQL: 200 at once, and the call is no longer awaited.
      const first = await answer(env, sessionId, { toolCallId: 'n1', output: { status: 'packed' } });
      expect(first.status, first.text).toBe(200);
      expect(first.body).toEqual({ toolCallId: 'n1', status: 'answered' });
      const session = await call<{ status: string; waitingFor: Waiting['waitingFor'] }>(`${env.api.url}/session/${sessionId}`, {
        headers: env.user.auth,
      });
      expect(session.body.status).toBe('waiting');
      expect(session.body.waitingFor!.toolCalls.map((toolCall) => toolCall.toolCallId)).toEqual(['n2']);
      // The same answer again (a retry) is the same 200; another answer is refused.
      expect((await answer(env, sessionId, { toolCallId: 'n1', output: { status: 'packed' } })).status).toBe(200);
      expect((await answer(env, sessionId, { toolCallId: 'n1', output: { status: 'lost' } })).status).toBe(409);
      expect((await answer(env, sessionId, { toolCallId: 'n2', output: 'sunny' })).status).toBe(200);
    });

    const all = await env.waitForEvents(sessionId, ended);
    expect(all.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(
      all.filter((event) => event.type === 'tool.result').map((event) => [event.toolCallId, 'output' in event && event.output]),
    ).toEqual([
      ['n1', { status: 'packed' }],
      ['n2', 'sunny'],
    ]);
    const toolMessages = env.fake.requests[before + 1]!.body.messages.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['n1', 'n2']);
    expect(JSON.stringify(toolMessages)).toContain('packed');
  });

  test('two calls of one step are answered in reverse order; each answer is announced at once, and only once', async ({ env }) => {
    const sessionId = await env.newSession({ customTools: [LOOKUP, WEATHER] });
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'lookup_order', arguments: { orderId: 'B-2' } },
          { id: 'c2', name: 'weather', arguments: { city: 'Oslo' } },
        ],
      },
      { text: 'Both done.' },
    );
    const before = env.fake.requests.length;
    const waiting = await send(env, sessionId, 'Two things');
    expect(waiting.body.waitingFor!.toolCalls.map((toolCall) => toolCall.toolCallId)).toEqual(['c1', 'c2']);

    expect((await answer(env, sessionId, { toolCallId: 'c2', output: 'rain' })).status).toBe(200);
    await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'tool.result' && event.toolCallId === 'c2'));
    const session = await call<{ status: string; waitingFor: Waiting['waitingFor'] }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
    });
    expect(session.body.status).toBe('waiting');
    expect(session.body.waitingFor!.toolCalls.map((toolCall) => toolCall.toolCallId)).toEqual(['c1']);

    expect((await answer(env, sessionId, { toolCallId: 'c1', error: 'The shop system is down' })).status).toBe(200);
    const all = await env.waitForEvents(sessionId, ended);
    expect(all.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(
      all.filter((event) => event.type === 'tool.result').map((event) => [event.toolCallId, 'isError' in event && event.isError]),
    ).toEqual([
      ['c2', false],
      ['c1', true],
    ]);
    // The model reads the results in the order of its calls.
    const toolMessages = env.fake.requests[before + 1]!.body.messages.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['c1', 'c2']);
  });

  test('bad answers: unknown call 404, a service call 409, another user 403, both output and error 400', async ({ env }) => {
    const sessionId = await env.newSession({ customTools: [LOOKUP], mcps: ['time'] });
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 't1', name: 'current_time', arguments: {} },
          { id: 'l1', name: 'lookup_order', arguments: { orderId: 'C-3' } },
        ],
      },
      { text: 'ok' },
    );
    await send(env, sessionId, 'go');
    expect((await answer(env, sessionId, { toolCallId: 'nope', output: 1 })).status).toBe(404);
    expect((await answer(env, sessionId, { toolCallId: 't1', output: 1 })).status).toBe(409);
    const other = await createTestUser(env.api.db);
    expect((await answer(env, sessionId, { toolCallId: 'l1', output: 1 }, other.auth)).status).toBe(403);
    const both = await answer(env, sessionId, { toolCallId: 'l1', output: 1, error: 'x' });
    expect(both.status).toBe(400);
    expect((await answer(env, sessionId, { output: 1 })).status).toBe(400);
    // Nothing was recorded by the refused answers: the call is still awaited.
    expect((await answer(env, sessionId, { toolCallId: 'l1', output: { found: true } })).status).toBe(200);
    expect((await env.waitForEvents(sessionId, ended)).at(-1)).toMatchObject({ type: 'turn.completed' });
  });

  test('input that does not match the parameters goes back to the model; nobody is asked', async ({ env }) => {
    const sessionId = await env.newSession({ customTools: [LOOKUP] });
    env.fake.enqueue({ toolCalls: [{ id: 'bad', name: 'lookup_order', arguments: { order: 7 } }] }, { text: 'Sorry.' });
    const reply = await send(env, sessionId, 'go');
    expect(reply.body).toMatchObject({ status: 'completed', reply: 'Sorry.' });
    const events = await env.events(sessionId);
    expect(events.find((event) => event.type === 'tool.call')).toMatchObject({ toolCallId: 'bad', executor: 'service' });
    expect(events.find((event) => event.type === 'tool.result')).toMatchObject({
      toolCallId: 'bad',
      isError: true,
      output: expect.stringMatching(/missing the required property "orderId"/),
    });
  });

  test('an abort ends the wait; a late answer is 409', async ({ env }) => {
    const sessionId = await env.newSession({ customTools: [LOOKUP] });
    env.fake.enqueue({ toolCalls: [{ id: 'z1', name: 'lookup_order', arguments: { orderId: 'D-4' } }] });
    await send(env, sessionId, 'go');
    const aborted = await call<{ aborted: boolean }>(`${env.api.url}/session/${sessionId}/abort`, { headers: env.user.auth, json: {} });
    expect(aborted.body).toEqual({ aborted: true });
    expect((await env.waitForEvents(sessionId, ended)).at(-1)).toMatchObject({ type: 'turn.aborted' });
    expect((await answer(env, sessionId, { toolCallId: 'z1', output: 'late' })).status).toBe(409);
  });
});

describe('a call nobody answers', () => {
  test('times out into an error result the model reads', async () => {
    const env = await startAgentEnv({ CLIENT_TOOL_TIMEOUT_MS: '1000' });
    try {
      const sessionId = await env.newSession({ customTools: [LOOKUP] });
      env.fake.enqueue({ toolCalls: [{ id: 'late', name: 'lookup_order', arguments: { orderId: 'E-5' } }] }, { text: 'No answer came.' });
      const before = env.fake.requests.length;
      await send(env, sessionId, 'go');
      const all = await env.waitForEvents(sessionId, ended);
      expect(all.at(-1)).toMatchObject({ type: 'turn.completed' });
      expect(all.find((event) => event.type === 'tool.result')).toMatchObject({
        toolCallId: 'late',
        isError: true,
        output: expect.stringMatching(/No result from the client/),
      });
      expect(JSON.stringify(env.fake.requests[before + 1]!.body.messages.at(-1))).toContain('No result from the client');
      expect((await answer(env, sessionId, { toolCallId: 'late', output: 'too late' })).status).toBe(409);
    } finally {
      await env.close();
    }
  });
});

describe('who decides a call: PostgreSQL', () => {
  test("the first row stands: an answer before the turn's close is taken by the close, one after it is refused", async ({ env }) => {
    const sessionId = await env.newSession({ customTools: [LOOKUP] });
    const base = { sessionId, userId: env.user.userId, messageId: 'msg_decides', callSeq: 0 };
    expect(await storeClientToolAnswer(env.api.db, { ...base, toolCallId: 'd1', answer: { output: 42 } })).toEqual({ status: 'stored' });
    // The turn's timeout closes both calls: the answer stored first is what it takes.
    const taken = await closeClientToolCalls(env.api.db, {
      sessionId,
      userId: env.user.userId,
      messageId: 'msg_decides',
      toolCallIds: ['d1', 'd2'],
    });
    expect(taken).toEqual([{ messageId: 'msg_decides', toolCallId: 'd1', output: 42 }]);
    expect(await storeClientToolAnswer(env.api.db, { ...base, toolCallId: 'd2', answer: { output: 'late' } })).toEqual({
      status: 'decided',
    });
    expect(await storeClientToolAnswer(env.api.db, { ...base, toolCallId: 'd1', answer: { error: 'other' } })).toEqual({
      status: 'decided',
      answer: { output: 42 },
    });
    // The session's workflow reads the answer at every take (a take whose workflow task was lost is run
    // again) until the call's turn has ended.
    expect((await takeInbox(env.api.db, sessionId)).answers).toEqual([{ messageId: 'msg_decides', toolCallId: 'd1', output: 42 }]);
    expect((await takeInbox(env.api.db, sessionId)).answers).toEqual([{ messageId: 'msg_decides', toolCallId: 'd1', output: 42 }]);
  });
});
