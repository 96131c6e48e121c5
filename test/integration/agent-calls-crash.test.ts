// A worker SIGKILLed while a child session (another agent's call) streams its reply: a live worker
// runs the child's step again and the caller's turn completes with one child session, one call, one
// result, whatever the dead worker had started.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import { messageText, type FakeRequest } from '../helpers/fakes/fake-model.ts';
import type { SessionEvent } from '../../contract/events.ts';

// The test starts its workers as processes of their own, to kill one.
const test = agentTest({ MODEL_STEP_HEARTBEAT_TIMEOUT_MS: '2000', MODEL_STEP_RETRY_INITIAL_MS: '100' }, { inProcessWorker: false });
const workers = workersKilledAfterAll();

const words = Array.from({ length: 120 }, (_, index) => `word${index} `);
const systemOf = (request: FakeRequest) => messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';
const count = (events: SessionEvent[], type: SessionEvent['type']) => events.filter((event) => event.type === type).length;

test('a worker SIGKILLed mid-child: one child session, one call, one result', { timeout: 180_000 }, async ({ env }) => {
  const dying = await startWorkerProcess(env.env);
  workers.push(dying);
  const child = await env.deploy({ instructions: 'ROLE child' });
  const parent = await env.deploy({ instructions: 'ROLE parent', agents: [{ name: child.name }] });
  let childCalls = 0;
  env.fake.setHandler((request) => {
    if (systemOf(request).includes('ROLE child')) return ++childCalls === 1 ? { text: words, chunkDelayMs: 50 } : { text: words };
    return request.body.messages.at(-1)?.role === 'tool'
      ? { text: 'Parent done.' }
      : { toolCalls: [{ id: 'call_child', name: `agent_${child.name}`, arguments: { message: 'Write long' } }] };
  });
  const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${parent.name}/session`, { headers: env.user.auth, json: {} })).body
    .id;
  await call(`${env.api.url}/session/${sessionId}?async=1`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'Go' }] } });
  const started = (await env.waitForEvents(sessionId, (all) => count(all, 'subagent.started') === 1, 60_000)).find(
    (event): event is Extract<SessionEvent, { type: 'subagent.started' }> => event.type === 'subagent.started',
  )!;
  await env.waitForEvents(started.childSessionId, (all) => count(all, 'message.part.delta') >= 20, 60_000);
  // Killed first, the replacement started after: a replacement slow to start must not let the stream finish first.
  await dying.kill('SIGKILL');
  workers.push(await startWorkerProcess(env.env));

  const events = await env.waitForEvents(sessionId, (all) => count(all, 'turn.completed') === 1, 120_000);
  expect(count(events, 'subagent.started')).toBe(1);
  expect(count(events, 'subagent.completed')).toBe(1);
  const results = events.filter((event): event is Extract<SessionEvent, { type: 'tool.result' }> => event.type === 'tool.result');
  expect(results).toHaveLength(1);
  expect(results[0]!.output).toEqual({ sessionId: started.childSessionId, reply: words.join('') });
  const children = await env.api.db.query('SELECT id FROM sessions WHERE parent_session_id = $1', [sessionId]);
  expect(children.rows.map((row: { id: string }) => row.id)).toEqual([started.childSessionId]);
  const childEvents = await env.events(started.childSessionId);
  expect(count(childEvents, 'turn.started')).toBe(1);
  expect(count(childEvents, 'turn.completed')).toBe(1);
  expect(childEvents.some((event) => event.type === 'step.retry')).toBe(true);
  env.fake.setHandler(undefined);
});
