// Records a session whose sends the API took in PostgreSQL (store/session-inbox.ts) and handed over by
// the `sendsWaiting` signal: a turn running while a send queues behind it, a steering send joins it and
// an interrupting one cancels it; the steering it did not finish, the interrupt and the queued send
// then run as turns, and the idle session ends. Then a regeneration taken the same way: its turn comes
// through the inbox too.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let record: Recorder;
beforeAll(async () => {
  env = await startAgentEnv({ ...RECORDING_ENV, SESSION_IDLE_MS: '1000' });
  record = recorder(env.worker.client, [env.user.apiKey]);
});
afterAll(async () => {
  await env?.close();
});

const sendAsync = async (sessionId: string, text: string, ifBusy = 'queue') => {
  const sent = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}?async=1&ifBusy=${ifBusy}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });
  expect(sent.status).toBe(202);
  return sent.body.messageId;
};
const ended = (count: number) => (events: SessionEvent[]) =>
  events.filter((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type)).length >= count;

test('sessionWorkflow: sends taken from the inbox (queued, steering, interrupting), then idle and ended', async () => {
  if (!record.wanted('sessionWorkflow', 'inbox-sends-idle-ended')) return;
  const sessionId = await env.newSession();
  let release!: () => void;
  env.fake.enqueue(
    { text: ['one ', 'moment'], holdUntil: new Promise<void>((resolve) => (release = resolve)) },
    { text: 'The steering, on its own.' },
    { text: 'Interrupted you.' },
    { text: 'Queued answer.' },
  );
  const asked = env.fake.requests.length;
  await sendAsync(sessionId, 'first');
  await env.fake.waitForRequests(asked + 1);
  await sendAsync(sessionId, 'queued');
  await sendAsync(sessionId, 'and also this', 'steer');
  await sendAsync(sessionId, 'stop, do this', 'interrupt');
  release();
  await env.waitForEvents(sessionId, ended(4), 30_000);
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'inbox-sends-idle-ended');
});

test('sessionWorkflow: a regeneration taken in PostgreSQL (its revert and its turn in the inbox), then idle and ended', async () => {
  if (!record.wanted('sessionWorkflow', 'regeneration-taken-idle-ended')) return;
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: 'A first answer.' }, { text: 'A second answer.' });
  const first = await call<{ replyMessageId: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'answer twice' }] },
  });
  expect(first.status).toBe(200);
  const again = await call(`${env.api.url}/session/${sessionId}/regenerate?async=1`, {
    headers: env.user.auth,
    json: { assistantMessageId: first.body.replyMessageId },
  });
  expect(again.status).toBe(202);
  await env.waitForEvents(sessionId, ended(2), 30_000);
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'regeneration-taken-idle-ended');
});
