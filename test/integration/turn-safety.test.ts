// Defences found in review, each proved: a zombie attempt's failed delta write does not crash the
// worker, a turn gets exactly one terminal event however its ends race, and a send delivered twice
// (a client retry) never runs its turn twice.
import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { DeltaCommits } from '../../activities/turn/delta-commits.ts';
import { BURST_WRITES, DeltaWriter } from '../../activities/turn/delta-writer.ts';
import { STRANDED_TURN_ERROR, turnBookkeeping } from '../../activities/turn/bookkeeping.ts';
import { claimAssistantMessage, StaleAttemptError } from '../../store/messages.ts';
import { readEvents } from '../../store/events.ts';
import { sendUpdate } from '../../workflows/session.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';

const test = agentTest();

test('a timed delta write refused to a stale attempt raises on the next push, not as an unhandled rejection', async ({ env }) => {
  const sessionId = await env.newSession();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    // No message is owned by this attempt, as for an attempt whose step was taken over by a retry.
    const writer = new DeltaWriter(new DeltaCommits(env.api.db), { sessionId, messageId: `msg_${randomUUID()}`, attempt: 1 }, 5);
    writer.push('lost ');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(unhandled).toEqual([]);
    expect(() => writer.push('more')).toThrow(StaleAttemptError);
    writer.close();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('a stream writes at once while it has credit (a burst of BURST_WRITES), then at most one event per window', async ({ env }) => {
  const sessionId = await env.newSession();
  const messageId = `msg_${randomUUID().replace(/-/g, '')}`;
  await claimAssistantMessage(env.api.db, {
    sessionId,
    turnId: messageId,
    messageId,
    attempt: 1,
    model: { providerId: 'openai', modelId: 'm' },
  });
  const deltas = async () =>
    (await readEvents(env.api.db, sessionId, 0, 100)).filter((event) => event.type === 'message.part.delta').map((event) => event.delta);
  // A window far longer than the test: no write may wait for it while there is credit.
  const writer = new DeltaWriter(new DeltaCommits(env.api.db), { sessionId, messageId, attempt: 1 }, 600_000);
  try {
    // Text pushed together is one event.
    writer.push('Hel');
    writer.push('lo');
    await vi.waitFor(async () => expect(await deltas()).toEqual(['Hello']), { timeout: 20_000 });
    const expected = ['Hello'];
    for (let write = 2; write <= BURST_WRITES; write++) {
      writer.push(` ${write}`);
      expected.push(` ${write}`);
      await vi.waitFor(async () => expect(await deltas()).toEqual(expected), { timeout: 20_000 });
    }
    // The credit is spent: the next text is held for the window, and written by the step's flush.
    writer.push(', world');
    writer.push('!');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await deltas()).toEqual(expected);
    await writer.flush();
    expect(await deltas()).toEqual([...expected, ', world!']);
  } finally {
    writer.close();
  }
});

test('completion and abort racing for one turn leave exactly one terminal event', async ({ env }) => {
  const book = turnBookkeeping({ db: env.api.db });
  for (let round = 0; round < 10; round++) {
    const sessionId = await env.newSession();
    const turnId = `msg_${randomUUID().replace(/-/g, '')}`;
    await book.startTurn({ sessionId, turnId });
    await Promise.all([
      book.completeTurn({ sessionId, turnId, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: null }),
      book.endTurn({ sessionId, turnId, outcome: 'aborted' }),
      book.endTurn({ sessionId, turnId, outcome: 'failed', error: 'x' }),
      book.completeTurn({ sessionId, turnId, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: null }),
    ]);
    const events = await readEvents(env.api.db, sessionId, 0, 100);
    expect(events.filter((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type))).toHaveLength(1);
    expect(events.filter((event) => event.type === 'turn.started')).toHaveLength(1);
  }
});

test('a send delivered again after its turn ran does not run the turn twice', async ({ env }) => {
  const sessionId = await env.newSession();
  const first = await call<{ messageId: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'once' }] },
  });
  expect(first.body.status).toBe('completed');
  const requests = env.fake.requests.length;
  const before = await readEvents(env.api.db, sessionId, 0, 1000);

  // The same send again, as a client retry reaching the session workflow under a new update id.
  const handle = env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId));
  const again = await handle.executeUpdate(sendUpdate, {
    args: [{ messageId: first.body.messageId, parts: [{ type: 'text', text: 'once' }], ifBusy: 'queue' }],
    updateId: `retry-${randomUUID()}`,
  });
  expect(again.messageId).toBe(first.body.messageId);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(env.fake.requests.length).toBe(requests);
  expect(await readEvents(env.api.db, sessionId, 0, 1000)).toEqual(before);
});

test('a provider error that echoes the key in use never shows it to the user', async ({ env }) => {
  const sessionId = await env.newSession();
  const key = env.env.OPENAI_COMPATIBLE_API_KEY!;
  env.fake.enqueue({
    status: 401,
    errorBody: { error: { message: `Incorrect API key provided: ${key}. Check it.`, type: 'invalid_request_error' } },
  });
  const response = await call<{ status: string; error: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'hi' }] },
  });
  expect(response.body.status).toBe('failed');
  expect(response.body.error).toMatch(/Incorrect API key provided/);
  expect(response.body.error).not.toContain(key);
  expect(JSON.stringify(await readEvents(env.api.db, sessionId, 0, 100))).not.toContain(key);
});

test('a session workflow terminated by an operator mid-turn: the next send ends that turn, then runs its own', async ({ env }) => {
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['never ', 'finished'], stallAfterChunks: 1 });
  const accepted = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'hang' }] },
  });
  const turnId = accepted.body.messageId;
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
  // The turn runs in the session workflow: terminating that ends no turn by itself.
  await env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId)).terminate('operator test');

  env.fake.enqueue({ text: 'alive' });
  const next = await call<{ reply: string; messageId: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'again' }] },
  });
  expect(next.body.reply).toBe('alive');
  const events = await env.events(sessionId);
  expect(events.filter((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type))).toEqual([
    expect.objectContaining({ type: 'turn.failed', turnId, error: STRANDED_TURN_ERROR }),
    expect.objectContaining({ type: 'turn.completed', turnId: next.body.messageId }),
  ]);
  // The stranded turn ended before the new message's turn started.
  const failedAt = events.findIndex((event) => event.type === 'turn.failed');
  const startedAt = events.findIndex((event) => event.type === 'turn.started' && event.turnId === next.body.messageId);
  expect(failedAt).toBeLessThan(startedAt);
  const session = await call<{ status: string; messages: { role: string; status: string; parts: unknown[] }[] }>(
    `${env.api.url}/session/${sessionId}`,
    { headers: env.user.auth },
  );
  expect(session.body.status).toBe('idle');
  expect(session.body.messages[1]).toMatchObject({ role: 'assistant', status: 'failed', parts: [{ type: 'text', text: 'never ' }] });
});

test('a turn of a session deleted meanwhile (its user gone) ends without error instead of failing every retry', async ({ env }) => {
  const book = turnBookkeeping({ db: env.api.db });
  const sessionId = await env.newSession();
  const turnId = `msg_${randomUUID().replace(/-/g, '')}`;
  await book.startTurn({ sessionId, turnId });
  await env.api.db.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
  await expect(book.endTurn({ sessionId, turnId, outcome: 'aborted' })).resolves.toBeUndefined();
  await expect(
    book.completeTurn({ sessionId, turnId, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: null }),
  ).resolves.toBeUndefined();
});
