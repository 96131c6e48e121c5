// Records sessions with what the API takes with no worker: a client tool answer PostgreSQL took
// (store/client-tool-answers.ts), handed to the waiting turn with the session's inbox and written by a
// local activity; a wait that times out, closing its calls in PostgreSQL first (an answer stored before
// the close is taken, none after it); aborts by signal, of a streaming turn and of a turn asked before
// it started.
// Each history closes when its idle session ends.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let record: Recorder;
/** What no fixture may hold. */
const secrets: string[] = [];
beforeAll(async () => {
  // An idle session ends after a second, so its history closes; a client call waits three.
  env = await startAgentEnv({ ...RECORDING_ENV, SESSION_IDLE_MS: '1000', CLIENT_TOOL_TIMEOUT_MS: '3000' });
  record = recorder(env.worker.client, secrets);
  secrets.push(env.user.apiKey);
});
afterAll(async () => env?.close());

const LOOKUP = {
  id: 'lookup_order',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
};

const send = (sessionId: string, text: string) =>
  call<{ messageId: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });

const turnEnded = (events: SessionEvent[]) =>
  events.some((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type));

test('sessionWorkflow: a client tool answer taken by the API, handed to the waiting turn with the inbox', async () => {
  if (!record.wanted('sessionWorkflow', 'client-tool-taken-by-api')) return;
  const sessionId = await env.newSession({ customTools: [LOOKUP] });
  env.fake.enqueue({ toolCalls: [{ id: 'call_t', name: 'lookup_order', arguments: { orderId: 'T-1' } }] }, { text: 'Taken.' });
  expect((await send(sessionId, 'Where is T-1?')).body.status).toBe('waiting');
  const answered = await call(`${env.api.url}/session/${sessionId}/tool-result`, {
    headers: env.user.auth,
    json: { toolCallId: 'call_t', output: { status: 'packed' } },
  });
  expect(answered.status).toBe(200);
  await env.waitForEvents(sessionId, turnEnded);
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'client-tool-taken-by-api');
});

test('sessionWorkflow: a client tool wait that times out, its calls closed in PostgreSQL first', async () => {
  if (!record.wanted('sessionWorkflow', 'client-tool-timed-out')) return;
  const sessionId = await env.newSession({ customTools: [LOOKUP] });
  env.fake.enqueue({ toolCalls: [{ id: 'call_u', name: 'lookup_order', arguments: { orderId: 'U-1' } }] }, { text: 'Nobody answered.' });
  expect((await send(sessionId, 'Where is U-1?')).body.status).toBe('waiting');
  await env.waitForEvents(sessionId, turnEnded, 20_000);
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'client-tool-timed-out');
});

test('sessionWorkflow: aborts by signal: a turn aborted while streaming, and one whose abort came before it started', async () => {
  if (!record.wanted('sessionWorkflow', 'aborts-by-signal')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['partial ', 'text ', 'so ', 'far'], stallAfterChunks: 2 });
  await call(`${env.api.url}/session/${sessionId}?async=1`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'long' }] } });
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
  const aborted = await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
  expect(aborted.body).toEqual({ aborted: true });
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.aborted'));
  // With no worker, the next send's turn is what an abort is for: it starts cancelled once one runs.
  await env.restartWorker(async () => {
    await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'again' }] },
    });
    const early = await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
    expect(early.body).toEqual({ aborted: true });
  });
  await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.aborted').length === 2);
  // The restarted worker has a client of its own; the first one closed with its worker.
  record = recorder(env.worker.client, secrets);
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'aborts-by-signal');
});
