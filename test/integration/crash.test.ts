// A worker killed with SIGKILL in the middle of a streamed reply loses nothing: another worker
// retries the step, seq stays gapless, and the text rebuilt from the events (dropping the deltas of
// a step at its step.retry) is exactly the final message.
import { expect } from 'vitest';
import { textFromEvents } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';

// The test starts its workers as processes of their own, to kill one.
const test = agentTest({ MODEL_STEP_HEARTBEAT_TIMEOUT_MS: '2000', MODEL_STEP_RETRY_INITIAL_MS: '100' }, { inProcessWorker: false });
const workers = workersKilledAfterAll();

const words = Array.from({ length: 120 }, (_, index) => `word${index} `);

test('SIGKILL of the worker mid-stream: the turn completes on another worker', { timeout: 180_000 }, async ({ env }) => {
  workers.push(await startWorkerProcess(env.env));
  let calls = 0;
  // The first attempt streams slowly (and dies with its worker); later attempts answer at once.
  env.fake.setHandler(() => (++calls === 1 ? { text: words, chunkDelayMs: 50 } : { text: words }));
  const sessionId = await env.newSession();
  const accepted = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'tell me' }] },
  });
  const turnId = accepted.body.messageId;

  await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'message.part.delta').length >= 5, 60_000);
  await workers[0]!.kill('SIGKILL');
  workers.push(await startWorkerProcess(env.env));

  const events = await env.waitForEvents(
    sessionId,
    (all) => all.some((event) => event.type === 'turn.completed' && event.turnId === turnId),
    120_000,
  );
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const assistant = events
    .filter((event): event is Extract<SessionEvent, { type: 'message.completed' }> => event.type === 'message.completed')
    .at(-1)!;
  expect(assistant.message.parts).toEqual([{ type: 'text', text: words.join('') }]);
  expect(events.some((event) => event.type === 'step.retry' && event.messageId === assistant.message.id)).toBe(true);
  expect(textFromEvents(events, assistant.message.id)).toBe(words.join(''));
  expect(calls).toBeGreaterThanOrEqual(2);
  env.fake.setHandler(undefined);
});
