// A user's turns share the workers with everyone's: past RUNNING_TURNS_PER_USER running at once, a
// turn waits, durably, instead of taking another activity slot. It says so once (`turn.queued`),
// starts by itself when the user's running turn ends (woken by it), and another user's turn meanwhile is
// not held.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { FakeRequest } from '../helpers/fakes/fake-model.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { sessionWorkflowId } from '../../lib/workflow-ids.ts';
import { STEP_PLACE_FREED } from '../../core/turn-types.ts';
import type { temporal } from '@temporalio/proto';

const test = agentTest({ RUNNING_TURNS_PER_USER: '1' });

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
 * The waits of a turn for a place (its 30 s timers, QUEUE_WAIT_MS in workflows/turn.ts) in a history:
 * how many were cancelled (a wake-up came) and how many fired (none came).
 */
function queueWaits(history: temporal.api.history.v1.IHistory): { canceled: number; fired: number } {
  const events = history.events ?? [];
  const waits = new Set(
    events.flatMap((event) =>
      Number(event.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) === 30
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
    // The turn ran in its session workflow (patch turns-in-session): the signal and its wait are there.
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
