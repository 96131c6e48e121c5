// Idempotency-Key on sends and on POST /approval, through the HTTP API: a retry with the same key
// re-uses the first request's message or approval and answers for it, never acting twice; the same
// key with another body is 422; keys belong to one user; a bad key is 400. A definitive refusal (409,
// ifBusy=reject) is answered again to a retry with the key, and a 503 whose outcome is unknown says so.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { approvalWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { approvalStatusQuery } from '../../workflows/approval.ts';
import { startTestWorker } from '../helpers/harness/worker.ts';
import { startTcpProxy } from '../helpers/fakes/tcp-proxy.ts';
import { collectSse } from '../helpers/client/sse-parse.ts';
import { call } from '../helpers/client/request.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { lastUserText } from '../helpers/fakes/fake-model.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest();

const send = (env: AgentEnv, sessionId: string, text: string, key: string | undefined, query = '', headers: Record<string, string> = {}) =>
  call<{ messageId: string; reply?: string; status?: string; detail?: string; type?: string }>(
    `${env.api.url}/session/${sessionId}${query}`,
    {
      headers: { ...env.user.auth, ...(key === undefined ? {} : { 'idempotency-key': key }), ...headers },
      json: { parts: [{ type: 'text', text }] },
    },
  );

const userMessages = (events: SessionEvent[]) =>
  events.flatMap((event) => (event.type === 'message.created' && event.message.role === 'user' ? [event.message.id] : []));
const turnsStarted = (events: SessionEvent[]) => events.filter((event) => event.type === 'turn.started').length;
const modelCallsFor = (env: AgentEnv, text: string) => env.fake.requests.filter((request) => lastUserText(request) === text).length;

describe('Idempotency-Key on sends', () => {
  test('a retried send re-uses the first messageId: one user message, one turn; each form answers for that turn', async ({ env }) => {
    const sessionId = await env.newSession();
    const key = randomUUID();
    const text = `retry me ${key}`;
    env.fake.enqueue({ text: 'Only once.' });
    const first = await send(env, sessionId, text, key);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ reply: 'Only once.', status: 'completed' });

    const waiting = await send(env, sessionId, text, key);
    expect(waiting.status, waiting.text).toBe(200);
    expect(waiting.body).toMatchObject({ messageId: first.body.messageId, reply: 'Only once.', status: 'completed' });

    const asynchronous = await send(env, sessionId, text, key, '?async=1');
    expect(asynchronous.status).toBe(202);
    expect(asynchronous.body.messageId).toBe(first.body.messageId);

    const streamed = await fetch(`${env.api.url}/session/${sessionId}`, {
      method: 'POST',
      headers: { ...env.user.auth, 'idempotency-key': key, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ parts: [{ type: 'text', text }] }),
    });
    expect(streamed.status).toBe(200);
    const frames = (await collectSse(streamed)).map((frame) => JSON.parse(frame.data) as SessionEvent);
    expect(frames[0]).toMatchObject({ type: 'message.created', message: { id: first.body.messageId } });
    expect(frames.at(-1)).toMatchObject({ type: 'turn.completed', turnId: first.body.messageId });

    const events = await env.events(sessionId);
    expect(userMessages(events)).toEqual([first.body.messageId]);
    expect(turnsStarted(events)).toBe(1);
    expect(modelCallsFor(env, text)).toBe(1);
  });

  test('concurrent sends with the same key act once', async ({ env }) => {
    const sessionId = await env.newSession();
    const key = randomUUID();
    const text = `twins ${key}`;
    const answers = await Promise.all([1, 2, 3].map(() => send(env, sessionId, text, key, '?async=1')));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202]);
    const ids = new Set(answers.map((answer) => answer.body.messageId));
    expect(ids.size).toBe(1);
    const [messageId] = [...ids];
    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(userMessages(events)).toEqual([messageId]);
    expect(turnsStarted(events)).toBe(1);
  });

  test('the same key with another body, or on another session, is 422 and sends nothing', async ({ env }) => {
    const sessionId = await env.newSession();
    const otherSession = await env.newSession();
    const key = randomUUID();
    const first = await send(env, sessionId, 'first body', key, '?async=1');
    expect(first.status).toBe(202);

    const changed = await send(env, sessionId, 'another body', key, '?async=1');
    expect(changed.status, changed.text).toBe(422);
    expect(changed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(changed.body.type).toMatch(/idempotency-key-reused$/);
    expect(changed.body.detail).toMatch(/Idempotency-Key/);
    const elsewhere = await send(env, otherSession, 'first body', key, '?async=1');
    expect(elsewhere.status).toBe(422);

    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(userMessages(events)).toEqual([first.body.messageId]);
    expect(userMessages(await env.events(otherSession))).toEqual([]);
  });

  test('a send refused with 409 (ifBusy=reject while a turn runs) is refused again for its key, even once the session is free', async ({
    env,
  }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: ['still ', 'thinking ', 'about it'], stallAfterChunks: 1 });
    const running = await send(env, sessionId, 'a long one', undefined, '?async=1');
    await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
    const key = randomUUID();
    const text = `refused ${key}`;
    const refused = await send(env, sessionId, text, key, '?async=1&ifBusy=reject');
    expect(refused.status, refused.text).toBe(409);

    const aborted = await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
    expect(aborted.body).toEqual({ aborted: true });
    // The session takes ifBusy=reject sends again: a send without a key goes through.
    env.fake.enqueue({ text: 'free again' });
    let probe = await send(env, sessionId, 'are you free?', undefined, '?ifBusy=reject');
    for (let tries = 0; probe.status === 409 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      probe = await send(env, sessionId, 'are you free?', undefined, '?ifBusy=reject');
    }
    expect(probe.body, probe.text).toMatchObject({ reply: 'free again', status: 'completed' });

    for (const query of ['?async=1&ifBusy=reject', '?ifBusy=reject']) {
      const retried = await send(env, sessionId, text, key, query);
      expect(retried.status, retried.text).toBe(409);
      expect(retried.body).toMatchObject({ type: refused.body.type, detail: refused.body.detail });
    }
    const events = await env.events(sessionId);
    expect(userMessages(events)).toEqual([running.body.messageId, probe.body.messageId]);
    expect(modelCallsFor(env, text)).toBe(0);
  });

  test('a send while Temporal holds its answers is taken at once from PostgreSQL; a retry with the key answers the same message, and its turn runs once', async ({
    env,
  }) => {
    const proxy = await startTcpProxy(env.api.config.temporalAddress!);
    const slow = await startTestApi({ ...env.env, TEMPORAL_ADDRESS: proxy.address, TEMPORAL_CALL_TIMEOUT_MS: '20000' });
    try {
      expect((await call(`${slow.url}/auth/health`)).status).toBe(200);
      const sessionId = await env.newSession();
      const key = randomUUID();
      const text = `held ${key}`;
      env.fake.enqueue({ text: 'Taken once.' });
      proxy.holdReplies();
      const taken = await call<{ messageId: string }>(`${slow.url}/session/${sessionId}?async=1`, {
        headers: { ...env.user.auth, 'idempotency-key': key },
        json: { parts: [{ type: 'text', text }] },
      });
      // Taken although the engine has not answered the wake-up: the message is in the session already.
      expect(taken.status, taken.text).toBe(202);
      const session = await call<{ messages: { id: string; role: string }[] }>(`${env.api.url}/session/${sessionId}`, {
        headers: env.user.auth,
      });
      expect(session.body.messages.filter((message) => message.role === 'user').map((message) => message.id)).toEqual([
        taken.body.messageId,
      ]);

      const retried = await send(env, sessionId, text, key, '?async=1');
      expect(retried.status, retried.text).toBe(202);
      expect(retried.body.messageId).toBe(taken.body.messageId);
      proxy.releaseReplies();
      const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
      expect(userMessages(events)).toEqual([taken.body.messageId]);
      expect(turnsStarted(events)).toBe(1);
      expect(modelCallsFor(env, text)).toBe(1);
    } finally {
      await slow.close();
      await proxy.close();
    }
  });

  test('a key longer than 255 characters or with characters beyond printable ASCII is 400', async ({ env }) => {
    const sessionId = await env.newSession();
    for (const key of ['k'.repeat(256), 'caf\u00e9']) {
      const response = await send(env, sessionId, 'bad key', key, '?async=1');
      expect(response.status, key).toBe(400);
      expect(response.body.detail).toMatch(/Idempotency-Key header/);
    }
    expect((await send(env, sessionId, 'good key', 'k'.repeat(255), '?async=1')).status).toBe(202);
  });
});

interface ApprovalBody {
  id: string;
  status: string;
  detail?: string;
}

const createApproval = (url: string, user: TestUser, key: string | undefined, question: string) =>
  call<ApprovalBody>(`${url}/approval`, {
    headers: { ...user.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    json: { question, options: ['yes', 'no'] },
  });

async function approvalsOf(env: AgentEnv, user: TestUser): Promise<string[]> {
  const list = await call<{ approvals: ApprovalBody[] }>(`${env.api.url}/approval?limit=200`, { headers: user.auth });
  return list.body.approvals.map((approval) => approval.id);
}

describe('Idempotency-Key on POST /approval', () => {
  test('the same key twice: one approval, the same id; another body is 422', async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const key = randomUUID();
    const first = await createApproval(env.api.url, user, key, 'Ship it?');
    expect(first.status, first.text).toBe(201);
    const again = await createApproval(env.api.url, user, key, 'Ship it?');
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(await approvalsOf(env, user)).toEqual([first.body.id]);

    const changed = await createApproval(env.api.url, user, key, 'Ship something else?');
    expect(changed.status).toBe(422);
    expect(await approvalsOf(env, user)).toEqual([first.body.id]);
  });

  test('different users with the same key are independent', async ({ env }) => {
    const [alice, bob] = await Promise.all([createTestUser(env.api.db), createTestUser(env.api.db)]);
    const key = `shared-${randomUUID()}`;
    const fromAlice = await createApproval(env.api.url, alice, key, 'Same question?');
    const aliceAgain = await createApproval(env.api.url, alice, key, 'Same question?');
    const fromBob = await createApproval(env.api.url, bob, key, 'Same question?');
    expect([fromAlice.status, aliceAgain.status, fromBob.status]).toEqual([201, 201, 201]);
    expect(aliceAgain.body.id).toBe(fromAlice.body.id);
    expect(fromBob.body.id).not.toBe(fromAlice.body.id);
    expect(await approvalsOf(env, alice)).toEqual([fromAlice.body.id]);
    expect(await approvalsOf(env, bob)).toEqual([fromBob.body.id]);
  });

  test('with no worker, a retry answers the approval taken first; the worker that comes later records it once', async ({ env }) => {
    const taskQueue = `idem-late-worker-${randomUUID()}`;
    const lonely = await startTestApi({ TASK_QUEUE: taskQueue });
    try {
      const user = await createTestUser(lonely.db);
      const key = randomUUID();
      const first = await createApproval(lonely.url, user, key, 'Anyone there?');
      expect(first.status, first.text).toBe(201);
      const retried = await createApproval(lonely.url, user, key, 'Anyone there?');
      expect(retried.status, retried.text).toBe(201);
      expect(retried.body.id).toBe(first.body.id);
      const worker = await startTestWorker({ TASK_QUEUE: taskQueue });
      try {
        // The workflow runs (its worker answers a query only then), finds the record written and waits
        // for the answer: still one approval.
        const handle = worker.client.workflow.getHandle(approvalWorkflowId(first.body.id));
        expect(await handle.query(approvalStatusQuery)).toBe('unanswered');
        expect(await approvalsOf(env, user)).toEqual([first.body.id]);
        const again = await createApproval(lonely.url, user, key, 'Anyone there?');
        expect(again.body.id).toBe(first.body.id);
      } finally {
        await worker.stop();
      }
    } finally {
      await lonely.close();
    }
  });
});

describe('/openapi.json', () => {
  test('declares the Idempotency-Key header on sends, POST /approval, runs and trigger firings', async ({ env }) => {
    const { body } = await call<{ paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string }> }>> }>(
      `${env.api.url}/openapi.json`,
    );
    for (const [path, method] of [
      ['/session/{id}', 'post'],
      ['/approval', 'post'],
      ['/agent/{name}/workflow/{workflow}', 'post'],
      ['/trigger/{userId}/{agentId}/{suffix}', 'post'],
    ] as const) {
      expect(body.paths[path]![method]!.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]),
      );
    }
    const trigger = body.paths['/trigger/{userId}/{agentId}/{suffix}']!.post!.parameters.map((parameter) => parameter.name);
    expect(trigger).toEqual(expect.arrayContaining(['webhook-id', 'svix-id', 'X-GitHub-Delivery']));
  });
});
