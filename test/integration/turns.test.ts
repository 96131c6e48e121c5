// The agent loop end to end: HTTP send -> session workflow -> turn workflow -> model step activity
// -> fake Chat Completions server, with every event read back from the API.
import { describe, expect } from 'vitest';
import { textFromEvents, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { lastUserText } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';
import { collectSse } from '../helpers/client/sse-parse.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest();

const send = (env: AgentEnv, sessionId: string, text: string, query = '', headers: Record<string, string> = {}) =>
  call<Record<string, unknown>>(`${env.api.url}/session/${sessionId}${query}`, {
    headers: { ...env.user.auth, ...headers },
    json: { parts: [{ type: 'text', text }] },
  });

const assistantIds = (events: SessionEvent[]) =>
  events.flatMap((event) => (event.type === 'message.created' && event.message.role === 'assistant' ? [event.message.id] : []));

const ended = (turnId: string) => (events: SessionEvent[]) =>
  events.some(
    (event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type) && (event as { turnId: string }).turnId === turnId,
  );

describe('sending', () => {
  test('the SSE form streams this turn and ends after turn.completed', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: ['Hello', ', ', 'world', '!'], chunkDelayMs: 20 });
    const response = await fetch(`${env.api.url}/session/${sessionId}`, {
      method: 'POST',
      headers: { ...env.user.auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ parts: [{ type: 'text', text: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await collectSse(response);
    const events = frames.map((frame) => JSON.parse(frame.data) as SessionEvent);
    expect(frames.map((frame) => frame.event)).toEqual(events.map((event) => event.type));
    expect(frames.map((frame) => Number(frame.id))).toEqual(events.map((event) => event.seq));
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('message.created');
    expect(types.at(-1)).toBe('turn.completed');
    expect(types).toEqual(expect.arrayContaining(['turn.started', 'message.part.delta', 'message.completed']));
    const completed = events.find((event) => event.type === 'message.completed')!;
    if (completed.type !== 'message.completed') throw new Error('unreachable');
    expect(completed.message.parts).toEqual([{ type: 'text', text: 'Hello, world!' }]);
    expect(textFromEvents(events, completed.message.id)).toBe('Hello, world!');
    expect(completed.message.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
  });

  test('async form: 202 at once, then replay from 0 and from the middle', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'one two three', chunkDelayMs: 10 });
    const accepted = await send(env, sessionId, 'count', '?async=1');
    expect(accepted.status).toBe(202);
    const messageId = accepted.body.messageId as string;
    expect(messageId).toMatch(/^msg_/);
    const all = await env.waitForEvents(sessionId, ended(messageId));
    expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
    expect(all[0]!.type).toBe('session.created');
    const middle = all[Math.floor(all.length / 2)]!.seq;
    expect(await env.events(sessionId, middle)).toEqual(all.filter((event) => event.seq > middle));

    const sse = await fetch(`${env.api.url}/session/${sessionId}/events`, {
      headers: { ...env.user.auth, accept: 'text/event-stream', 'last-event-id': String(middle) },
    });
    const frames = await collectSse(sse, (frame) => frame.event === 'turn.completed');
    expect(frames.map((frame) => Number(frame.id))).toEqual(all.filter((event) => event.seq > middle).map((event) => event.seq));
  });

  test('waiting form answers with the reply', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'The answer is 42.' });
    const response = await send(env, sessionId, 'What is the answer?');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      messageId: expect.stringMatching(/^msg_/),
      reply: 'The answer is 42.',
      replyMessageId: expect.stringMatching(/^msg_/),
      status: 'completed',
    });
    const session = await call<{ status: string; messages: { role: string }[]; usage: { inputTokens: number; outputTokens: number } }>(
      `${env.api.url}/session/${sessionId}`,
      { headers: env.user.auth },
    );
    expect(session.body.status).toBe('idle');
    expect(session.body.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(session.body.usage.outputTokens).toBeGreaterThan(0);
  });

  test('three quick sends are answered in order', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.setHandler((request) => ({ text: `echo: ${lastUserText(request)}`, chunkDelayMs: 5 }));
    try {
      const ids: string[] = [];
      for (const text of ['first', 'second', 'third']) ids.push((await send(env, sessionId, text, '?async=1')).body.messageId as string);
      const events = await env.waitForEvents(sessionId, ended(ids[2]!));
      const replies = events.flatMap((event) =>
        event.type === 'message.completed' && event.message.role === 'assistant' ? [event.message] : [],
      );
      expect(replies.map((message) => message.turnId)).toEqual(ids);
      expect(replies.map((message) => message.parts[0])).toEqual(
        ['first', 'second', 'third'].map((text) => ({ type: 'text', text: `echo: ${text}` })),
      );
      // Each turn saw the conversation up to its own message, in conversation order.
      const seen = env.fake.requests
        .slice(-3)
        .map((request) => request.body.messages.map((message) => `${message.role}:${String(message.content)}`));
      expect(seen[0]).toEqual(['user:first']);
      expect(seen[1]).toEqual(['user:first', 'assistant:echo: first', 'user:second']);
      expect(seen[2]).toEqual(['user:first', 'assistant:echo: first', 'user:second', 'assistant:echo: second', 'user:third']);
      const listed = await call<{ messages: { role: string }[] }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
      expect(listed.body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
      // Turns do not overlap: each starts after the previous one completed.
      const order = events
        .filter((event) => event.type === 'turn.started' || event.type === 'turn.completed')
        .map((event) => `${event.type}:${(event as { turnId: string }).turnId}`);
      expect(order).toEqual(ids.flatMap((id) => [`turn.started:${id}`, `turn.completed:${id}`]));
    } finally {
      env.fake.setHandler(undefined);
    }
  });

  test('ifBusy=reject answers 409 while a turn runs; abort cuts the model call and keeps the partial text', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: ['partial ', 'text ', 'so ', 'far'], stallAfterChunks: 3 });
    const first = await send(env, sessionId, 'long story', '?async=1');
    const turnId = first.body.messageId as string;
    await env.waitForEvents(sessionId, (events) => textFromEvents(events, assistantIds(events)[0] ?? '') === 'partial text so ');

    const busy = await send(env, sessionId, 'are you there?', '?ifBusy=reject');
    expect(busy.status).toBe(409);

    const aborted = await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
    expect(aborted.body).toEqual({ aborted: true });
    // The model call is cut (the cancelled turn's notice tells the worker at once, and the step's next heartbeat
    // would bring the cancellation otherwise; how soon is not for an assertion a loaded machine would fail).
    await env.fake.waitForDisconnects(1, 10_000);

    const events = await env.waitForEvents(sessionId, ended(turnId));
    expect(events.at(-1)).toMatchObject({ type: 'turn.aborted', turnId });
    const session = await call<{ status: string; messages: { role: string; status: string; parts: unknown[] }[] }>(
      `${env.api.url}/session/${sessionId}`,
      { headers: env.user.auth },
    );
    expect(session.body.status).toBe('idle');
    expect(session.body.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(session.body.messages[1]).toMatchObject({ status: 'aborted', parts: [{ type: 'text', text: 'partial text so ' }] });
    // The rejected send stored nothing; the session takes new sends again.
    expect((await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth })).body).toEqual({
      aborted: false,
    });
    env.fake.enqueue({ text: 'back' });
    expect((await send(env, sessionId, 'again')).body).toMatchObject({ reply: 'back', status: 'completed' });
  });
});

describe('the model call', () => {
  test('the per-call model override reaches the provider; the system prompt carries instructions and skills', async ({ env }) => {
    const sessionId = await env.newSession({
      instructions: 'You are a terse assistant.',
      skills: ['Always answer in French.', { name: 'Style guide', path: 'style.md' }],
      workspaceFiles: { 'style.md': 'Use short sentences.' },
    });
    const before = env.fake.requests.length;
    await call(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'hi' }], model: { modelId: 'fake-model-large' } },
    });
    const request = env.fake.requests[before]!;
    expect(request.body.model).toBe('fake-model-large');
    const system = request.body.messages.find((message) => message.role === 'system');
    expect(system?.content).toEqual(expect.stringContaining('You are a terse assistant.'));
    expect(system?.content).toEqual(expect.stringContaining('Always answer in French.'));
    expect(system?.content).toEqual(expect.stringContaining('Use short sentences.'));

    await send(env, sessionId, 'again');
    expect(env.fake.requests[before + 1]!.body.model).toBe('fake-model');
  });

  test('a tool call round trip through the built-in time tool', async ({ env }) => {
    const sessionId = await env.newSession({ mcps: ['time'] });
    const before = env.fake.requests.length;
    env.fake.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'current_time', arguments: { timezone: 'Europe/Paris' } }] },
      { text: 'It is late.' },
    );
    const response = await send(env, sessionId, 'What time is it in Paris?');
    expect(response.body).toMatchObject({ reply: 'It is late.', status: 'completed' });

    const declared = env.fake.requests[before]!.body.tools as { function: { name: string } }[];
    expect(declared.map((tool) => tool.function.name)).toContain('current_time');
    const events = await env.events(sessionId);
    const call1 = events.find((event) => event.type === 'tool.call');
    expect(call1).toMatchObject({ toolCallId: 'call_1', toolName: 'current_time', input: { timezone: 'Europe/Paris' } });
    const result = events.find((event) => event.type === 'tool.result');
    expect(result).toMatchObject({
      toolCallId: 'call_1',
      toolName: 'current_time',
      output: expect.objectContaining({ timezone: 'Europe/Paris' }),
    });
    const second = env.fake.requests[before + 1]!.body.messages;
    expect(second.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
  });

  test("a turn of two steps ends with both steps' totals, written with its final message; the session is idle again", async ({ env }) => {
    const sessionId = await env.newSession({ mcps: ['time'] });
    env.fake.enqueue(
      {
        toolCalls: [{ id: 'call_2', name: 'current_time', arguments: { timezone: 'UTC' } }],
        usage: { promptTokens: 40, completionTokens: 7, cost: 0.004 },
      },
      { text: 'Noon.', usage: { promptTokens: 60, completionTokens: 3, cost: 0.001 } },
    );
    const response = await send(env, sessionId, 'What time is it?');
    expect(response.body).toMatchObject({ reply: 'Noon.', status: 'completed' });
    const events = await env.events(sessionId);
    const turnId = response.body.messageId as string;
    // turn.started opens the turn, ahead of its first assistant message.
    const started = events.findIndex((event) => event.type === 'turn.started');
    expect(events[started + 1]).toMatchObject({ type: 'message.created', message: { role: 'assistant' } });
    const end = events.findIndex((event) => event.type === 'turn.completed');
    expect(events[end]).toMatchObject({ turnId, usage: { inputTokens: 100, outputTokens: 10 }, costUsd: 0.005 });
    expect(events[end - 1]).toMatchObject({
      type: 'message.completed',
      message: { role: 'assistant', parts: [{ type: 'text', text: 'Noon.' }] },
    });
    // One transaction: the same database time.
    expect(events[end]!.at).toBe(events[end - 1]!.at);
    expect(events.filter((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type))).toHaveLength(1);
    const session = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.body.status).toBe('idle');
  });

  test('a rejected key fails the turn at once with a message a user understands', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ status: 401, errorBody: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
    const before = env.fake.requests.length;
    const response = await send(env, sessionId, 'hello');
    expect(response.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/401/) });
    expect(env.fake.requests.length - before).toBe(1);
    const events = await env.events(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.failed', error: expect.stringMatching(/API key/i) });
  });

  test('transient errors are retried as a step: step.retry before each new attempt, then the reply', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ status: 500 }, { status: 503 }, { text: ['whole ', 'reply'] });
    const response = await send(env, sessionId, 'try hard');
    expect(response.body).toMatchObject({ reply: 'whole reply', status: 'completed' });
    const all = await env.events(sessionId);
    const retries = all.filter((event) => event.type === 'step.retry');
    expect(retries).toEqual([expect.objectContaining({ attempt: 2 }), expect.objectContaining({ attempt: 3 })]);
    const completed = all.filter((event) => event.type === 'message.completed').at(-1) as Extract<
      SessionEvent,
      { type: 'message.completed' }
    >;
    expect(completed.message.parts).toEqual([{ type: 'text', text: 'whole reply' }]);
    expect(textFromEvents(all, completed.message.id)).toBe('whole reply');
  });

  test('transient errors past the last attempt fail the turn', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    const response = await send(env, sessionId, 'doomed');
    expect(response.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/500/) });
  });
});

describe('bad input', () => {
  test.for<[string, unknown]>([
    ['empty parts', { parts: [] }],
    ['an unknown part type', { parts: [{ type: 'image', data: 'x' }] }],
    ['an empty text', { parts: [{ type: 'text', text: '' }] }],
    ['oversized text', { parts: [{ type: 'text', text: 'x'.repeat(200_001) }] }],
    ['no parts', {}],
    ['an unknown property', { parts: [{ type: 'text', text: 'hi' }], colour: 'red' }],
  ])('%s: 400 and nothing stored', async ([_name, body], { env }) => {
    const sessionId = await env.newSession();
    const response = await call(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth, json: body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await env.events(sessionId)).map((event) => event.type)).toEqual(['session.created']);
  });

  test("unknown session 404, another user's session 403", async ({ env }) => {
    expect((await send(env, 'ses_doesnotexist000000000000000', 'hi')).status).toBe(404);
    const sessionId = await env.newSession();
    const { createTestUser } = await import('../helpers/harness/users.ts');
    const other = await createTestUser(env.api.db);
    const response = await call(`${env.api.url}/session/${sessionId}`, {
      headers: other.auth,
      json: { parts: [{ type: 'text', text: 'hi' }] },
    });
    expect(response.status).toBe(403);
    expect((await call(`${env.api.url}/session/${sessionId}`, { headers: other.auth })).status).toBe(403);
    expect((await env.events(sessionId)).map((event) => event.type)).toEqual(['session.created']);
  });
});
