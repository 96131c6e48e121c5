// Events from real turns: the session workflow publishes `session.completed` when a turn completed
// and none is queued, and `session.failed` when a turn failed; each arrives signed at the receiver,
// retried on WEBHOOK_RETRY_SCHEDULE_MS, as a `delivery:<id>` workflow findable in the Web UI.
import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentWithHooksTest } from '../helpers/harness/fixtures.ts';
import type { WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';
import { verifyWebhook, type WebhookEvent } from '../../lib/webhook-signature.ts';
import { KindKey, UserIdKey } from '../../lib/workflow-safe/search-attributes.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentWithHooksTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE_MS: '300,300' }, [
  'session.completed',
  'session.failed',
]);

const send = (env: AgentEnv, sessionId: string, text: string, query = '') =>
  call<{ messageId: string; status: string }>(`${env.api.url}/session/${sessionId}${query}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });

const ended = (turnId: string) => (events: SessionEvent[]) =>
  events.some((event) => event.type === 'turn.completed' && event.turnId === turnId);

/** Waits for `count` more deliveries than `before`, verifies each with both libraries, returns their events. */
async function received(hooks: WebhookReceiver & { secret: string }, before: number, count: number): Promise<WebhookEvent[]> {
  const requests = (await hooks.waitForRequests(before + count)).slice(before);
  return requests.map((request) => {
    const headers = request.headers as Record<string, string>;
    expect(new Webhook(hooks.secret).verify(request.body, headers)).toBeTruthy();
    return verifyWebhook({ body: request.body, headers, secret: hooks.secret });
  });
}

test('session.completed arrives after a real turn, signed, retried on the configured schedule', async ({ env, hooks }) => {
  const { name, agentId } = await env.deploy();
  const session = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
  const before = hooks.requests.length;
  hooks.enqueue(500);
  env.fake.enqueue({ text: 'Done.', usage: { promptTokens: 7, completionTokens: 2 } });
  const turnStarted = Date.now();
  const sent = await send(env, session.body.id, 'Do it');
  expect(sent.body.status).toBe('completed');

  const [event] = await received(hooks, before, 2).then((events) => {
    expect(events[0]).toEqual(events[1]);
    return events;
  });
  expect(event).toEqual({
    id: expect.stringMatching(/^dlv_/),
    type: 'session.completed',
    createdAt: expect.any(String),
    data: {
      sessionId: session.body.id,
      agentId,
      revision: 1,
      turnId: sent.body.messageId,
      status: 'completed',
      usage: { inputTokens: 7, outputTokens: 2 },
      costUsd: null,
    },
  });
  const [first, second] = hooks.requests.slice(before);
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(300);
  expect(first!.at).toBeGreaterThanOrEqual(turnStarted);

  const description = await env.worker.client.workflow.getHandle(`delivery:${event!.id}`).describe();
  expect(description.typedSearchAttributes.get(KindKey)).toBe('delivery');
  expect(description.typedSearchAttributes.get(UserIdKey)).toBe(env.user.userId);
  expect(await description.staticSummary()).toContain(event!.id);
});

test('session.failed arrives after a failing turn, with its error', async ({ env, hooks }) => {
  const sessionId = await env.newSession();
  const before = hooks.requests.length;
  env.fake.enqueue({ status: 400, errorBody: { error: { message: 'context too long', type: 'invalid_request_error' } } });
  const sent = await send(env, sessionId, 'Too much');
  expect(sent.body.status).toBe('failed');
  const [event] = await received(hooks, before, 1);
  expect(event).toMatchObject({
    type: 'session.failed',
    data: { sessionId, turnId: sent.body.messageId, status: 'failed', error: expect.stringContaining('context too long') },
  });
});

test('one session.completed for turns that ran back to back, and none for an aborted turn', async ({ env, hooks }) => {
  const sessionId = await env.newSession();
  const before = hooks.requests.length;
  // The first turn's reply waits until the next two sends are recorded, queued behind it.
  let release!: () => void;
  env.fake.enqueue({ text: 'one', holdUntil: new Promise<void>((resolve) => (release = resolve)) }, { text: 'two' }, { text: 'three' });
  const ids: string[] = [];
  for (const text of ['first', 'second', 'third']) ids.push((await send(env, sessionId, text, '?async=1')).body.messageId);
  await env.waitForEvents(
    sessionId,
    (events) => events.filter((event) => event.type === 'message.created' && event.message.role === 'user').length === 3,
  );
  release();
  await env.waitForEvents(sessionId, ended(ids[2]!));

  env.fake.enqueue({ text: ['partial ', 'text'], stallAfterChunks: 1 });
  const mark = (await env.events(sessionId)).at(-1)!.seq;
  const aborted = (await send(env, sessionId, 'stop me', '?async=1')).body.messageId;
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.seq > mark && event.type === 'message.part.delta'));
  await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.aborted' && event.turnId === aborted));
  env.fake.enqueue({ text: 'after' });
  const last = await send(env, sessionId, 'again');

  const events = await received(hooks, before, 2);
  expect(events.map((event) => [event.type, event.data.turnId])).toEqual([
    ['session.completed', ids[2]],
    ['session.completed', last.body.messageId],
  ]);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(hooks.requests.length).toBe(before + 2);
});

test('a send recorded after a turn wrote its end leaves that turn its session.completed, however late the worker sees the end', async ({
  env,
  hooks,
}) => {
  const sessionId = await env.newSession();
  const before = hooks.requests.length;
  let release!: () => void;
  env.fake.enqueue({ text: 'one', holdUntil: new Promise<void>((resolve) => (release = resolve)) }, { text: 'two' });
  const asked = env.fake.requests.length;
  const first = (await send(env, sessionId, 'first', '?async=1')).body.messageId;
  await env.fake.waitForRequests(asked + 1);
  // The worker stops while the model step runs: the step finishes in the shutdown's grace time and writes
  // turn.completed, but no workflow learns of it until a worker runs again. The next send arrives meanwhile,
  // so the session workflow finds it queued when it sees the first turn's end: the gap a busy worker makes.
  let second = '';
  const restarted = env.restartWorker(async () => {
    await env.waitForEvents(sessionId, ended(first));
    second = (await send(env, sessionId, 'second', '?async=1')).body.messageId;
  });
  release();
  await restarted;
  await env.waitForEvents(sessionId, ended(second));

  const events = await received(hooks, before, 2);
  expect(events.map((event) => [event.type, event.data.turnId])).toEqual([
    ['session.completed', first],
    ['session.completed', second],
  ]);
});
