// Records a session whose turn's first step waited for a place among its user's running turns
// (RUNNING_TURNS_PER_USER) and was woken by the signal of the step that gave its place back: a timer
// started, then cancelled. Its history closes when the idle session ends.
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
  env = await startAgentEnv({ ...RECORDING_ENV, RUNNING_TURNS_PER_USER: '1', SESSION_IDLE_MS: '1000' });
  record = recorder(env.worker.client, [env.user.apiKey]);
});
afterAll(async () => {
  await env?.close();
});

const sendAsync = async (sessionId: string, text: string) => {
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });
  expect(sent.status).toBe(202);
};
const has = (type: string) => (events: SessionEvent[]) => events.some((event) => event.type === type);

test("sessionWorkflow: a turn queued behind its user's running turn, woken when that turn's step gives its place back", async () => {
  if (!record.wanted('sessionWorkflow', 'queued-then-woken')) return;
  const [first, second] = [await env.newSession(), await env.newSession()];
  let release!: () => void;
  env.fake.enqueue({ text: 'First.', holdUntil: new Promise<void>((resolve) => (release = resolve)) }, { text: 'Second.' });
  const asked = env.fake.requests.length;
  await sendAsync(first, 'first');
  await env.fake.waitForRequests(asked + 1);
  await sendAsync(second, 'second');
  await env.waitForEvents(second, has('turn.queued'));
  release();
  await env.waitForEvents(second, has('turn.completed'));
  await record.closed(sessionWorkflowId(second), 'sessionWorkflow', 'queued-then-woken');
});
