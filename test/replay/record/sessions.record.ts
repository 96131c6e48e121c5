// Records sessions and webhook deliveries as the service makes them, each session's turns run in its
// session workflow: a turn with a built-in tool call, a session with a running turn and two queued
// ones, sends recorded while a turn ends, a turn aborted while streaming (alone, and with a send after
// it), a failed turn, a session.completed delivery waiting between attempts (its receiver fails first),
// and a turn completed with one queued behind it. Plus the probe. Each session's history closes when
// the idle session ends.
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/fakes/webhook-receiver.ts';
import { call } from '../../helpers/client/request.ts';
import { sessionWorkflowId, deliveryWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import { stateQuery } from '../../../workflows/session.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { EventType, hasEvent, recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let record: Recorder;
const receivers: WebhookReceiver[] = [];
/** The user's key and webhook secrets: none may appear in a history. */
const secrets: string[] = [];
beforeAll(async () => {
  // An idle session ends after a second, so its history closes; a failed delivery retries after two.
  env = await startAgentEnv({
    ...RECORDING_ENV,
    SESSION_IDLE_MS: '1000',
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE_MS: '2000,2000',
  });
  secrets.push(env.user.apiKey);
  record = recorder(env.worker.client, secrets);
  // Every session's end is published (and delivered: this receiver answers 200).
  const hooks = await startWebhookReceiver();
  receivers.push(hooks);
  await subscribe(hooks.url, ['session.completed', 'session.failed']);
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await env?.close();
});

/** Subscribes the user's webhook to `events` at `url`; its id. */
async function subscribe(url: string, events: string[]): Promise<string> {
  const created = await call<{ id: string; secret: string }>(`${env.api.url}/webhook`, { headers: env.user.auth, json: { url, events } });
  expect(created.status).toBe(201);
  secrets.push(created.body.secret);
  return created.body.id;
}

const send = (sessionId: string, text: string, query = '') =>
  call<{ messageId: string; reply?: string }>(`${env.api.url}/session/${sessionId}${query}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });

const turnsEnded = (count: number) => (events: SessionEvent[]) =>
  events.filter((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type)).length >= count;

test('systemCheckWorkflow: the probe', async () => {
  if (!record.wanted('systemCheckWorkflow', 'completed')) return;
  const workflowId = `system-check-${env.worker.taskQueue}`;
  await env.worker.client.workflow.execute('systemCheckWorkflow', { taskQueue: env.worker.taskQueue, workflowId });
  await record.closed(workflowId, 'systemCheckWorkflow', 'completed');
});

test('sessionWorkflow: a built-in tool call (time) and the answer after it, turn.started and turn.completed written by the model steps', async () => {
  if (!record.wanted('sessionWorkflow', 'builtin-tool-completed')) return;
  const sessionId = await env.newSession({ mcps: ['time'] });
  env.fake.enqueue(
    { toolCalls: [{ id: 'call_time', name: 'current_time', arguments: { timezone: 'Europe/Paris' } }] },
    { text: 'It is late.' },
  );
  const sent = await send(sessionId, 'What time is it in Paris?');
  expect(sent.body.reply).toBe('It is late.');
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'builtin-tool-completed');
});

test('sessionWorkflow: a turn running, two queued (an Update and a signal), then idle; and its delivery between attempts', async () => {
  if (!record.wanted('sessionWorkflow', 'queued-turns-idle-ended')) return;
  // A receiver of its own that fails its first request: no other session's event reaches it.
  const flaky = await startWebhookReceiver();
  receivers.push(flaky);
  flaky.enqueue(500);
  const subscription = await subscribe(flaky.url, ['session.completed']);
  const sessionId = await env.newSession();
  // The first reply streams slowly, so the next two sends queue behind it.
  env.fake.enqueue({ text: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 300 }, { text: 'second' }, { text: 'third' });
  const first = send(sessionId, 'first');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.started'));
  const second = send(sessionId, 'second');
  expect((await send(sessionId, 'third', '?async=1')).status).toBe(202);
  const handle = env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId));
  await vi.waitFor(async () => expect((await handle.query(stateQuery)).queued).toHaveLength(2), { timeout: 10_000 });
  await record.inFlight(sessionWorkflowId(sessionId), 'sessionWorkflow', 'turn-running-two-queued', () => true);
  await Promise.all([first, second]);
  await env.waitForEvents(sessionId, turnsEnded(3));

  // Only the last turn ends with nothing queued: its session.completed is the one delivery.
  const deliveryId = await vi.waitFor(
    async () => {
      const { rows } = await env.api.db.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE subscription_id = $1', [
        subscription,
      ]);
      if (!rows[0]) throw new Error('no delivery yet');
      return rows[0].id;
    },
    { timeout: 10_000 },
  );
  const delivery = deliveryWorkflowId(deliveryId);
  await record.inFlight(delivery, 'deliveryWorkflow', 'waiting-to-retry', (history) =>
    hasEvent(history, EventType.EVENT_TYPE_TIMER_STARTED),
  );
  await record.closed(delivery, 'deliveryWorkflow', 'delivered-on-retry');
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'queued-turns-idle-ended');
});

test('sessionWorkflow: sends arriving while a turn runs are recorded before its end is acted on', async () => {
  if (!record.wanted('sessionWorkflow', 'sends-settled-idle-ended')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['one ', 'two ', 'three'], chunkDelayMs: 300 }, { text: 'steered' }, { text: 'queued' });
  const first = send(sessionId, 'first');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.started'));
  // One steers the running turn, one queues behind it.
  expect((await send(sessionId, 'a steer', '?async=1&ifBusy=steer')).status).toBe(202);
  expect((await send(sessionId, 'queued', '?async=1')).status).toBe(202);
  await first;
  await env.waitForEvents(sessionId, turnsEnded(2));
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'sends-settled-idle-ended');
});

test('sessionWorkflow: a turn aborted while streaming, then another send', async () => {
  if (!record.wanted('sessionWorkflow', 'aborted-then-sent')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['partial ', 'text ', 'so ', 'far'], stallAfterChunks: 2 }, { text: 'back' });
  await send(sessionId, 'long story', '?async=1');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
  const aborted = await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
  expect(aborted.body).toEqual({ aborted: true });
  await env.waitForEvents(sessionId, turnsEnded(1));
  expect((await send(sessionId, 'again')).body.reply).toBe('back');
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'aborted-then-sent');
});

test('sessionWorkflow: a turn aborted while streaming tells the worker streaming its step of the cancellation (a local activity)', async () => {
  if (!record.wanted('sessionWorkflow', 'aborted-by-notice')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['partial ', 'text ', 'so ', 'far'], stallAfterChunks: 2 });
  await send(sessionId, 'long story', '?async=1');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
  const aborted = await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
  expect(aborted.body).toEqual({ aborted: true });
  await env.waitForEvents(sessionId, turnsEnded(1));
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'aborted-by-notice');
});

test('sessionWorkflow: a turn the model rejects fails; session.failed is published', async () => {
  if (!record.wanted('sessionWorkflow', 'turn-failed')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ status: 401, errorBody: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
  await send(sessionId, 'hello', '?async=1');
  await env.waitForEvents(sessionId, turnsEnded(1));
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'turn-failed');
});

test('sessionWorkflow: a turn completed with a turn queued behind it reads the seq of its end, to tell whether the session was idle', async () => {
  if (!record.wanted('sessionWorkflow', 'queued-behind-end-seq-read')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['one ', 'two ', 'three'], chunkDelayMs: 300 }, { text: 'queued' });
  const first = send(sessionId, 'first');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.started'));
  expect((await send(sessionId, 'queued', '?async=1')).status).toBe(202);
  await first;
  await env.waitForEvents(sessionId, turnsEnded(2));
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'queued-behind-end-seq-read');
});
