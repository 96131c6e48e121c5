// An eval run whose worker is SIGKILLed while its cases run: a live worker takes the run and its cases
// over, and each case ends once: one session, one message, one completed turn, one verdict. An eval
// case's own activity (here a rubric judge's call) that the dead worker held without a record of it is
// found by asking Temporal (workers/dead-worker-recovery.ts), not left to its minute of heartbeat timeout.
import os from 'node:os';
import pg from 'pg';
import { expect, inject, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import { evalEnded, startEval } from '../helpers/harness/evals.ts';
import { lazyTemporalClient } from '../../lib/temporal.ts';
import { evalCaseWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { WORKER_LOST } from '../../workers/dead-worker-recovery.ts';
import type { EvalRunView } from '../../contract/operations/evals.ts';

const test = agentTest({}, { inProcessWorker: false });
const workers = workersKilledAfterAll();

test('a worker killed mid-run: every case completes, each once', { timeout: 180_000 }, async ({ env }) => {
  const dying = await startWorkerProcess(env.env);
  workers.push(dying);
  const { name } = await env.deploy({ instructions: 'Answer ok.' });
  env.fake.reset();
  // Slow replies, so the kill comes while cases run; more than the cases need, for steps run again.
  for (let i = 0; i < 12; i++) env.fake.enqueue({ text: 'ok', delayMs: 1500 });
  const started = await call<{ id: string }>(`${env.api.url}/agent/${name}/evals`, {
    headers: env.user.auth,
    json: { concurrency: 2, cases: Array.from({ length: 4 }, (_, i) => ({ input: `case ${i}`, expect: { contains: 'ok' } })) },
  });
  expect(started.status, started.text).toBe(202);
  const read = () => call<EvalRunView>(`${env.api.url}/evals/${started.body.id}`, { headers: env.user.auth });
  await vi.waitFor(async () => expect((await read()).body.cases.filter((evalCase) => evalCase.sessionId).length).toBeGreaterThan(0), {
    timeout: 60_000,
    interval: 100,
  });
  await dying.kill('SIGKILL');
  workers.push(await startWorkerProcess(env.env));

  const run = await vi.waitFor(
    async () => {
      const body = (await read()).body;
      expect(body.status).toBe('completed');
      return body;
    },
    { timeout: 150_000, interval: 250 },
  );
  expect(run.summary).toMatchObject({ cases: 4, passed: 4, failed: 0, errors: 0 });
  const sessions = new Set(run.cases.map((evalCase) => evalCase.sessionId));
  expect(sessions.size).toBe(4);
  for (const evalCase of run.cases) {
    const events = await env.events(evalCase.sessionId!);
    const userMessages = events.filter((event) => event.type === 'message.created' && event.message.role === 'user');
    expect(userMessages, `case ${evalCase.id}`).toHaveLength(1);
    expect(
      events.filter((event) => event.type === 'turn.completed'),
      `case ${evalCase.id}`,
    ).toHaveLength(1);
    expect(evalCase.verdicts.map((verdict) => verdict.passed)).toEqual([true, true]);
  }
});

test(
  'a rubric judge the dead worker ran and never recorded: a live worker finds it in Temporal and runs it again',
  { timeout: 180_000 },
  async ({ env }) => {
    // The judge must run on the worker that dies: the earlier test's workers stop first.
    await Promise.all(workers.splice(0).map((worker) => worker.kill('SIGTERM')));
    const dying = await startWorkerProcess(env.env);
    workers.push(dying);
    const { name } = await env.deploy({ instructions: 'Greet people.' });
    env.fake.reset();
    // The case's turn, then its judge's first call, held until its worker is gone, then its second.
    env.fake.enqueue(
      { text: 'Hello Ada.' },
      { text: '{"score": 0.1, "reason": "never sent"}', delayMs: 120_000 },
      { text: '{"score": 0.9, "reason": "Greets Ada."}' },
    );
    const runId = await startEval(env, name, {
      cases: [{ input: 'Hi, I am Ada' }],
      graders: [{ kind: 'rubric', rubric: 'The reply greets the user by name.', minScore: 0.5 }],
    });
    await env.fake.waitForRequests(2, 60_000);
    await dying.kill('SIGKILL');
    // As if it had died between Temporal handing it the judge and its record of it: its row keeps only its
    // identity. No live worker looks for dead ones before the next one starts.
    const admin = new pg.Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    try {
      const { rowCount } = await admin.query("UPDATE worker_lives SET task_tokens = '{}' WHERE identity LIKE $1", [
        `${dying.pid}@${os.hostname()}/%`,
      ]);
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    const live = await startWorkerProcess(env.env);
    workers.push(live);

    // Within the judge's one-minute heartbeat timeout, the only other thing that would run it again.
    const run = await evalEnded(env, runId, 45_000);
    expect(run.summary).toMatchObject({ cases: 1, passed: 1, errors: 0 });
    expect(run.cases[0]!.verdicts.find((verdict) => verdict.grader === 'rubric')).toMatchObject({ passed: true, score: 0.9 });
    expect(env.fake.requests).toHaveLength(3);
    expect(live.output()).toContain('what it had not recorded is run again');
    expect(live.output()).toMatch(/"activities":1\b/);
    // The judge's first attempt ended as the dead worker's, not at its timeout: the only activity of the case
    // run twice, its second attempt's start recording why the first ended.
    const temporal = lazyTemporalClient(env.api.config);
    try {
      const history = await temporal.client.workflow.getHandle(evalCaseWorkflowId(runId, 0)).fetchHistory();
      const retried = (history.events ?? [])
        .flatMap((event) => event.activityTaskStartedEventAttributes ?? [])
        .filter((start) => start.attempt! > 1);
      expect(retried.map((start) => [start.attempt, start.lastFailure?.applicationFailureInfo?.type])).toEqual([[2, WORKER_LOST]]);
    } finally {
      await temporal.close();
    }
  },
);
