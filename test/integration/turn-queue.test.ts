// A user's turns share the workers with everyone's: past RUNNING_TURNS_PER_USER running at once, a
// turn waits, durably, instead of taking another activity slot. It says so once (`turn.queued`),
// starts by itself when the user's running turn ends (woken by it), and another user's turn meanwhile is
// not held. Tool calls and compactions take places as model steps do, and wait for one the same way.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { FakeRequest } from '../helpers/fakes/fake-model.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { STEP_PLACE_FREED } from '../../core/turn-types.ts';
import type { temporal } from '@temporalio/proto';
import { closeServer } from '../helpers/fakes/recorded.ts';
import { filler, isSummarising } from '../helpers/fakes/compaction-requests.ts';
import { acquireStepSlot, runningSteps } from '../../store/step-slots.ts';
import { getSession } from '../../store/sessions.ts';
import { signalSessionWithStart } from '../../clients/session.ts';
import { newId } from '../../lib/ids.ts';

const test = agentTest({ RUNNING_TURNS_PER_USER: '1', OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

const lastUserText = (request: FakeRequest) => JSON.stringify((request.body.messages as { content: unknown }[]).at(-1)?.content);

async function eventsOf(
  env: AgentEnv,
  who: TestUser,
  sessionId: string,
  done: (events: SessionEvent[]) => boolean,
): Promise<SessionEvent[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const page = await call<{ events: SessionEvent[] }>(`${env.api.url}/session/${sessionId}/events?limit=1000`, { headers: who.auth });
    if (done(page.body.events) || Date.now() > deadline) return page.body.events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The waits of a turn for a place (its 10 s timers, QUEUE_WAIT_MS in workflows/place-waits.ts) in a history:
 * how many were cancelled (a wake-up came) and how many fired (none came).
 */
function queueWaits(history: temporal.api.history.v1.IHistory): { canceled: number; fired: number } {
  const events = history.events ?? [];
  const waits = new Set(
    events.flatMap((event) =>
      Number(event.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) === 10
        ? [event.timerStartedEventAttributes!.timerId]
        : [],
    ),
  );
  return {
    canceled: events.filter((event) => waits.has(event.timerCanceledEventAttributes?.timerId)).length,
    fired: events.filter((event) => waits.has(event.timerFiredEventAttributes?.timerId)).length,
  };
}

const ended = (events: SessionEvent[]) => events.some((event) => event.type === 'turn.completed' || event.type === 'turn.failed');

test(
  'a second turn of the same user waits for the first, says so once, then runs; another user is not held',
  { timeout: 60_000 },
  async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const bystander = await createTestUser(env.api.db);
    const [first, second, theirs] = [await sessionAs(env, user), await sessionAs(env, user), await sessionAs(env, bystander)];
    let firstDoneWhenSecondAsked: boolean | undefined;
    env.fake.setHandler((request) => {
      const said = lastUserText(request);
      if (said.includes('slow')) return { text: 'First, at last.', delayMs: 3_000 };
      if (said.includes('second')) {
        firstDoneWhenSecondAsked = env.fake.requests.find((earlier) => lastUserText(earlier).includes('slow'))?.completed;
        return { text: 'Second.' };
      }
      return { text: 'Not held.' };
    });

    const sendAsync = (who: TestUser, sessionId: string, text: string) =>
      call(`${env.api.url}/session/${sessionId}?async=1`, { headers: who.auth, json: { parts: [{ type: 'text', text }] } });
    expect((await sendAsync(user, first, 'slow one')).status).toBe(202);
    await env.fake.waitForRequests(1, 20_000);
    const secondSent = await sendAsync(user, second, 'the second one');
    expect(secondSent.status).toBe(202);

    // The second turn waits, and says so, while the first one's step runs; another user's turn runs meanwhile.
    const waiting = await eventsOf(env, user, second, (events) => events.some((event) => event.type === 'turn.queued'));
    expect(waiting.find((event) => event.type === 'turn.queued')).toMatchObject({ limit: 1 });
    const served = await call<{ status: string; reply: string }>(`${env.api.url}/session/${theirs}`, {
      headers: bystander.auth,
      json: { parts: [{ type: 'text', text: 'hello' }] },
    });
    expect(served.body).toMatchObject({ status: 'completed', reply: 'Not held.' });
    expect(ended(await eventsOf(env, user, first, () => true))).toBe(false);

    const done = await eventsOf(env, user, second, ended);
    expect(done.filter((event) => event.type === 'turn.queued')).toHaveLength(1);
    expect(done.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(firstDoneWhenSecondAsked).toBe(true);
    // It was woken by the first step giving its place back, not by its fallback timer.
    // The turn ran in its session workflow: the signal and its wait are there.
    const history = await env.worker.client.workflow.getHandle(sessionWorkflowId(second)).fetchHistory();
    const signals = (history.events ?? []).flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? []);
    expect(signals).toContain(STEP_PLACE_FREED);
    expect(queueWaits(history)).toEqual({ canceled: 1, fired: 0 });
    expect((await eventsOf(env, user, first, ended)).at(-1)).toMatchObject({ type: 'turn.completed' });
    const theirEvents = await eventsOf(env, bystander, theirs, ended);
    expect(theirEvents.some((event) => event.type === 'turn.queued')).toBe(false);
    env.fake.setHandler(undefined);
  },
);

test(
  'a waiting turn aborted while it waits is passed over: the place goes to the next waiting turn, by wake-up',
  { timeout: 60_000 },
  async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const [first, aborted, third] = [await sessionAs(env, user), await sessionAs(env, user), await sessionAs(env, user)];
    // The first turn's reply waits until the aborted turn has ended, so its place is given back only then.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    env.fake.setHandler((request) =>
      lastUserText(request).includes('slow') ? { text: 'Slow.', holdUntil: released } : { text: 'Quick.' },
    );
    const sendAsync = async (sessionId: string, text: string) => {
      const sent = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
        headers: user.auth,
        json: { parts: [{ type: 'text', text }] },
      });
      expect(sent.status).toBe(202);
      return sent.body.messageId;
    };
    const queued = (events: SessionEvent[]) => events.some((event) => event.type === 'turn.queued');
    // The fake is the file's: this test's first request is the one after those already made.
    const asked = env.fake.requests.length;
    await sendAsync(first, 'slow one');
    await env.fake.waitForRequests(asked + 1, 20_000);
    await sendAsync(aborted, 'waits, then is aborted');
    expect(queued(await eventsOf(env, user, aborted, queued))).toBe(true);
    await sendAsync(third, 'waits behind it');
    expect(queued(await eventsOf(env, user, third, queued))).toBe(true);
    expect((await call(`${env.api.url}/session/${aborted}/abort`, { method: 'POST', headers: user.auth })).body).toEqual({ aborted: true });
    expect((await eventsOf(env, user, aborted, (events) => events.some((event) => event.type === 'turn.aborted'))).at(-1)).toMatchObject({
      type: 'turn.aborted',
    });
    // Its end forgot its wait (the session's workflow lives on, so a wake-up sent there would wake nobody).
    const waiters = await env.api.db.query('SELECT workflow_id FROM step_waiters WHERE user_id = $1', [user.userId]);
    expect(waiters.rows).toEqual([{ workflow_id: sessionWorkflowId(third) }]);
    release();

    expect((await eventsOf(env, user, third, ended)).at(-1)).toMatchObject({ type: 'turn.completed' });
    const history = await env.worker.client.workflow.getHandle(sessionWorkflowId(third)).fetchHistory();
    const signals = (history.events ?? []).flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? []);
    expect(signals).toContain(STEP_PLACE_FREED);
    expect(queueWaits(history).fired).toBe(0);
    env.fake.setHandler(undefined);
  },
);

test(
  "a send the session's workflow took itself (as a trigger's comes) keeps its session busy while its turn waits: a revert is 409 until it ends",
  { timeout: 60_000 },
  async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const [busy, waiting] = [await sessionAs(env, user), await sessionAs(env, user)];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    env.fake.setHandler((request) =>
      lastUserText(request).includes('slow') ? { text: 'Slow.', holdUntil: released } : { text: 'Quick.' },
    );
    const first = await call<{ messageId: string; status: string }>(`${env.api.url}/session/${waiting}`, {
      headers: user.auth,
      json: { parts: [{ type: 'text', text: 'a first turn' }] },
    });
    expect(first.body.status).toBe('completed');
    // The user's one place is held by a turn of another session.
    const asked = env.fake.requests.length;
    const slow = await call(`${env.api.url}/session/${busy}?async=1`, {
      headers: user.auth,
      json: { parts: [{ type: 'text', text: 'slow one' }] },
    });
    expect(slow.status).toBe(202);
    await env.fake.waitForRequests(asked + 1, 20_000);

    // Handed to the session's workflow, as a trigger's send is (not taken through the API's inbox): its turn waits.
    const session = (await getSession(env.api.db, waiting))!;
    const target = { client: env.worker.client, taskQueue: env.env.TASK_QUEUE!, settings: env.api.config.turns };
    await signalSessionWithStart(target, session, {
      messageId: newId('msg'),
      parts: [{ type: 'text', text: 'from a trigger' }],
      ifBusy: 'queue',
    });
    const queued = (events: SessionEvent[]) => events.some((event) => event.type === 'turn.queued');
    expect(queued(await eventsOf(env, user, waiting, queued))).toBe(true);
    expect((await call<{ status: string }>(`${env.api.url}/session/${waiting}`, { headers: user.auth })).body.status).toBe('running');
    const revert = () =>
      call(`${env.api.url}/session/${waiting}/revert`, { headers: user.auth, json: { messageId: first.body.messageId } });
    const refused = await revert();
    expect(refused.status, refused.text).toBe(409);

    release();
    const completed = (events: SessionEvent[]) => events.filter((event) => event.type === 'turn.completed').length === 2;
    expect(completed(await eventsOf(env, user, waiting, completed))).toBe(true);
    await until('the session to be idle', async () => (await getSession(env.api.db, waiting))?.status === 'idle');
    const taken = await revert();
    expect(taken.status, taken.text).toBe(200);
    env.fake.setHandler(undefined);
  },
);

/** Resolves once `check` holds, looking every 50 ms. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const waitersOf = async (env: AgentEnv, who: TestUser) =>
  (await env.api.db.query<{ workflow_id: string }>('SELECT workflow_id FROM step_waiters WHERE user_id = $1', [who.userId])).rows;

test(
  "a user's tool calls past its places wait for one: the calls one step runs at once take turns, each woken by the one before",
  { timeout: 60_000 },
  async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const sessionId = await sessionAs(env, user, { mcps: ['http', 'time'], toolPolicies: { time: { current_time: 'ask' } } });
    // Each request is answered only when the test says so.
    const received: string[] = [];
    const answers: Array<() => void> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push(body);
        answers.push(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(`done: ${body}`));
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    const post = (id: string, body: string) => ({ id, name: 'http_request', arguments: { url, method: 'POST', body } });
    // The `ask` call makes the step run its calls at once (its approval is asked meanwhile).
    env.fake.setHandler((request) =>
      request.body.messages.at(-1)?.role === 'tool'
        ? { text: 'Both sent.' }
        : { toolCalls: [{ id: 'call_time', name: 'current_time', arguments: {} }, post('call_one', 'one'), post('call_two', 'two')] },
    );
    try {
      const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
        headers: user.auth,
        json: { parts: [{ type: 'text', text: 'send both' }] },
      });
      expect(sent.status).toBe(202);
      // One call holds the user's one place (its request unanswered); the other found none: it waits, and the turn says so.
      const waiting = await eventsOf(env, user, sessionId, (events) => events.some((event) => event.type === 'turn.queued'));
      expect(waiting.find((event) => event.type === 'turn.queued')).toMatchObject({ limit: 1 });
      await until('the waiting call', async () => (await waitersOf(env, user)).length > 0 && received.length > 0);
      expect(await waitersOf(env, user)).toEqual([{ workflow_id: sessionWorkflowId(sessionId) }]);
      expect(received).toHaveLength(1);

      // The first call ends and gives its place back: the waiting call is woken, takes it, and runs.
      answers.shift()!();
      await until('the second request', () => received.length === 2);
      answers.shift()!();
      const asked = await eventsOf(env, user, sessionId, (events) => events.some((event) => event.type === 'approval.requested'));
      const requested = asked.find((event) => event.type === 'approval.requested')!.approvalId;
      expect((await call(`${env.api.url}/approval/${requested}/answer`, { headers: user.auth, json: { choice: 'deny' } })).status).toBe(
        200,
      );

      const done = await eventsOf(env, user, sessionId, ended);
      expect(done.at(-1)).toMatchObject({ type: 'turn.completed' });
      expect(received.sort()).toEqual(['one', 'two']);
      const results = done.filter((event) => event.type === 'tool.result' && event.toolName === 'http_request');
      expect(results.map((event) => JSON.stringify(event))).toEqual([
        expect.stringContaining('done: one'),
        expect.stringContaining('done: two'),
      ]);
      const history = await env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory();
      const signals = (history.events ?? []).flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? []);
      expect(signals).toContain(STEP_PLACE_FREED);
      expect(queueWaits(history).fired).toBe(0);
      expect(await waitersOf(env, user)).toEqual([]);
    } finally {
      env.fake.setHandler(undefined);
      for (const answer of answers) answer();
      await closeServer(receiver);
    }
  },
);

test(
  'a compaction takes a place as a step does: a turn waits while one runs, and one asked for waits while a step runs',
  { timeout: 60_000 },
  async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const [long, other] = [await sessionAs(env, user), await sessionAs(env, user)];
    let summarised!: () => void;
    const summaryHeld = new Promise<void>((resolve) => (summarised = resolve));
    let stepped!: () => void;
    const stepHeld = new Promise<void>((resolve) => (stepped = resolve));
    env.fake.setHandler((request) => {
      if (isSummarising(request)) return { text: 'SUMMARY of the questions.', holdUntil: summaryHeld };
      if (lastUserText(request).includes('slow')) return { text: 'Slow.', holdUntil: stepHeld };
      return { text: filler('answer') };
    });
    const say = (sessionId: string, text: string) =>
      call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: user.auth, json: { parts: [{ type: 'text', text }] } });
    const sendAsync = async (sessionId: string, text: string) => {
      const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
        headers: user.auth,
        json: { parts: [{ type: 'text', text }] },
      });
      expect(sent.status).toBe(202);
    };
    const compact = (sessionId: string) =>
      call<{ compacted: boolean }>(`${env.api.url}/session/${sessionId}/compact`, { headers: user.auth, json: {} });
    try {
      for (let index = 1; index <= 4; index++)
        expect((await say(long, `question-${index} ${filler(`q${index}`)}`)).body.status).toBe('completed');

      // A compaction calling its model holds the user's one place: a turn sent meanwhile waits for it.
      const before = env.fake.requests.length;
      const compacting = compact(long);
      await until('the summarising request', () => env.fake.requests.slice(before).some(isSummarising));
      await sendAsync(other, 'hello');
      await eventsOf(env, user, other, (events) => events.some((event) => event.type === 'turn.queued'));
      expect(ended(await eventsOf(env, user, other, () => true))).toBe(false);
      summarised();
      const done = await compacting;
      expect(done.status, done.text).toBe(200);
      expect(done.body).toMatchObject({ compacted: true });
      expect((await eventsOf(env, user, other, ended)).at(-1)).toMatchObject({ type: 'turn.completed' });

      // A compaction asked for while a step of the user runs waits for its place, woken when the step gives it back.
      const asked = env.fake.requests.length;
      await sendAsync(other, 'slow one');
      await until('the slow step', () => env.fake.requests.slice(asked).some((request) => lastUserText(request).includes('slow')));
      const waitingCompaction = compact(long);
      await until('the waiting compaction', async () => (await waitersOf(env, user)).length > 0);
      expect(await waitersOf(env, user)).toEqual([{ workflow_id: sessionWorkflowId(long) }]);
      stepped();
      expect((await waitingCompaction).status).toBe(200);
      const history = await env.worker.client.workflow.getHandle(sessionWorkflowId(long)).fetchHistory();
      const signals = (history.events ?? []).flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? []);
      expect(signals).toContain(STEP_PLACE_FREED);
      expect(queueWaits(history).fired).toBe(0);
    } finally {
      summarised();
      stepped();
      env.fake.setHandler(undefined);
    }
  },
);

test('places asked for at the same moment never pass the limit: the calls of one step asking at once take one each in turn', async ({
  env,
}) => {
  const user = await createTestUser(env.api.db);
  const asks = Array.from({ length: 20 }, (_, index) =>
    acquireStepSlot(env.api.db, {
      userId: user.userId,
      key: `ses_same_moment:${index}`,
      limit: 1,
      leaseMs: 60_000,
      workflowId: 'session:x',
    }),
  );
  expect((await Promise.all(asks)).filter(Boolean)).toHaveLength(1);
  expect(await runningSteps(env.api.db, user.userId)).toBe(1);
  expect(await waitersOf(env, user)).toHaveLength(19);
  await env.api.db.query('DELETE FROM step_waiters WHERE user_id = $1', [user.userId]);
  await env.api.db.query('DELETE FROM step_slots WHERE user_id = $1', [user.userId]);
});
