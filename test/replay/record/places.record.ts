// Records a session whose tool calls and compaction took places among its user's running work
// (RUNNING_TURNS_PER_USER, here 1): a step whose `ask` call made it run its calls at once, one of them
// queued behind the other and woken when that one gave its place back; then a compaction asked for
// while a step of another session of the user held the place, queued and woken the same way.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { closeServer } from '../../helpers/fakes/recorded.ts';
import { lastUserText } from '../../helpers/fakes/fake-model.ts';
import { sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let record: Recorder;
beforeAll(async () => {
  // An idle session ends after a second, so its history closes; the http tool reaches a receiver here.
  env = await startAgentEnv({
    ...RECORDING_ENV,
    RUNNING_TURNS_PER_USER: '1',
    SESSION_IDLE_MS: '1000',
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
  });
  record = recorder(env.worker.client, [env.user.apiKey]);
});
afterAll(async () => env?.close());

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the recording did not reach the state it waits for');
}

const has = (type: SessionEvent['type']) => (events: SessionEvent[]) => events.some((event) => event.type === type);
const waiters = async () => (await env.api.db.query('SELECT 1 FROM step_waiters WHERE user_id = $1', [env.user.userId])).rows.length;

test('sessionWorkflow: a tool call and an asked-for compaction queued for a place, each woken when one is given back', async () => {
  if (!record.wanted('sessionWorkflow', 'places-tool-call-and-compaction-queued')) return;
  const answers: Array<() => void> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => answers.push(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(`done: ${body}`)));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  const post = (id: string, body: string) => ({ id, name: 'http_request', arguments: { url, method: 'POST', body } });
  let stepped!: () => void;
  const stepHeld = new Promise<void>((resolve) => (stepped = resolve));
  env.fake.setHandler((request) => {
    if (request.body.messages.at(-1)?.role === 'tool') return { text: 'Both sent.' };
    if (lastUserText(request) === 'slow') return { text: 'Slow.', holdUntil: stepHeld };
    return { toolCalls: [{ id: 'call_time', name: 'current_time', arguments: {} }, post('call_one', 'one'), post('call_two', 'two')] };
  });
  try {
    const sessionId = await env.newSession({ mcps: ['http', 'time'], toolPolicies: { time: { current_time: 'ask' } } });
    const other = await env.newSession();
    const sendAsync = async (id: string, text: string) =>
      expect(
        (await call(`${env.api.url}/session/${id}?async=1`, { headers: env.user.auth, json: { parts: [{ type: 'text', text }] } })).status,
      ).toBe(202);

    await sendAsync(sessionId, 'send both');
    await until(waiters, (count) => count > 0 && answers.length > 0);
    answers.shift()!();
    await until(
      async () => answers.length,
      (count) => count > 0,
    );
    answers.shift()!();
    const asked = await until(() => env.events(sessionId), has('approval.requested'));
    const approvalId = asked.find((event) => event.type === 'approval.requested')!.approvalId;
    expect((await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'deny' } })).status).toBe(
      200,
    );
    await until(() => env.events(sessionId), has('turn.completed'));

    const before = env.fake.requests.length;
    await sendAsync(other, 'slow');
    await until(
      async () => env.fake.requests.length,
      (count) => count > before,
    );
    const compacting = call(`${env.api.url}/session/${sessionId}/compact`, { headers: env.user.auth, json: {} });
    await until(waiters, (count) => count > 0);
    stepped();
    expect((await compacting).status).toBe(200);
    await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'places-tool-call-and-compaction-queued');
  } finally {
    stepped();
    env.fake.setHandler(undefined);
    for (const answer of answers) answer();
    await closeServer(receiver);
  }
});
