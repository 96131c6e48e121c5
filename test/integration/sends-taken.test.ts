// A send is taken the moment PostgreSQL has it (store/session-inbox.ts), whatever the workers are doing:
// with no worker polling at all, sends to many sessions at once are every one taken (202), visible in
// their sessions, and once a worker starts every turn runs once, in the order its session's messages
// were taken. A user's waiting sends are bounded (QUEUED_SENDS_PER_USER): one more is a 429 with
// Retry-After, recorded nowhere, and another user is not held up by it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';

const SESSIONS = 6;
const SENDS_PER_SESSION = 5;
const QUEUED_PER_USER = SESSIONS * SENDS_PER_SESSION;

let env: AgentEnv;
beforeAll(async () => {
  // The env's own queue: nothing polls it until the test starts a worker on it.
  env = await startAgentEnv({ QUEUED_SENDS_PER_USER: String(QUEUED_PER_USER) }, { inProcessWorker: false });
  env.fake.setHandler((request) => ({
    text: `answer to ${
      JSON.stringify(request.body.messages)
        .match(/send \d+-\d+/g)
        ?.at(-1) ?? '?'
    }`,
  }));
});
afterAll(async () => env?.close());

const sendAsync = (auth: Record<string, string>, sessionId: string, text: string) =>
  call<{ messageId: string; type?: string; detail?: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: auth,
    json: { parts: [{ type: 'text', text }] },
  });

const userMessageIds = (events: SessionEvent[]) =>
  events.flatMap((event) => (event.type === 'message.created' && event.message.role === 'user' ? [event.message.id] : []));

describe('with the workers far behind (none polling)', () => {
  test(
    'sends to many sessions at once are all taken; each turn runs once, in order, when a worker starts',
    { timeout: 180_000 },
    async () => {
      const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => env.newSession()));
      // Every send of every session at once: within a session their order is the order they were taken.
      const sent = await Promise.all(
        sessions.flatMap((sessionId, s) =>
          Array.from({ length: SENDS_PER_SESSION }, (_, n) => sendAsync(env.user.auth, sessionId, `send ${s}-${n}`)),
        ),
      );
      for (const answer of sent) expect(answer.status, answer.text).toBe(202);
      expect(new Set(sent.map((answer) => answer.body.messageId)).size).toBe(SESSIONS * SENDS_PER_SESSION);

      // Taken means visible: each session holds its messages already, and says it has work.
      for (const sessionId of sessions) {
        const read = await call<{ status: string; messages: unknown[] }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
        expect(read.body.messages).toHaveLength(SENDS_PER_SESSION);
        expect(read.body.status).toBe('running');
      }
      // One more is over the user's bound: 429 with Retry-After, in the queue-full problem, recorded nowhere.
      const before = await env.events(sessions[0]!);
      const over = await sendAsync(env.user.auth, sessions[0]!, 'one too many');
      expect(over.status, over.text).toBe(429);
      expect(over.body.type).toMatch(/queue-full$/);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await env.events(sessions[0]!)).toEqual(before);
      // ... and holds up nobody else.
      const other = await createTestUser(env.api.db);
      const agent = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
        headers: other.auth,
        json: { name: 'other-user-agent', model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
      });
      expect(agent.body.ok, agent.text).toBe(true);
      const otherSession = await call<{ id: string }>(`${env.api.url}/agent/other-user-agent/session`, { headers: other.auth, json: {} });
      expect((await sendAsync(other.auth, otherSession.body.id, 'send 9-0')).status).toBe(202);

      await env.restartWorker();
      for (const sessionId of sessions) {
        const events = await env.waitForEvents(
          sessionId,
          (all) => all.filter((event) => event.type === 'turn.completed').length === SENDS_PER_SESSION,
          120_000,
        );
        const taken = userMessageIds(events);
        expect(taken).toHaveLength(SENDS_PER_SESSION);
        // One turn per message, in the order the messages were taken, none twice.
        expect(events.filter((event) => event.type === 'turn.started').map((event) => event.turnId)).toEqual(taken);
        expect(events.filter((event) => event.type === 'turn.completed').map((event) => event.turnId)).toEqual(taken);
      }
      for (let tries = 0; ; tries++) {
        const read = await call<{ messages: { role: string }[] }>(`${env.api.url}/session/${otherSession.body.id}`, {
          headers: other.auth,
        });
        if (read.body.messages.some((message) => message.role === 'assistant')) break;
        if (tries > 300) throw new Error("the other user's turn did not run");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Every session is idle again, and the user may queue as many as before.
      for (const sessionId of sessions) {
        const read = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
        expect(read.body.status).toBe('idle');
      }
      expect((await sendAsync(env.user.auth, sessions[0]!, 'send 0-5')).status).toBe(202);
      await env.waitForEvents(
        sessions[0]!,
        (all) => all.filter((event) => event.type === 'turn.completed').length === SENDS_PER_SESSION + 1,
      );
    },
  );
});

describe("a user's bound on waiting sends", () => {
  test('holds against sends to many sessions at once: exactly the bound is taken, the rest are 429', { timeout: 60_000 }, async () => {
    // Each send counts the user's waiting sends under its own session's lock, so sends to different sessions
    // raced: each counted the others before they committed, and more than the bound were taken.
    const BOUND = 3;
    const bounded = await startAgentEnv({ QUEUED_SENDS_PER_USER: String(BOUND) }, { inProcessWorker: false });
    try {
      const sessions = await Promise.all(Array.from({ length: 12 }, () => bounded.newSession()));
      const sent = await Promise.all(
        sessions.map((sessionId) =>
          call<{ type?: string }>(`${bounded.api.url}/session/${sessionId}?async=1`, {
            headers: bounded.user.auth,
            json: { parts: [{ type: 'text', text: 'hello' }] },
          }),
        ),
      );
      expect(sent.map((answer) => answer.status).sort()).toEqual([...Array(BOUND).fill(202), ...Array(12 - BOUND).fill(429)]);
      for (const answer of sent.filter((one) => one.status === 429)) expect(answer.body.type).toMatch(/queue-full$/);
      const { rows } = await bounded.api.db.query<{ waiting: string }>('SELECT count(*) AS waiting FROM session_inbox WHERE user_id = $1', [
        bounded.user.userId,
      ]);
      expect(Number(rows[0]!.waiting)).toBe(BOUND);
    } finally {
      await bounded.close();
    }
  });
});
