// Records a turn that waited for a place among its user's running turns (RUNNING_TURNS_PER_USER) and
// was woken by the signal of the step that gave its place back: a timer started, then cancelled.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { turnWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let record: Recorder;
beforeAll(async () => {
  env = await startAgentEnv({ ...RECORDING_ENV, RUNNING_TURNS_PER_USER: '1' });
  record = recorder(env.worker.client, [env.user.apiKey]);
});
afterAll(async () => {
  await env?.close();
});

const sendAsync = async (sessionId: string, text: string) => {
  const sent = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });
  expect(sent.status).toBe(202);
  return sent.body.messageId;
};
const has = (type: string) => (events: SessionEvent[]) => events.some((event) => event.type === type);

test("turnWorkflow: queued behind its user's running turn, woken when that turn's step gives its place back", async () => {
  if (!record.wanted('turnWorkflow', 'queued-then-woken')) return;
  const [first, second] = [await env.newSession(), await env.newSession()];
  let release!: () => void;
  env.fake.enqueue({ text: 'First.', holdUntil: new Promise<void>((resolve) => (release = resolve)) }, { text: 'Second.' });
  const asked = env.fake.requests.length;
  await sendAsync(first, 'first');
  await env.fake.waitForRequests(asked + 1);
  const waiting = await sendAsync(second, 'second');
  await env.waitForEvents(second, has('turn.queued'));
  release();
  await env.waitForEvents(second, has('turn.completed'));
  await record.closed(turnWorkflowId(second, waiting), 'turnWorkflow', 'queued-then-woken');
});
