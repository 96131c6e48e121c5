// Fork, revert and regenerate through the HTTP API, with the fake model showing what each turn saw.
import { describe, expect } from 'vitest';
import { textFromEvents, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { lastUserText, messageText, type FakeRequest } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';
import { collectSse } from '../helpers/client/sse-parse.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import type { MessageView, SessionEvent } from '../../contract/events.ts';

const test = agentTest();
test.beforeEach(({ env }) => {
  env.fake.reset();
  env.fake.setHandler((request) => ({ text: `echo: ${lastUserText(request)}` }));
});

interface SessionBody {
  status: string;
  forkedFrom: string | null;
  usage: { inputTokens: number; outputTokens: number };
  messages: MessageView[];
}

const post = <T = Record<string, unknown>>(env: AgentEnv, path: string, json?: unknown, headers: Record<string, string> = {}) =>
  call<T>(`${env.api.url}${path}`, { method: 'POST', headers: { ...env.user.auth, ...headers }, ...(json === undefined ? {} : { json }) });
const send = (env: AgentEnv, sessionId: string, text: string, query = '') =>
  post<{ messageId: string; reply: string; status: string; replyMessageId: string }>(env, `/session/${sessionId}${query}`, {
    parts: [{ type: 'text', text }],
  });
const read = async (env: AgentEnv, sessionId: string) =>
  (await call<SessionBody>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth })).body;
const texts = (messages: MessageView[]) =>
  messages.map((message) => `${message.role}:${message.parts.map((part) => (part.type === 'text' ? part.text : part.type)).join('')}`);
/** What the model was sent, as role:text lines (the system prompt left out). */
const seen = (request: FakeRequest) =>
  request.body.messages.filter((message) => message.role !== 'system').map((message) => `${message.role}:${messageText(message) ?? ''}`);
const lastSeen = (env: AgentEnv) => seen(env.fake.requests.at(-1)!);
/** The turn's reply has started to stream. */
const streaming = (turnId: string) => (events: SessionEvent[]) => {
  const replies = new Set(
    events.flatMap((event) =>
      event.type === 'message.created' && event.message.turnId === turnId && event.message.role === 'assistant' ? [event.message.id] : [],
    ),
  );
  return events.some((event) => event.type === 'message.part.delta' && replies.has(event.messageId));
};
const ended = (turnId: string) => (events: SessionEvent[]) =>
  events.some(
    (event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type) && 'turnId' in event && event.turnId === turnId,
  );

async function conversationOf(env: AgentEnv, ...lines: string[]): Promise<{ sessionId: string; messages: MessageView[] }> {
  const sessionId = await env.newSession();
  for (const line of lines) expect((await send(env, sessionId, line)).body.status).toBe('completed');
  return { sessionId, messages: (await read(env, sessionId)).messages };
}

describe('fork', () => {
  test('copies the conversation into a new session whose log draws it; then the two diverge', async ({ env }) => {
    const { sessionId: origin, messages } = await conversationOf(env, 'alpha', 'beta');
    const forked = await post<{ id: string; forkedFrom: string }>(env, `/session/${origin}/fork`);
    expect(forked.status).toBe(201);
    const fork = forked.body.id;
    expect(forked.body).toEqual({ id: expect.stringMatching(/^ses_/), forkedFrom: origin });

    const copy = await read(env, fork);
    expect(copy).toMatchObject({ forkedFrom: origin, status: 'idle', usage: { inputTokens: 0, outputTokens: 0 } });
    expect(texts(copy.messages)).toEqual(texts(messages));
    expect(copy.messages.map((message) => message.copiedFrom)).toEqual(messages.map((message) => message.id));
    expect(copy.messages.some((message) => messages.some((original) => original.id === message.id))).toBe(false);
    // Turn ids point at the copies of the user messages.
    expect(copy.messages.map((message) => message.turnId)).toEqual([0, 0, 2, 2].map((index) => copy.messages[index]!.id));

    const events = await env.events(fork);
    expect(events[0]).toMatchObject({ type: 'session.created', seq: 1, forkedFrom: origin });
    expect(events.slice(1).map((event) => event.type)).toEqual([
      'message.created',
      'message.created',
      'message.created',
      'message.created',
    ]);
    expect(events.slice(1).map((event) => (event.type === 'message.created' ? event.message.id : ''))).toEqual(
      copy.messages.map((message) => message.id),
    );

    await send(env, origin, 'only in the origin');
    expect(lastSeen(env)).toEqual(['user:alpha', 'assistant:echo: alpha', 'user:beta', 'assistant:echo: beta', 'user:only in the origin']);
    await send(env, fork, 'only in the fork');
    expect(lastSeen(env)).toEqual(['user:alpha', 'assistant:echo: alpha', 'user:beta', 'assistant:echo: beta', 'user:only in the fork']);
    await send(env, fork, 'fork again');
    expect(lastSeen(env)).toContain('assistant:echo: only in the fork');
    expect(lastSeen(env)).not.toContain('user:only in the origin');

    expect(texts((await read(env, origin)).messages).slice(4)).toEqual(['user:only in the origin', 'assistant:echo: only in the origin']);
    expect(texts((await read(env, fork)).messages).slice(4)).toEqual([
      'user:only in the fork',
      'assistant:echo: only in the fork',
      'user:fork again',
      'assistant:echo: fork again',
    ]);
    expect((await read(env, fork)).usage.outputTokens).toBeGreaterThan(0);
  });

  test('a fork taken during a turn copies only the finished messages', async ({ env }) => {
    const { sessionId } = await conversationOf(env, 'first');
    env.fake.enqueue({ text: ['partial ', 'reply'], stallAfterChunks: 1 });
    const turnId = (await send(env, sessionId, 'second', '?async=1')).body.messageId;
    await env.waitForEvents(sessionId, streaming(turnId));

    const fork = (await post<{ id: string }>(env, `/session/${sessionId}/fork`)).body.id;
    const copy = await read(env, fork);
    expect(texts(copy.messages)).toEqual(['user:first', 'assistant:echo: first', 'user:second']);
    expect(copy.messages.every((message) => message.status === 'complete')).toBe(true);

    await post(env, `/session/${sessionId}/abort`);
    await env.waitForEvents(sessionId, ended(turnId));
  });

  test("another user's session is 403, an unknown one 404", async ({ env }) => {
    const { sessionId } = await conversationOf(env, 'mine');
    const other = await createTestUser(env.api.db);
    expect((await call(`${env.api.url}/session/${sessionId}/fork`, { method: 'POST', headers: other.auth })).status).toBe(403);
    expect((await post(env, '/session/ses_doesnotexist000000000000000/fork')).status).toBe(404);
  });
});

describe('revert', () => {
  test('the message and all after it leave the conversation; the model never sees them again', async ({ env }) => {
    const { sessionId, messages } = await conversationOf(env, 'one', 'two', 'three');
    const [, , two, twoReply, three, threeReply] = messages.map((message) => message.id);

    const reverted = await post(env, `/session/${sessionId}/revert`, { messageId: two });
    expect(reverted.status).toBe(200);
    expect(reverted.body).toEqual({ reverted: [two, twoReply, three, threeReply] });
    expect(texts((await read(env, sessionId)).messages)).toEqual(['user:one', 'assistant:echo: one']);
    const events = await env.events(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'messages.reverted', messageIds: [two, twoReply, three, threeReply] });

    await send(env, sessionId, 'four');
    expect(lastSeen(env)).toEqual(['user:one', 'assistant:echo: one', 'user:four']);

    // Reverting a reply keeps the user message before it.
    const oneReply = messages[1]!.id;
    const again = await post<{ reverted: string[] }>(env, `/session/${sessionId}/revert`, { messageId: oneReply });
    expect(again.body.reverted).toHaveLength(3);
    expect(again.body.reverted[0]).toBe(oneReply);
    await send(env, sessionId, 'five');
    expect(lastSeen(env)).toEqual(['user:one', 'user:five']);
    expect(texts((await read(env, sessionId)).messages)).toEqual(['user:one', 'user:five', 'assistant:echo: five']);
  });

  test('is taken in PostgreSQL with no worker running; the next turn reads the conversation without what it took out', async ({ env }) => {
    const { sessionId, messages } = await conversationOf(env, 'one', 'two');
    const [, , two, twoReply] = messages.map((message) => message.id);
    await env.restartWorker(async () => {
      const reverted = await post(env, `/session/${sessionId}/revert`, { messageId: two });
      expect(reverted.status, reverted.text).toBe(200);
      expect(reverted.body).toEqual({ reverted: [two, twoReply] });
      expect(texts((await read(env, sessionId)).messages)).toEqual(['user:one', 'assistant:echo: one']);
      expect((await env.events(sessionId)).at(-1)).toMatchObject({ type: 'messages.reverted', messageIds: [two, twoReply] });
    });
    await send(env, sessionId, 'three');
    expect(lastSeen(env)).toEqual(['user:one', 'assistant:echo: one', 'user:three']);
  });

  test('a message not in this conversation is 404; a body without messageId is 400', async ({ env }) => {
    const { sessionId, messages } = await conversationOf(env, 'hello');
    const { sessionId: elsewhere, messages: foreign } = await conversationOf(env, 'elsewhere');
    expect((await post(env, `/session/${sessionId}/revert`, { messageId: foreign[0]!.id })).status).toBe(404);
    expect((await post(env, `/session/${sessionId}/revert`, { messageId: 'msg_doesnotexist' })).status).toBe(404);
    expect((await post(env, `/session/${sessionId}/revert`, {})).status).toBe(400);
    await post(env, `/session/${sessionId}/revert`, { messageId: messages[1]!.id });
    // Already reverted: no longer in the conversation.
    expect((await post(env, `/session/${sessionId}/revert`, { messageId: messages[1]!.id })).status).toBe(404);
    expect(texts((await read(env, elsewhere)).messages)).toEqual(['user:elsewhere', 'assistant:echo: elsewhere']);
    const other = await createTestUser(env.api.db);
    const forbidden = await call(`${env.api.url}/session/${sessionId}/revert`, {
      headers: other.auth,
      json: { messageId: messages[0]!.id },
    });
    expect(forbidden.status).toBe(403);
  });
});

describe('regenerate', () => {
  test('a new reply replaces the old one, in the events and in GET /session (waiting form)', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'first reply' });
    const first = await send(env, sessionId, 'question');
    const oldReply = first.body.replyMessageId;
    const before = env.fake.requests.length;

    env.fake.enqueue({ text: 'second reply' });
    const regenerated = await post(env, `/session/${sessionId}/regenerate`, { assistantMessageId: oldReply });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body).toEqual({
      messageId: first.body.messageId,
      turnId: expect.stringMatching(/^trn_/),
      reverted: [oldReply],
      reply: 'second reply',
      replyMessageId: expect.stringMatching(/^msg_/),
      status: 'completed',
    });
    const turnId = regenerated.body.turnId as string;
    expect(env.fake.requests.length).toBe(before + 1);
    expect(lastSeen(env)).toEqual(['user:question']);

    const session = await read(env, sessionId);
    expect(texts(session.messages)).toEqual(['user:question', 'assistant:second reply']);
    expect(session.messages[1]).toMatchObject({ id: regenerated.body.replyMessageId, turnId: first.body.messageId });

    const events = await env.events(sessionId);
    const revertAt = events.findIndex((event) => event.type === 'messages.reverted');
    expect(events[revertAt]).toMatchObject({ messageIds: [oldReply] });
    expect(events.slice(revertAt + 1).map((event) => event.type)).toEqual(
      expect.arrayContaining(['turn.started', 'message.created', 'message.completed', 'turn.completed']),
    );
    expect(events[revertAt + 1]).toMatchObject({ type: 'turn.started', turnId, userMessageId: first.body.messageId });
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId });
    expect(textFromEvents(events, regenerated.body.replyMessageId as string)).toBe('second reply');

    // The conversation goes on from the new reply.
    await send(env, sessionId, 'and then?');
    expect(lastSeen(env)).toEqual(['user:question', 'assistant:second reply', 'user:and then?']);
  });

  test('the SSE form streams the revert and the new turn; the async form answers 202', async ({ env }) => {
    const { sessionId, messages } = await conversationOf(env, 'tell me');
    env.fake.enqueue({ text: ['streamed ', 'again'] });
    const response = await fetch(`${env.api.url}/session/${sessionId}/regenerate`, {
      method: 'POST',
      headers: { ...env.user.auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ assistantMessageId: messages[1]!.id }),
    });
    expect(response.status).toBe(200);
    const turnId = response.headers.get('x-turn-id')!;
    expect(turnId).toMatch(/^trn_/);
    expect(response.headers.get('x-message-id')).toBe(messages[0]!.id);
    const frames = (await collectSse(response)).map((frame) => JSON.parse(frame.data) as SessionEvent);
    expect(frames[0]).toMatchObject({ type: 'messages.reverted', messageIds: [messages[1]!.id] });
    expect(frames[1]).toMatchObject({ type: 'turn.started', turnId });
    expect(frames.at(-1)).toMatchObject({ type: 'turn.completed', turnId });
    const created = frames.find((event) => event.type === 'message.created');
    expect(created && created.type === 'message.created' && textFromEvents(frames, created.message.id)).toBe('streamed again');

    const current = (await read(env, sessionId)).messages;
    const accepted = await post(env, `/session/${sessionId}/regenerate?async=1`, { assistantMessageId: current[1]!.id });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ messageId: messages[0]!.id, turnId: expect.stringMatching(/^trn_/), reverted: [current[1]!.id] });
    await env.waitForEvents(sessionId, ended(accepted.body.turnId as string));
    expect(texts((await read(env, sessionId)).messages)).toEqual(['user:tell me', 'assistant:echo: tell me']);
  });

  test('is taken in PostgreSQL with no worker running: 202 at once, the session busy, the new turn run once a worker is back', async ({
    env,
  }) => {
    const { sessionId, messages } = await conversationOf(env, 'once more');
    const [question, oldReply] = messages.map((message) => message.id);
    let turnId = '';
    await env.restartWorker(async () => {
      const accepted = await post(env, `/session/${sessionId}/regenerate?async=1`, { assistantMessageId: oldReply });
      expect(accepted.status, accepted.text).toBe(202);
      expect(accepted.body).toEqual({ messageId: question, turnId: expect.stringMatching(/^trn_/), reverted: [oldReply] });
      turnId = accepted.body.turnId as string;
      // Taken: the reply is out, the session is busy with the turn to come, and a revert now is refused.
      const meanwhile = await read(env, sessionId);
      expect(meanwhile.status).toBe('running');
      expect(texts(meanwhile.messages)).toEqual(['user:once more']);
      expect((await post(env, `/session/${sessionId}/revert`, { messageId: question })).status).toBe(409);
    });
    const events = await env.waitForEvents(sessionId, ended(turnId));
    expect(events.filter((event) => event.type === 'turn.started' && event.turnId === turnId)).toEqual([
      expect.objectContaining({ userMessageId: question }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId });
    const after = await read(env, sessionId);
    expect(after.status).toBe('idle');
    expect(texts(after.messages)).toEqual(['user:once more', 'assistant:echo: once more']);
    expect(after.messages[1]!.id).not.toBe(oldReply);
  });

  test('a regeneration taken with no worker running is aborted by POST /abort before it starts: it ends aborted, once', async ({ env }) => {
    const { sessionId, messages } = await conversationOf(env, 'never mind');
    const [question, oldReply] = messages.map((message) => message.id);
    let turnId = '';
    const requests = env.fake.requests.length;
    await env.restartWorker(async () => {
      const accepted = await post(env, `/session/${sessionId}/regenerate?async=1`, { assistantMessageId: oldReply });
      expect(accepted.status, accepted.text).toBe(202);
      turnId = accepted.body.turnId as string;
      // PostgreSQL says which turn the abort is for: the regeneration's, not started yet.
      const aborted = await post(env, `/session/${sessionId}/abort`);
      expect(aborted.status, aborted.text).toBe(200);
      expect(aborted.body).toEqual({ aborted: true });
    });
    const events = await env.waitForEvents(sessionId, ended(turnId));
    expect(events.filter((event) => 'turnId' in event && event.turnId === turnId).map((event) => event.type)).toEqual(['turn.aborted']);
    expect(env.fake.requests.length).toBe(requests);
    const after = await read(env, sessionId);
    expect(after.status).toBe('idle');
    expect(texts(after.messages)).toEqual(['user:never mind']);
    expect(after.messages[0]!.id).toBe(question);
  });

  test('regenerating the last reply of a tool round trip keeps the tool call and its result before it', async ({ env }) => {
    const sessionId = await env.newSession({ mcps: ['time'] });
    env.fake.enqueue({ toolCalls: [{ id: 'call_t', name: 'current_time', arguments: {} }] }, { text: 'It is noon.' });
    const first = await send(env, sessionId, 'time?');
    expect(first.body.reply).toBe('It is noon.');
    env.fake.enqueue({ text: 'It is midday.' });
    const again = await post(env, `/session/${sessionId}/regenerate`, { assistantMessageId: first.body.replyMessageId });
    expect(again.body).toMatchObject({ reply: 'It is midday.', status: 'completed' });
    expect(env.fake.requests.at(-1)!.body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect((await read(env, sessionId)).messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  test('400 for a message that is not an assistant reply, 404 for one of another session', async ({ env }) => {
    const { sessionId, messages } = await conversationOf(env, 'hi');
    const { messages: foreign } = await conversationOf(env, 'elsewhere');
    const notAssistant = await post(env, `/session/${sessionId}/regenerate`, { assistantMessageId: messages[0]!.id });
    expect(notAssistant.status).toBe(400);
    expect(notAssistant.body).toMatchObject({ errors: [{ path: '/assistantMessageId' }] });
    expect((await post(env, `/session/${sessionId}/regenerate`, { assistantMessageId: foreign[1]!.id })).status).toBe(404);
    expect(texts((await read(env, sessionId)).messages)).toEqual(['user:hi', 'assistant:echo: hi']);
  });
});

test('revert and regenerate answer 409 while a turn runs, and change nothing', async ({ env }) => {
  const { sessionId, messages } = await conversationOf(env, 'steady');
  env.fake.enqueue({ text: ['slow ', 'answer'], stallAfterChunks: 1 });
  const turnId = (await send(env, sessionId, 'busy now', '?async=1')).body.messageId;
  await env.waitForEvents(sessionId, streaming(turnId));

  const revert = await post(env, `/session/${sessionId}/revert`, { messageId: messages[0]!.id });
  expect(revert.status).toBe(409);
  expect(revert.headers.get('content-type')).toMatch(/problem\+json/);
  expect((await post(env, `/session/${sessionId}/regenerate`, { assistantMessageId: messages[1]!.id })).status).toBe(409);

  await post(env, `/session/${sessionId}/abort`);
  await env.waitForEvents(sessionId, ended(turnId));
  const events = await env.events(sessionId);
  expect(events.some((event) => event.type === 'messages.reverted')).toBe(false);
  expect(texts((await read(env, sessionId)).messages)).toEqual([
    'user:steady',
    'assistant:echo: steady',
    'user:busy now',
    'assistant:slow ',
  ]);
});

test('a revert racing a send is refused once the send has queued its turn', async ({ env }) => {
  const { sessionId, messages } = await conversationOf(env, 'base');
  env.fake.enqueue({ text: 'late', delayMs: 500 });
  const [sent, revert] = await Promise.all([
    send(env, sessionId, 'racing', '?async=1'),
    new Promise((resolve) => setTimeout(resolve, 50)).then(() => post(env, `/session/${sessionId}/revert`, { messageId: messages[0]!.id })),
  ]);
  expect(revert.status).toBe(409);
  await env.waitForEvents(sessionId, ended(sent.body.messageId));
  expect(texts((await read(env, sessionId)).messages)).toEqual(['user:base', 'assistant:echo: base', 'user:racing', 'assistant:late']);
});
