// A steering send (ifBusy=steer) retried with its Idempotency-Key after its session workflow has ended
// and started again: the retry reaches a run that never saw the message, whose recording finds it
// stored as part of the turn it joined. It is answered by that turn and runs nothing again, also when
// another turn is running and the retry asks to steer it.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../contract/events.ts';

/** Session workflows end a second after their last turn, so a retry reaches a fresh run. */
const test = agentTest({ SESSION_IDLE_MS: '1000' });

interface Answer {
  messageId: string;
  status: string;
  reply: string;
}

const turnsStarted = (events: SessionEvent[]) => events.filter((event) => event.type === 'turn.started').map((event) => event.turnId);

describe('a steering send retried with its Idempotency-Key', () => {
  test('in later runs of the session workflow, while another turn runs and with none: answered by the turn it joined, nothing runs twice', async ({
    env,
  }) => {
    const sessionId = await env.newSession();
    const url = `${env.api.url}/session/${sessionId}`;
    env.fake.enqueue(
      { text: ['Writing a long ', 'poem about ', 'the sea...'], chunkDelayMs: 500 },
      { text: 'A short poem about mountains.' },
    );
    const first = call<Answer>(url, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'Write a poem about the sea' }] } });
    await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
    const key = randomUUID();
    const steer = () =>
      call<Answer>(`${url}?ifBusy=steer`, {
        headers: { ...env.user.auth, 'idempotency-key': key },
        json: { parts: [{ type: 'text', text: 'Actually, make it about mountains' }] },
      });
    const steered = await steer();
    expect(steered.status, steered.text).toBe(200);
    expect(steered.body).toMatchObject({ status: 'completed', reply: 'A short poem about mountains.' });
    const turnId = (await first).body.messageId;

    // Temporal answers an Update id its workflow run has seen from that run, so a retry reaches the
    // session's code only in a later run: the first one ends once idle, and the next send starts another.
    const handle = env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId));
    const { runId: firstRun } = await handle.describe();
    await handle.result();
    const calls = env.fake.requests.length;

    // Retried while another turn streams (in the second run): it does not steer that turn, nor queue one behind it.
    env.fake.enqueue({ text: ['Another ', 'slow ', 'answer.'], chunkDelayMs: 300 });
    const second = call<Answer>(url, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'Something else' }] } });
    await env.waitForEvents(sessionId, (events) => turnsStarted(events).length === 2);
    const whileBusy = await steer();
    expect(whileBusy.status, whileBusy.text).toBe(200);
    expect(whileBusy.body).toEqual(steered.body);
    expect((await second).body).toMatchObject({ status: 'completed', reply: 'Another slow answer.' });
    const { runId: secondRun } = await handle.describe();
    expect(secondRun).not.toBe(firstRun);
    await handle.result();

    // Retried with no turn running (a third run, started by a send and then idle): nothing runs.
    env.fake.enqueue({ text: 'Third.' });
    const third = await call<Answer>(url, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'A third thing' }] } });
    expect(third.body).toMatchObject({ status: 'completed', reply: 'Third.' });
    expect((await handle.describe()).runId).not.toBe(secondRun);
    const whileIdle = await steer();
    expect(whileIdle.status, whileIdle.text).toBe(200);
    expect(whileIdle.body).toEqual(steered.body);
    await handle.result();

    const events = await env.events(sessionId);
    expect(turnsStarted(events)).toEqual([turnId, (await second).body.messageId, third.body.messageId]);
    expect(env.fake.requests.length).toBe(calls + 2);
  }, 60_000);
});
