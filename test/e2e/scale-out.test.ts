// Scale-out, as operators run it: two API processes and two worker processes on one PostgreSQL and
// one Temporal, none of them knowing of the others. A send through one API is streamed through the
// other while the worker running its turn is SIGKILLed and the turn finishes on the other worker; an
// approval asked through one API is answered through the other; a cron trigger with two workers
// polling fires once, not once per worker; rate limits are one budget across processes.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, vi } from 'vitest';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { textFromEvents } from '../helpers/harness/agent-env.ts';
import { startApiProcess, type ApiProcess } from '../helpers/harness/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { deleteSchedules } from '../helpers/harness/schedules.ts';
import { scheduleId } from '../../lib/workflow-safe/workflow-ids.ts';
import { Client, type SessionEvent } from '../../sdk/src/index.ts';

// Workers of their own (processes, to kill one), and a short heartbeat so the step moves on soon.
const test = agentTest({ MODEL_STEP_HEARTBEAT_TIMEOUT_MS: '2000', MODEL_STEP_RETRY_INITIAL_MS: '100' }, { inProcessWorker: false });
const WORDS = Array.from({ length: 120 }, (_, index) => `word${index} `);

const alive = (worker: WorkerProcess) => worker.process.exitCode === null && worker.process.signalCode === null;
const apis: ApiProcess[] = [];
const workers: WorkerProcess[] = [];
const limited: ApiProcess[] = [];
/** Schedules outlive the test (helpers/harness/schedules.ts): the cron test's is deleted after the file. */
const schedules: string[] = [];
let temporal: TemporalClient | undefined;
afterAll(async () => {
  if (temporal) await deleteSchedules(temporal, schedules);
  await temporal?.connection.close();
  await Promise.all([...apis, ...limited, ...workers].map((process) => process.kill('SIGKILL')));
});

describe('two API processes and two workers', () => {
  let first: ApiProcess;
  let second: ApiProcess;
  /** At least `count` live worker processes (the first test kills one of its two). */
  async function workersUp(env: Record<string, string>, count: number): Promise<void> {
    while (workers.filter(alive).length < count) workers.push(await startWorkerProcess(env));
  }
  /** The two API processes, started by the first test that needs them. */
  async function twoApis(env: Record<string, string>): Promise<void> {
    if (apis.length > 0) return;
    [first, second] = await Promise.all([startApiProcess(env), startApiProcess(env)]);
    apis.push(first, second);
  }
  test(
    'a send through one API streams through the other; its worker killed mid-turn, the turn finishes on the other, every seq once',
    { timeout: 180_000 },
    async ({ env }) => {
      [first, second] = await Promise.all([startApiProcess(env.env), startApiProcess(env.env)]);
      apis.push(first, second);
      workers.push(await startWorkerProcess(env.env));
      let calls = 0;
      // The first attempt streams slowly (and dies with its worker); the retry answers at once.
      env.fake.setHandler(() => (++calls === 1 ? { text: WORDS, chunkDelayMs: 50 } : { text: WORDS }));

      const sender = new Client({ baseUrl: first.url, apiKey: env.user.apiKey });
      const reader = new Client({ baseUrl: second.url, apiKey: env.user.apiKey });
      const { name } = await env.deploy();
      const { id: sessionId } = await sender.sessions.create(name);
      const stop = new AbortController();
      const received: SessionEvent[] = [];
      const following = (async () => {
        for await (const event of reader.events(sessionId, { follow: true, signal: stop.signal })) {
          received.push(event);
          if (event.type === 'turn.completed' || event.type === 'turn.failed') stop.abort();
        }
      })().catch((error: unknown) => {
        if ((error as Error).name !== 'APIUserAbortError') throw error;
      });
      const { messageId } = await sender.sessions.sendAsync(sessionId, 'tell me');

      await vi.waitFor(() => expect(received.filter((event) => event.type === 'message.part.delta').length).toBeGreaterThanOrEqual(5), {
        timeout: 60_000,
        interval: 50,
      });
      // Killed first, its replacement started after: the turn cannot finish on the first worker
      // while the second one starts (seconds on a loaded machine); its step is retried on the second.
      await workers[0]!.kill('SIGKILL');
      workers.push(await startWorkerProcess(env.env));
      await following;

      expect(received.at(-1)).toMatchObject({ type: 'turn.completed', turnId: messageId });
      expect(received.some((event) => event.type === 'step.retry')).toBe(true);
      const seqs = received.map((event) => event.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
      expect(received).toEqual(await env.events(sessionId));
      const reply = received.find((event) => event.type === 'message.completed');
      if (reply?.type !== 'message.completed') throw new Error('no message.completed');
      expect(textFromEvents(received, reply.message.id)).toBe(WORDS.join(''));
    },
  );

  test(
    'an approval asked through one API is answered through the other, and the asker sees the answer',
    { timeout: 60_000 },
    async ({ env }) => {
      await twoApis(env.env);
      const asker = new Client({ baseUrl: first.url, apiKey: env.user.apiKey });
      const answerer = new Client({ baseUrl: second.url, apiKey: env.user.apiKey });
      const handle = await asker.askHuman({ question: 'Ship it?', options: ['yes', 'no'], expiresInMs: 600_000 });
      const waiting = handle.waitForAnswer({ timeoutMs: 30_000 });
      const pending = await answerer.approvals.retrieve(handle.id);
      expect(pending.status).toBe('unanswered');
      await answerer.approvals.answer(handle.id, { choice: 'yes', note: 'from the other API' });
      expect(await waiting).toEqual({ status: 'answered', choice: 'yes', note: 'from the other API' });
    },
  );

  test('a cron trigger fires once, not once per worker, with two workers polling', { timeout: 120_000 }, async ({ env }) => {
    await twoApis(env.env);
    await workersUp(env.env, 2);
    expect(workers.filter(alive)).toHaveLength(2);
    env.fake.setHandler(() => ({ text: 'Checked.' }));
    const name = `agent-${randomUUID().slice(0, 8)}`;
    const client = new Client({ baseUrl: first.url, apiKey: env.user.apiKey });
    const { agentId } = await client.agents.deploy({
      name,
      model: { providerId: 'openai-compatible', modelId: 'fake-model' },
      triggers: [{ kind: 'cron', expression: '* * * * *', message: 'Check the queue' }],
    });
    schedules.push(scheduleId(agentId, 0));
    // Fired now through Temporal (what the schedule does at each minute) rather than waited for: the
    // minute's own firing may come too, and the check below holds for every firing. The clock's firing is
    // cron-triggers.test.ts's; this test is about the two workers. The deploy's reconcile creates the
    // schedule soon after the deploy answers, so the trigger is tried until it is there.
    temporal = new TemporalClient({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
    const schedule = temporal.schedule.getHandle(scheduleId(agentId, 0));
    await vi.waitFor(() => schedule.trigger(), { timeout: 30_000, interval: 250 });
    // The first firing: one session, not one per worker.
    const firstFiring = await vi.waitFor(
      async () => {
        const { items: sessions } = await client.sessions.list(name);
        if (sessions.length === 0) throw new Error('the cron trigger did not fire within 30 s');
        return sessions;
      },
      { timeout: 30_000, interval: 250 },
    );
    const firedAt = async (sessionId: string) => {
      const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'trigger.fired'), 30_000);
      const fired = events.find((event) => event.type === 'trigger.fired');
      return fired?.type === 'trigger.fired' ? fired.firedAt : undefined;
    };
    const minute = await firedAt(firstFiring.at(-1)!.id);
    // Long enough for a second worker's duplicate to show: each minute fired opened exactly one session.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const { items: sessions } = await client.sessions.list(name);
    const minutes = await Promise.all(sessions.map((session) => firedAt(session.id)));
    expect(minutes.filter((at) => at === minute)).toHaveLength(1);
    expect(minutes.length).toBe(new Set(minutes).size);
  });
});

test('rate limits are one budget across API processes', { timeout: 60_000 }, async ({ env }) => {
  const limits = { ...env.env, RATE_LIMIT_POINTS: '4', RATE_LIMIT_WINDOW_SECONDS: '30' };
  const [one, two] = await Promise.all([startApiProcess(limits), startApiProcess(limits)]);
  limited.push(one, two);
  // A key of its own: the budget is per key, and the file's key has spent plenty.
  const user = await createTestUser(env.api.db);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await call(`${(i % 2 ? one : two).url}/key`, { headers: user.auth })).status);
  expect(statuses).toEqual([200, 200, 200, 200, 429]);
});
