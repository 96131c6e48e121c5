// An eval run whose worker is SIGKILLed while its cases run: a live worker takes the run and its cases
// over, and each case ends once: one session, one message, one completed turn, one verdict.
import { expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
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
