// Many SSE readers of one session, and open streams per key, through the HTTP API against a real
// PostgreSQL: 50 readers of a busy session each get every event once and in order while the API
// takes the events a notice carries without reading them, and reads events too big for a notice
// about once per wake (not once per reader), even with a reader whose
// Last-Event-ID is beyond the end of the log, and a user holds at most OPEN_STREAMS_PER_USER open
// connections (event streams, streamed and waiting sends alike), whichever of its keys opened them:
// 429 beyond, accepted again once one closes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/harness/api.ts';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { readSse } from '../helpers/client/sse-parse.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { createPool, inTransaction, type Db } from '../../store/db.ts';
import { deployRevision } from '../../store/agents.ts';
import { createSession } from '../../store/sessions.ts';
import { appendEvents } from '../../store/events.ts';
import { minimalBundle } from '../helpers/harness/bundles.ts';

/** Counts the API's reads of the events table, per session (the second query parameter of readEvents is the seq). */
const eventReads = new Map<string, number>();
function countEventReads(pool: Db): Db {
  return new Proxy(pool, {
    get(target, property) {
      if (property === 'query') {
        return (...args: unknown[]) => {
          const [text, values] = args as [unknown, unknown[] | undefined];
          // A reader's own page (readEvents), or the tails' grouped read: a query counts once for each session it reads.
          const own = typeof text === 'string' && /FROM events WHERE session_id = \$1 AND seq > \$2/.test(text);
          const grouped = typeof text === 'string' && /unnest\(\$1::text\[\]/.test(text) && /FROM events/.test(text);
          const sessions = own ? [String(values?.[0])] : grouped ? [...new Set(values?.[0] as string[])] : [];
          for (const sessionId of sessions) eventReads.set(sessionId, (eventReads.get(sessionId) ?? 0) + 1);
          return (target.query as (...a: unknown[]) => unknown)(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

let db: Db;
beforeAll(() => {
  db = createPool(testConfig().databaseUrl!, 10);
});
afterAll(async () => {
  await db?.end();
});

async function newSession(user: TestUser): Promise<string> {
  const { agent } = await deployRevision(db, {
    userId: user.userId,
    bundle: minimalBundle(`fan-${randomUUID().slice(0, 8)}`),
    warnings: [],
  });
  return (await createSession(db, { userId: user.userId, agentId: agent.id, revision: agent.revision })).id;
}

/** Appends `count` deltas; `pad` characters more each (9,000 makes an event too big for its notice to carry). */
function append(sessionId: string, count: number, label: string, pad = 0) {
  return inTransaction(db, (client) =>
    appendEvents(
      client,
      sessionId,
      Array.from({ length: count }, (_, i) => ({
        type: 'message.part.delta' as const,
        data: { messageId: 'msg_fan', delta: `${label}${i}${'.'.repeat(pad)}` },
      })),
    ),
  );
}

const openSse = (url: string, sessionId: string, user: TestUser, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${url}/session/${sessionId}/events`, { headers: { ...user.auth, accept: 'text/event-stream', ...headers }, signal });

/** Opens a stream and reads it in the background, recording the seq of every event; `close` cuts the connection. */
async function reader(open: (signal: AbortSignal) => Promise<Response>) {
  const cut = new AbortController();
  const response = await open(cut.signal);
  expect(response.status).toBe(200);
  const seqs: number[] = [];
  const done = (async () => {
    try {
      for await (const event of readSse(response)) seqs.push(Number(event.id));
    } catch {
      // Cut by close().
    }
  })();
  return {
    seqs,
    async close() {
      cut.abort();
      await done;
    },
  };
}

const until = (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) =>
  expect.poll(check, { message: `not reached in time: ${what}`, timeout: timeoutMs, interval: 10 }).toBe(true);

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('one read per session per wake', () => {
  let api: TestApi;
  let user: TestUser;
  beforeAll(async () => {
    // Every reader here is one user: the per-user limit is the other describe's business.
    api = await startTestApi({ OPEN_STREAMS_PER_USER: '1000' }, { wrapDb: countEventReads });
    user = await createTestUser(db);
  });
  afterAll(async () => {
    await api?.close();
  });

  test('50 readers of one session: every event once and in order; events a notice carries are not read, bigger ones once per wake', async () => {
    const sessionId = await newSession(user);
    const readers = await Promise.all(Array.from({ length: 50 }, () => reader((signal) => openSse(api.url, sessionId, user, {}, signal))));
    try {
      await until(() => readers.every((r) => r.seqs.length === 1), 'every reader has session.created');
      eventReads.set(sessionId, 0);
      const wakes = 20;
      for (let i = 0; i < wakes; i++) {
        await append(sessionId, 1, `w${i}-`);
        await until(() => readers.every((r) => r.seqs.at(-1) === i + 2), `every reader has seq ${i + 2}`);
      }
      // The notices brought the events (a wake of the hub's safety poll may cost a read).
      expect(eventReads.get(sessionId)).toBeLessThanOrEqual(2);

      eventReads.set(sessionId, 0);
      for (let i = 0; i < wakes; i++) {
        await append(sessionId, 1, `big${i}-`, 9_000);
        await until(() => readers.every((r) => r.seqs.at(-1) === wakes + i + 2), `every reader has seq ${wakes + i + 2}`);
      }
      for (const r of readers) expect(r.seqs).toEqual(range(1, 2 * wakes + 1));
      // One read per wake serves all 50 readers (a wake counted twice, by NOTIFY and the hub's safety poll, may add one).
      expect(eventReads.get(sessionId)).toBeGreaterThanOrEqual(wakes);
      expect(eventReads.get(sessionId)).toBeLessThanOrEqual(wakes + 5);
    } finally {
      await Promise.all(readers.map((r) => r.close()));
    }
    await until(() => api.events.stats().sessions === 0, 'the tail is released with its last reader');
  });

  test('a Last-Event-ID beyond the end is taken as the end: that stream gets new events, the others go on, no query loop', async () => {
    const sessionId = await newSession(user);
    // First, so that its stream is the one that finds where the session's log ends.
    const beyond = await reader((signal) => openSse(api.url, sessionId, user, { 'last-event-id': '999999999' }, signal));
    const normal = await reader((signal) => openSse(api.url, sessionId, user, {}, signal));
    try {
      await until(() => normal.seqs.length === 1, 'the normal reader has session.created');
      eventReads.set(sessionId, 0);
      const wakes = 10;
      for (let i = 0; i < wakes; i++) {
        await append(sessionId, 1, `b${i}-`);
        await until(() => normal.seqs.at(-1) === i + 2 && beyond.seqs.at(-1) === i + 2, `both readers have seq ${i + 2}`);
      }
      expect(normal.seqs).toEqual(range(1, wakes + 1));
      expect(beyond.seqs).toEqual(range(2, wakes + 1));
      expect(eventReads.get(sessionId)).toBeLessThanOrEqual(wakes + 5);
    } finally {
      await Promise.all([beyond.close(), normal.close()]);
    }
  });

  test('a busy session: racing appenders, 50 live readers and one replaying from the start all see 1..N once, in order', async () => {
    const sessionId = await newSession(user);
    await append(sessionId, 1_500, 'old');
    const live = await Promise.all(
      Array.from({ length: 50 }, () => reader((signal) => openSse(api.url, sessionId, user, { 'last-event-id': '1501' }, signal))),
    );
    try {
      // Once every live reader has had an event, their first reads are behind them.
      await append(sessionId, 1, 'warm');
      await until(() => live.every((r) => r.seqs.at(-1) === 1_502), 'every live reader has seq 1502');
      eventReads.set(sessionId, 0);
      const appenders = 5;
      const perAppender = 20;
      const appending = Promise.all(
        range(1, appenders).map(async (a) => {
          for (let i = 0; i < perAppender; i++) await append(sessionId, 1, `a${a}-${i}-`);
        }),
      );
      // Joins mid-stream, 1 500 events behind: it pages PostgreSQL itself, then joins the shared tail.
      const late = await reader((signal) => openSse(api.url, sessionId, user, {}, signal));
      await appending;
      const last = 1_502 + appenders * perAppender;
      await until(() => [...live, late].every((r) => r.seqs.at(-1) === last), 'every reader has the last event');
      for (const r of live) expect(r.seqs).toEqual(range(1_502, last));
      expect(late.seqs).toEqual(range(1, last));
      // At most one read per append for all 51 readers, plus the late reader's own pages.
      expect(eventReads.get(sessionId)).toBeLessThanOrEqual(appenders * perAppender + 10);
      await late.close();
    } finally {
      await Promise.all(live.map((r) => r.close()));
    }
  });
});

describe('open connections per user', () => {
  let env: AgentEnv;
  beforeAll(async () => {
    env = await startAgentEnv({ OPEN_STREAMS_PER_USER: '2' });
  });
  afterAll(async () => {
    await env?.close();
  });

  const expectStreamLimit = async (response: Response) => {
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    const problem = (await response.json()) as { status: number; detail: string };
    expect(problem).toMatchObject({
      type: 'https://agent-service.dev/problems/stream-limit',
      status: 429,
      detail: expect.stringContaining('OPEN_STREAMS_PER_USER'),
    });
  };

  /** The server sees a close a moment later; until then a new stream is still a 429. */
  const streamOnceAccepted = async (sessionId: string, what: string): Promise<Response> => {
    let accepted: Response | undefined;
    await until(async () => {
      const response = await openSse(env.api.url, sessionId, env.user);
      if (response.status === 200) accepted = response;
      else await response.body?.cancel();
      return accepted !== undefined;
    }, what);
    return accepted!;
  };

  test('a stream past OPEN_STREAMS_PER_USER is a 429 (a streamed or waiting send too, which then starts nothing); one closing frees a place', async () => {
    const sessionId = await env.newSession();
    const first = await reader((signal) => openSse(env.api.url, sessionId, env.user, {}, signal));
    const second = await reader((signal) => openSse(env.api.url, sessionId, env.user, {}, signal));
    try {
      await expectStreamLimit(await openSse(env.api.url, sessionId, env.user));
      const send = await fetch(`${env.api.url}/session/${sessionId}`, {
        method: 'POST',
        headers: { ...env.user.auth, accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ parts: [{ type: 'text', text: 'hello' }] }),
      });
      await expectStreamLimit(send);
      // A send that waits for its turn (JSON, not ?async=1) holds its connection as long: it counts too.
      const waiting = await fetch(`${env.api.url}/session/${sessionId}`, {
        method: 'POST',
        headers: { ...env.user.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ parts: [{ type: 'text', text: 'hello' }] }),
      });
      await expectStreamLimit(waiting);
      expect((await env.events(sessionId)).map((event) => event.type)).toEqual(['session.created']);

      // Not held open, so not counted: the JSON form of the events, and an async send's 202.
      expect((await call(`${env.api.url}/session/${sessionId}/events`, { headers: env.user.auth })).status).toBe(200);
      // Another key of the same user gets no more: the count is the user's.
      const other = await call<{ key: string }>(`${env.api.url}/key`, { headers: env.user.auth, json: { name: 'other client' } });
      await expectStreamLimit(await openSse(env.api.url, sessionId, { ...env.user, auth: { authorization: `Bearer ${other.body.key}` } }));
      // Another user is not affected.
      const stranger = await createTestUser(env.api.db);
      const strangersAgent = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
        headers: stranger.auth,
        json: { name: 'strangers-agent', model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
      });
      expect(strangersAgent.body.ok).toBe(true);
      const strangers = await call<{ id: string }>(`${env.api.url}/agent/strangers-agent/session`, { headers: stranger.auth, json: {} });
      const strangerStream = await openSse(env.api.url, strangers.body.id, stranger);
      expect(strangerStream.status).toBe(200);
      await strangerStream.body?.cancel();

      await first.close();
      await (await streamOnceAccepted(sessionId, 'a stream is accepted again')).body?.cancel();
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  test('a streamed send holds a place until its turn ends', async () => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'slow reply here', stallAfterChunks: 1 });
    const streamed = await reader((signal) =>
      fetch(`${env.api.url}/session/${sessionId}`, {
        method: 'POST',
        headers: { ...env.user.auth, accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ parts: [{ type: 'text', text: 'take your time' }] }),
        signal,
      }),
    );
    const watcher = await reader((signal) => openSse(env.api.url, sessionId, env.user, {}, signal));
    try {
      await env.fake.waitForRequests(1, 20_000);
      await expectStreamLimit(await openSse(env.api.url, sessionId, env.user));
      // Aborting ends the turn, and with it the streamed send's stream.
      expect((await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth })).status).toBe(200);
      await (await streamOnceAccepted(sessionId, 'a stream is accepted once the streamed send ended')).body?.cancel();
    } finally {
      await Promise.all([streamed.close(), watcher.close()]);
    }
  });
});
