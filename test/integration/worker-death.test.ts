// A worker SIGKILLed mid-step has its step run again on a live worker within seconds, not at the
// step's heartbeat timeout (workers/worker-life.ts): the dead process's PostgreSQL connection, and the
// advisory lock it held, close with it, and the live worker fails the steps the dead one had recorded.
// The heartbeat timeout here is ten minutes, so only that brings the turn back within the test's wait.
// A step the dead worker had started but not yet recorded is found by asking Temporal for the activities
// the dead worker's identity last started (workers/dead-worker-recovery.ts). A worker that lives but loses
// that connection for a moment takes its life back and keeps its step.
import os from 'node:os';
import pg from 'pg';
import { expect, inject } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest({ MODEL_STEP_HEARTBEAT_TIMEOUT_MS: '600000', MODEL_STEP_RETRY_INITIAL_MS: '100' }, { inProcessWorker: false });
const workers = workersKilledAfterAll();

// 30 s of stream at 50 ms a word: it must outlast the live worker's start, which takes seconds more on a
// loaded machine, or the step ends before its worker is killed and nothing is run again.
const words = Array.from({ length: 600 }, (_, index) => `word${index} `);

/**
 * A turn streaming slowly on a worker that is SIGKILLed a second into its stream, once a live worker
 * polls beside it; the step's next attempt answers at once.
 */
async function killedMidStream(env: AgentEnv) {
  const dying = await startWorkerProcess(env.env);
  workers.push(dying);
  let calls = 0;
  env.fake.setHandler(() => (++calls === 1 ? { text: words, chunkDelayMs: 50 } : { text: words }));
  const sessionId = await env.newSession();
  const accepted = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'tell me' }] },
  });
  // A second into the stream: the step's task token is recorded by then (milliseconds after it starts).
  await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'message.part.delta').length >= 20, 60_000);
  const live = await startWorkerProcess(env.env);
  workers.push(live);
  await dying.kill('SIGKILL');
  return { dying, live, sessionId, turnId: accepted.body.messageId, calls: () => calls };
}

/** The turn completes with the whole reply, its step run a second time after a `step.retry`. */
async function expectStepRunAgain(env: AgentEnv, turn: Awaited<ReturnType<typeof killedMidStream>>): Promise<void> {
  const events = await env.waitForEvents(
    turn.sessionId,
    (all) => all.some((event) => event.type === 'turn.completed' && event.turnId === turn.turnId),
    90_000,
  );
  const assistant = events
    .filter((event): event is Extract<SessionEvent, { type: 'message.completed' }> => event.type === 'message.completed')
    .at(-1)!;
  expect(assistant.message.parts).toEqual([{ type: 'text', text: words.join('') }]);
  expect(events.some((event) => event.type === 'step.retry' && event.messageId === assistant.message.id)).toBe(true);
  expect(turn.calls()).toBe(2);
}

test(
  'a worker SIGKILLed mid-step: a live worker runs the step again long before its heartbeat timeout',
  { timeout: 180_000 },
  async ({ env }) => {
    const turn = await killedMidStream(env);
    await expectStepRunAgain(env, turn);
    expect(turn.live.output()).toContain('a worker died: its activities are run again');
    env.fake.setHandler(undefined);
  },
);

test(
  'a step the dead worker started but never recorded: a live worker finds it in Temporal and runs it again',
  { timeout: 180_000 },
  async ({ env }) => {
    // The step must run on the worker that dies: the earlier tests' workers stop first.
    await Promise.all(workers.splice(0).map((worker) => worker.kill('SIGTERM')));
    const turn = await killedMidStream(env);
    // As if it had died between Temporal handing it the step and its record of it: its row keeps only its
    // identity. A sweep takes the row at its second look, at least 900 ms after the first.
    const admin = new pg.Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    try {
      const { rowCount } = await admin.query("UPDATE worker_lives SET task_tokens = '{}' WHERE identity LIKE $1", [
        `${turn.dying.pid}@${os.hostname()}/%`,
      ]);
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }

    await expectStepRunAgain(env, turn);
    expect(turn.live.output()).toContain('what it had not recorded is run again');
    expect(turn.live.output()).toMatch(/"activities":1\b/);
    // The session's last workflow task ran on the dead worker: its next one goes to the shared queue.
    expect(turn.live.output()).toMatch(/"unstuck":[1-9]/);
    env.fake.setHandler(undefined);
  },
);

test(
  'a live worker whose life connection drops takes it back at once: its step is not run again',
  { timeout: 180_000 },
  async ({ env }) => {
    const running = await startWorkerProcess(env.env);
    workers.push(running);
    let calls = 0;
    env.fake.setHandler(() => (++calls, { text: words, chunkDelayMs: 25 }));
    const sessionId = await env.newSession();
    const accepted = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'tell me' }] },
    });
    await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'message.part.delta').length >= 20, 60_000);
    // Another worker looks for dead ones meanwhile.
    workers.push(await startWorkerProcess(env.env));
    const admin = new pg.Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ ended: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1',
        [`agent-service-worker-life-${running.pid}`],
      );
      expect(rows).toEqual([{ ended: true }]);
    } finally {
      await admin.end();
    }
    const events = await env.waitForEvents(
      sessionId,
      (all) => all.some((event) => event.type === 'turn.completed' && event.turnId === accepted.body.messageId),
      90_000,
    );
    expect(events.some((event) => event.type === 'step.retry')).toBe(false);
    expect(calls).toBe(1);
    // Taken back at once, but the log line may come after the turn's end on a busy machine.
    await running.waitForOutput('worker life taken back', 30_000);
    env.fake.setHandler(undefined);
  },
);
