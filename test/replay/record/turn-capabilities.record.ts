// Records the turns of the agent capabilities that wait or loop inside a turn: a custom tool waiting on
// the client (in flight, then answered), a structured reply retried after an invalid one, a turn
// steered by a message sent while it streamed (the session's history with it too), and a subtask's session
// returning its reply to the session its command was called from.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { sessionWorkflowId, turnWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import { EventType, hasEvent, recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let record: Recorder;
beforeAll(async () => {
  // An idle session ends after a second, so its history closes.
  env = await startAgentEnv({ ...RECORDING_ENV, SESSION_IDLE_MS: '1000' });
  record = recorder(env.worker.client, [env.user.apiKey]);
});
afterAll(async () => env?.close());

const send = (sessionId: string, text: string, query = '') =>
  call<{ messageId: string; status: string; reply?: string }>(`${env.api.url}/session/${sessionId}${query}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });

const LOOKUP = {
  id: 'lookup_order',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
};

test('turnWorkflow: waiting on a custom tool run by the client, then answered', async () => {
  if (!record.wanted('turnWorkflow', 'client-tool-answered')) return;
  const sessionId = await env.newSession({ customTools: [LOOKUP] });
  env.fake.enqueue({ toolCalls: [{ id: 'call_o', name: 'lookup_order', arguments: { orderId: 'A-1' } }] }, { text: 'Shipped.' });
  const waiting = await send(sessionId, 'Where is A-1?');
  expect(waiting.body.status).toBe('waiting');
  const turn = turnWorkflowId(sessionId, waiting.body.messageId);
  if (record.wanted('turnWorkflow', 'waiting-on-client-tool')) {
    await record.inFlight(turn, 'turnWorkflow', 'waiting-on-client-tool', (history) =>
      hasEvent(history, EventType.EVENT_TYPE_TIMER_STARTED),
    );
  }
  const answered = await call(`${env.api.url}/session/${sessionId}/tool-result`, {
    headers: env.user.auth,
    json: { toolCallId: 'call_o', output: { status: 'shipped' } },
  });
  expect(answered.status).toBe(200);
  await record.closed(turn, 'turnWorkflow', 'client-tool-answered');
});

test('turnWorkflow: a client tool answered, announced by an activity after the acceptance (patch tool-result-after-acceptance)', async () => {
  if (!record.wanted('turnWorkflow', 'client-tool-answered-after-acceptance')) return;
  const sessionId = await env.newSession({ customTools: [LOOKUP] });
  env.fake.enqueue({ toolCalls: [{ id: 'call_p', name: 'lookup_order', arguments: { orderId: 'A-2' } }] }, { text: 'Packed.' });
  const waiting = await send(sessionId, 'Where is A-2?');
  expect(waiting.body.status).toBe('waiting');
  const answered = await call(`${env.api.url}/session/${sessionId}/tool-result`, {
    headers: env.user.auth,
    json: { toolCallId: 'call_p', output: { status: 'packed' } },
  });
  expect(answered.status).toBe(200);
  await record.closed(turnWorkflowId(sessionId, waiting.body.messageId), 'turnWorkflow', 'client-tool-answered-after-acceptance');
});

test('turnWorkflow: a structured reply invalid once, then valid', async () => {
  if (!record.wanted('turnWorkflow', 'json-reply-retried')) return;
  const sessionId = await env.newSession({ jsonReply: { schema: { type: 'object', required: ['ok'] } } });
  env.fake.enqueue({ text: 'not json' }, { text: '{"ok": true}' });
  const sent = await send(sessionId, 'go');
  expect(sent.body.status).toBe('completed');
  await record.closed(turnWorkflowId(sessionId, sent.body.messageId), 'turnWorkflow', 'json-reply-retried');
});

test('turnWorkflow and sessionWorkflow: a turn steered while it streamed', async () => {
  if (!record.wanted('turnWorkflow', 'steered') && !record.wanted('sessionWorkflow', 'steered-idle-ended')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['a ', 'long ', 'answer'], chunkDelayMs: 500 }, { text: 'the steered answer' });
  const first = send(sessionId, 'first');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
  const steered = await send(sessionId, 'change of plan', '?ifBusy=steer');
  expect(steered.body.reply).toBe('the steered answer');
  const turnId = (await first).body.messageId;
  await record.closed(turnWorkflowId(sessionId, turnId), 'turnWorkflow', 'steered');
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'steered-idle-ended');
});

test("sessionWorkflow: a subtask's session returning its reply to the calling session", async () => {
  if (!record.wanted('sessionWorkflow', 'subtask-replied-idle-ended')) return;
  const { name } = await env.deploy({ command: { research: { template: 'Research ${1}', subtask: true } } });
  const parent = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
  env.fake.enqueue({ text: 'Tides follow the moon.' });
  const sub = await call<{ sessionId: string; parentSessionId: string }>(`${env.api.url}/agent/${name}/command/research`, {
    headers: env.user.auth,
    json: { args: ['tides'], sessionId: parent.body.id },
  });
  expect(sub.body.parentSessionId).toBe(parent.body.id);
  await record.closed(sessionWorkflowId(sub.body.sessionId), 'sessionWorkflow', 'subtask-replied-idle-ended');
});
