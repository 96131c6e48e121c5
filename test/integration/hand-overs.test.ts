// An approval's answer is taken the moment PostgreSQL has it, whatever the workers are doing: answered
// while no worker runs, it is 200 at once with the outcome, a second answer is 409 naming the first, the
// record and the session's event say so, and the turn that asked resumes with it once a worker is back.
// A hand-over signal that never reached the workflow (lost with the API process that stored the answer,
// took the send or took a client's tool result) is made again by the API's sweep, and the turn goes on: after
// 30 s, or within seconds once the connection that stored it has closed (its process died).
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { askInTurn } from '../helpers/harness/ask-in-turn.ts';
import { call } from '../helpers/client/request.ts';
import { storeApprovalAnswer } from '../../store/approval-endings.ts';
import { takeSend } from '../../store/session-inbox.ts';
import { newId } from '../../lib/ids.ts';
import { findToolCall } from '../../store/tool-calls.ts';
import { storeClientToolAnswer } from '../../store/client-tool-answers.ts';
import { takeInbox } from '../../store/session-inbox.ts';
import { createLogger } from '../../lib/logger.ts';
import { createPool } from '../../store/db.ts';
import type { ApiDeps } from '../../api/context.ts';
import { sweepPendingAnswers } from '../../api/approvals/handover.ts';
import { sweepUntakenSends } from '../../api/sessions/wake.ts';
import type { SessionEvent } from '../../contract/events.ts';

let env: AgentEnv;
beforeAll(async () => {
  env = await startAgentEnv();
});
afterAll(async () => env?.close());

/** What the API's sweeps use: its database, Temporal client, settings and logger. */
const sweepDeps = () => ({
  db: env.api.db,
  // The sweeps call Temporal through the client only.
  temporal: { client: env.worker.client } as ApiDeps['temporal'],
  config: env.api.config,
  logger: createLogger({ level: 'silent' }),
});

const turnEnded = (events: SessionEvent[]) => events.some((event) => event.type === 'turn.completed' || event.type === 'turn.failed');

test('answered while no worker runs: 200 at once, the second answer 409, and the turn resumes with it once a worker is back', async () => {
  const { sessionId, requested } = await askInTurn(env, {
    input: { question: 'Deploy on Friday?', options: ['yes', 'no'], expiresInMs: 600_000 },
    reply: 'Deployed.',
  });
  await env.restartWorker(async () => {
    const answered = await call<{ status: string; choice: string }>(`${env.api.url}/approval/${requested.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'yes', note: 'go' },
    });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ status: 'answered', choice: 'yes' });
    const again = await call<{ detail: string }>(`${env.api.url}/approval/${requested.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'no' },
    });
    expect(again.status, again.text).toBe(409);
    expect(again.body.detail).toMatch(/"yes"/);
    const read = await call<{ status: string; choice: string }>(`${env.api.url}/approval/${requested.approvalId}`, {
      headers: env.user.auth,
    });
    expect(read.body).toMatchObject({ status: 'answered', choice: 'yes' });
    const events = await env.events(sessionId);
    expect(events.filter((event) => event.type === 'approval.answered')).toEqual([expect.objectContaining({ choice: 'yes', note: 'go' })]);
  });
  const events = await env.waitForEvents(sessionId, turnEnded, 60_000);
  expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
  // The model's next step read the answer as the tool's result.
  expect(JSON.stringify(env.fake.requests.at(-1)!.body.messages)).toContain('yes');
});

test('an answer stored whose hand-over never reached the workflow is handed over by the sweep, and the turn resumes', async () => {
  const { sessionId, requested } = await askInTurn(env, {
    input: { question: 'Rotate the keys?', options: ['rotate', 'wait'], expiresInMs: 600_000 },
    reply: 'Rotated.',
  });
  // What an API process does before it signals: the answer is stored, the signal never sent.
  const { changed } = await storeApprovalAnswer(
    env.api.db,
    { approvalId: requested.approvalId, choice: 'rotate', note: null, via: 'api' },
    true,
  );
  expect(changed).toBe(true);
  // The API's sweep (every SEND_SWEEP_INTERVAL_MS; off in tests, which share one database), for this user.
  expect(await sweepPendingAnswers(sweepDeps(), 0, env.user.userId)).toBe(1);
  const events = await env.waitForEvents(sessionId, turnEnded, 30_000);
  expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
  const { rows } = await env.api.db.query<{ answer_pending: boolean }>('SELECT answer_pending FROM approvals WHERE id = $1', [
    requested.approvalId,
  ]);
  expect(rows[0]!.answer_pending).toBe(false);
});

test('a send taken whose wake-up never reached the session workflow runs once the sweep wakes it', async () => {
  const sessionId = await env.newSession();
  const session = await env.api.db.query<{ user_id: string }>('SELECT user_id FROM sessions WHERE id = $1', [sessionId]);
  env.fake.enqueue({ text: 'Woken by the sweep.' });
  const messageId = newId('msg');
  // What an API process does before it signals: the send is taken, the signal never sent.
  const taken = await takeSend(env.api.db, {
    sessionId,
    userId: session.rows[0]!.user_id,
    messageId,
    parts: [{ type: 'text', text: 'anyone?' }],
    ifBusy: 'queue',
    maxWaitingPerUser: 10,
  });
  expect(taken.seq).toBeGreaterThan(0);
  expect(await sweepUntakenSends(sweepDeps(), 0, env.user.userId)).toBe(1);
  const events = await env.waitForEvents(sessionId, turnEnded, 30_000);
  expect(events.filter((event) => event.type === 'turn.completed').map((event) => event.turnId)).toEqual([messageId]);
});

test('a send and an answer stored by an API process that died before handing them over are swept within seconds, not after 30', async () => {
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: 'Woken after its API died.' });
  const messageId = newId('msg');
  // The dying API's own connection stores the send; its wake-up is never sent.
  const dying = createPool(inject('databaseUrl'), 1);
  await takeSend(dying, {
    sessionId,
    userId: env.user.userId,
    messageId,
    parts: [{ type: 'text', text: 'still there?' }],
    ifBusy: 'queue',
    maxWaitingPerUser: 10,
  });
  // Three seconds on: past the API's own wait for its wake-up, far short of the sweep's patience (here a minute).
  await env.api.db.query("UPDATE session_inbox SET created_at = created_at - interval '3 seconds' WHERE message_id = $1", [messageId]);
  expect(await sweepUntakenSends(sweepDeps(), 60_000, env.user.userId)).toBe(0);
  await dying.end();
  await expect.poll(() => sweepUntakenSends(sweepDeps(), 60_000, env.user.userId), { timeout: 10_000 }).toBe(1);
  const events = await env.waitForEvents(sessionId, turnEnded, 30_000);
  expect(events.filter((event) => event.type === 'turn.completed').map((event) => event.turnId)).toEqual([messageId]);

  const { sessionId: asking, requested } = await askInTurn(env, {
    input: { question: 'Ship it?', options: ['ship', 'hold'], expiresInMs: 600_000 },
    reply: 'Shipped.',
  });
  const dyingAgain = createPool(inject('databaseUrl'), 1);
  const { changed } = await storeApprovalAnswer(
    dyingAgain,
    { approvalId: requested.approvalId, choice: 'ship', note: null, via: 'api' },
    true,
  );
  expect(changed).toBe(true);
  await env.api.db.query("UPDATE approvals SET answered_at = answered_at - interval '3 seconds' WHERE id = $1", [requested.approvalId]);
  expect(await sweepPendingAnswers(sweepDeps(), 60_000, env.user.userId)).toBe(0);
  await dyingAgain.end();
  await expect.poll(() => sweepPendingAnswers(sweepDeps(), 60_000, env.user.userId), { timeout: 10_000 }).toBe(1);
  const asked = await env.waitForEvents(asking, turnEnded, 30_000);
  expect(asked.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
});

test("a client's tool answer taken whose wake-up never reached the session workflow is handed to the turn by the sweep", async () => {
  const lookup = {
    id: 'lookup_order',
    description: 'Look up an order',
    parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  };
  const sessionId = await env.newSession({ customTools: [lookup] });
  env.fake.enqueue({ toolCalls: [{ id: 'call_s', name: 'lookup_order', arguments: { orderId: 'S-1' } }] }, { text: 'Swept.' });
  const waiting = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'Where is S-1?' }] },
  });
  expect(waiting.body.status).toBe('waiting');
  const toolCall = (await findToolCall(env.api.db, sessionId, 'call_s'))!;
  // What an API process does before it signals: the answer is taken, the signal never sent.
  const stored = await storeClientToolAnswer(env.api.db, {
    sessionId,
    userId: env.user.userId,
    messageId: toolCall.messageId,
    toolCallId: 'call_s',
    callSeq: toolCall.seq,
    answer: { output: 'swept' },
  });
  expect(stored).toEqual({ status: 'stored' });
  expect(await sweepUntakenSends(sweepDeps(), 0, env.user.userId)).toBe(1);
  const events = await env.waitForEvents(sessionId, turnEnded, 30_000);
  expect(events.filter((event) => event.type === 'tool.result')).toEqual([
    expect.objectContaining({ toolCallId: 'call_s', output: 'swept' }),
  ]);
  expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
  // Read by the workflow: the sweep wakes nobody for it again; its turn has ended: no take hands it over again.
  expect(await sweepUntakenSends(sweepDeps(), 0, env.user.userId)).toBe(0);
  expect((await takeInbox(env.api.db, sessionId)).answers).toEqual([]);
});

test('the same send taken three times at the same moment (one Idempotency-Key, sent at once) is one message', async () => {
  const sessionId = await env.newSession();
  const send = {
    sessionId,
    userId: env.user.userId,
    messageId: newId('msg'),
    parts: [{ type: 'text' as const, text: 'twins' }],
    ifBusy: 'queue' as const,
    maxWaitingPerUser: 10,
  };
  const taken = await Promise.all([takeSend(env.api.db, send), takeSend(env.api.db, send), takeSend(env.api.db, send)]);
  expect(new Set(taken.map((one) => one.seq)).size).toBe(1);
  const { rows } = await env.api.db.query('SELECT id FROM messages WHERE session_id = $1', [sessionId]);
  expect(rows).toHaveLength(1);
});
