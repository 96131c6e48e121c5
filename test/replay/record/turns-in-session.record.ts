// Records sessions, whose turns run in the session workflow itself: a turn with a built-in tool call,
// steered while it streamed, with a send queued behind it; a turn aborted while streaming, then one the
// model rejects; a turn waiting on a custom tool run by the client (in flight), then answered (the
// answer taken by the API in PostgreSQL and handed over with the inbox); a turn whose user has no
// webhook subscription (nothing published), then one after the user subscribed (its end published and
// delivered); turns that compact the conversation (after the provider refused it as too long, and past
// the threshold), then a compaction asked for through the API; a step whose tools' policies ask first
// (two approvals, answered in reverse order, one approved; the session's settings carry the workflows'
// task timeout, which its approval children start with). Each history closes when its idle session ends.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { EventType, recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';
import { startWebhookReceiver } from '../../helpers/fakes/webhook-receiver.ts';
import { filler, isSummarising } from '../../helpers/fakes/compaction-requests.ts';

let env: AgentEnv;
let record: Recorder;
/** What no fixture may hold. */
const secrets: string[] = [];
beforeAll(async () => {
  // An idle session ends after a second, so its history closes.
  // Webhooks are delivered to a receiver on this machine.
  env = await startAgentEnv({ ...RECORDING_ENV, SESSION_IDLE_MS: '1000', OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  record = recorder(env.worker.client, secrets);
  secrets.push(env.user.apiKey);
});
afterAll(async () => env?.close());

const send = (sessionId: string, text: string, query = '') =>
  call<{ messageId: string; status: string; reply?: string }>(`${env.api.url}/session/${sessionId}${query}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });

const turnsEnded = (count: number) => (events: SessionEvent[]) =>
  events.filter((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type)).length >= count;

test('sessionWorkflow: a tool call, a steer while streaming, a send queued behind', async () => {
  if (!record.wanted('sessionWorkflow', 'tool-steer-queue')) return;
  const sessionId = await env.newSession({ mcps: ['time'] });
  env.fake.enqueue(
    { toolCalls: [{ id: 'call_time', name: 'current_time', arguments: { timezone: 'UTC' } }] },
    { text: ['it ', 'is ', 'noon'], chunkDelayMs: 300 },
    { text: 'Noted.' },
    { text: 'Queued answer.' },
  );
  const first = send(sessionId, 'What time is it?');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
  expect((await send(sessionId, 'and in Paris?', '?async=1&ifBusy=steer')).status).toBe(202);
  expect((await send(sessionId, 'queued', '?async=1')).status).toBe(202);
  await first;
  await env.waitForEvents(sessionId, turnsEnded(2));
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'tool-steer-queue');
});

test('sessionWorkflow: a turn aborted while streaming, then one the model rejects', async () => {
  if (!record.wanted('sessionWorkflow', 'aborted-failed')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue(
    { text: ['partial ', 'text ', 'so ', 'far'], stallAfterChunks: 2 },
    { status: 401, errorBody: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } },
  );
  await send(sessionId, 'long story', '?async=1');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
  const aborted = await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
  expect(aborted.body).toEqual({ aborted: true });
  await env.waitForEvents(sessionId, turnsEnded(1));
  await send(sessionId, 'hello', '?async=1');
  await env.waitForEvents(sessionId, turnsEnded(2));
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'aborted-failed');
});

test('sessionWorkflow: a turn waiting on a custom tool run by the client, then answered', async () => {
  if (!record.wanted('sessionWorkflow', 'client-tool-answered')) return;
  const lookup = {
    id: 'lookup_order',
    description: 'Look up an order',
    parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  };
  const sessionId = await env.newSession({ customTools: [lookup] });
  env.fake.enqueue({ toolCalls: [{ id: 'call_o', name: 'lookup_order', arguments: { orderId: 'A-1' } }] }, { text: 'Shipped.' });
  const waiting = await send(sessionId, 'Where is A-1?');
  expect(waiting.body.status).toBe('waiting');
  const session = sessionWorkflowId(sessionId);
  if (record.wanted('sessionWorkflow', 'waiting-on-client-tool')) {
    // The client-tool wait's timer, set after the model step came back (the session may have set an idle timer before it).
    await record.inFlight(session, 'sessionWorkflow', 'waiting-on-client-tool', (history) => {
      const types = (history.events ?? []).map((event) => event.eventType);
      const stepDone = types.indexOf(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
      return stepDone >= 0 && types.lastIndexOf(EventType.EVENT_TYPE_TIMER_STARTED) > stepDone;
    });
  }
  const answered = await call(`${env.api.url}/session/${sessionId}/tool-result`, {
    headers: env.user.auth,
    json: { toolCallId: 'call_o', output: { status: 'shipped' } },
  });
  expect(answered.status).toBe(200);
  await env.waitForEvents(sessionId, turnsEnded(1));
  await record.closed(session, 'sessionWorkflow', 'client-tool-answered');
});

test('sessionWorkflow: a completed turn with no webhook subscription publishes nothing; one after subscribing does', async () => {
  if (!record.wanted('sessionWorkflow', 'unsubscribed-then-subscribed')) return;
  const receiver = await startWebhookReceiver();
  try {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'Nobody listens.' }, { text: 'Someone listens.' });
    expect((await send(sessionId, 'one')).body.status).toBe('completed');
    const created = await call<{ id: string; secret: string }>(`${env.api.url}/webhook`, {
      headers: env.user.auth,
      json: { url: receiver.url, events: ['session.completed'] },
    });
    expect(created.status).toBe(201);
    secrets.push(created.body.secret);
    expect((await send(sessionId, 'two')).body.status).toBe('completed');
    await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'unsubscribed-then-subscribed');
    await call(`${env.api.url}/webhook/${created.body.id}`, { method: 'DELETE', headers: env.user.auth });
  } finally {
    await receiver.close();
  }
});

test('sessionWorkflow: compactions, after a context-length refusal and past the threshold, then one asked for', async () => {
  if (!record.wanted('sessionWorkflow', 'compactions')) return;
  // A 4,000-token window the service learns from the first refusal; the later turns compact before it.
  env.fake.setContextWindow(4_000);
  env.fake.setHandler((request) => ({ text: isSummarising(request) ? 'SUMMARY so far.' : filler('answer') }));
  try {
    const sessionId = await env.newSession();
    let compactions = 0;
    for (let index = 1; compactions < 2; index++) {
      expect((await send(sessionId, `question-${index} ${filler(`q${index}`)}`)).body.status).toBe('completed');
      compactions = (await env.events(sessionId)).filter((event) => event.type === 'session.compacted').length;
      expect(index).toBeLessThan(20);
    }
    const asked = await call<{ compacted: boolean }>(`${env.api.url}/session/${sessionId}/compact`, { headers: env.user.auth, json: {} });
    expect(asked.body.compacted).toBe(true);
    await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'compactions');
  } finally {
    env.fake.setHandler(undefined);
    env.fake.setContextWindow(undefined);
  }
});

// Two approval children, started with the task timeout the session's settings carry (WORKFLOW_TASK_TIMEOUT_MS,
// workflows/ask-user.ts).
test("sessionWorkflow: a step's tool calls asked about by their policy, answered in reverse order", async () => {
  if (!record.wanted('sessionWorkflow', 'tool-approvals')) return;
  const sessionId = await env.newSession({ mcps: ['time'], toolPolicies: { time: { '*': 'ask' } } });
  env.fake.enqueue(
    {
      toolCalls: [
        { id: 'call_1', name: 'current_time', arguments: { timezone: 'Europe/Paris' } },
        { id: 'call_2', name: 'current_time', arguments: { timezone: 'Asia/Tokyo' } },
      ],
    },
    { text: 'Tokyo only.' },
  );
  const waiting = await call<{ status: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'What time is it?' }] },
  });
  expect(waiting.status).toBe(202);
  const asked = async () => {
    for (let tries = 0; tries < 200; tries++) {
      const requested = (await env.events(sessionId)).filter((event) => event.type === 'approval.requested');
      if (requested.length === 2) return requested as Extract<SessionEvent, { type: 'approval.requested' }>[];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the two approvals were not asked');
  };
  const [paris, tokyo] = (await asked()).sort((a, b) => String(a.toolCallId).localeCompare(String(b.toolCallId)));
  const answer = (approvalId: string, choice: string) =>
    call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice } });
  expect((await answer(tokyo!.approvalId, 'approve')).status).toBe(200);
  expect((await answer(paris!.approvalId, 'deny')).status).toBe(200);
  for (let tries = 0; tries < 200; tries++) {
    if ((await env.events(sessionId)).some((event) => event.type === 'turn.completed')) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'tool-approvals');
});
