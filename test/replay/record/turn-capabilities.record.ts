// Records sessions whose turns (run in the session workflow) use the agent capabilities that wait or
// loop inside a turn: a custom tool answered through the `toolResult` Update (as an API of an earlier
// release sends it), a structured reply retried after an invalid one, a turn steered by a
// message sent while it streamed, and a subtask's session returning its reply to the session its
// command was called from. (A client's answer the API takes in PostgreSQL is recorded by
// turns-in-session.record.ts and taken-by-api.record.ts.) Each history closes when its idle session ends.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import { toolResultUpdate } from '../../../workflows/client-tools.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { recorder, type Recorder } from './recorder.ts';
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

test('sessionWorkflow: a client tool answered by the toolResult Update, announced by an activity scheduled with its acceptance', async () => {
  if (!record.wanted('sessionWorkflow', 'client-tool-answered-by-update')) return;
  const sessionId = await env.newSession({ customTools: [LOOKUP] });
  env.fake.enqueue({ toolCalls: [{ id: 'call_p', name: 'lookup_order', arguments: { orderId: 'A-2' } }] }, { text: 'Packed.' });
  const waiting = await send(sessionId, 'Where is A-2?');
  expect(waiting.body.status).toBe('waiting');
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'tool.call'));
  const toolCall = events.find((event) => event.type === 'tool.call') as Extract<SessionEvent, { type: 'tool.call' }>;
  const handle = env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId));
  const answered = await handle.executeUpdate(toolResultUpdate, {
    args: [{ messageId: toolCall.messageId, toolCallId: 'call_p', output: { status: 'packed' } }],
  });
  expect(answered).toEqual({ toolCallId: 'call_p', status: 'answered' });
  await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'client-tool-answered-by-update');
});

test('sessionWorkflow: a structured reply invalid once, then valid', async () => {
  if (!record.wanted('sessionWorkflow', 'json-reply-retried')) return;
  const sessionId = await env.newSession({ jsonReply: { schema: { type: 'object', required: ['ok'] } } });
  env.fake.enqueue({ text: 'not json' }, { text: '{"ok": true}' });
  const sent = await send(sessionId, 'go');
  expect(sent.body.status).toBe('completed');
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'json-reply-retried');
});

test('sessionWorkflow: a turn steered while it streamed', async () => {
  if (!record.wanted('sessionWorkflow', 'steered-idle-ended')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['a ', 'long ', 'answer'], chunkDelayMs: 500 }, { text: 'the steered answer' });
  const first = send(sessionId, 'first');
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
  const steered = await send(sessionId, 'change of plan', '?ifBusy=steer');
  expect(steered.body.reply).toBe('the steered answer');
  await first;
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
