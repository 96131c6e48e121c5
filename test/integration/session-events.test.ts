// GET /session/:id/events against a real PostgreSQL: JSON pages, SSE replay then live, several API
// processes, heartbeats, concurrent appenders, a process going away mid-stream, and a LISTEN
// connection killed under the hub. Events are written the way activities write them.
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { describe, expect, vi } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { storedSession } from '../helpers/harness/stored-session.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { collectSse, readSse, type SseEvent } from '../helpers/client/sse-parse.ts';
import { inTransaction, type Db } from '../../store/db.ts';
import { createSession, getSession } from '../../store/sessions.ts';
import { deployRevision } from '../../store/agents.ts';
import { minimalBundle } from '../helpers/harness/bundles.ts';
import { appendEvents, EVENTS_CHANNEL, lastSeqOf, readEvents } from '../../store/events.ts';
import { parseEventNotice, type EventNotice } from '../../store/event-notices.ts';
import { TERMINAL_TURN_EVENTS, type NewEvent, type SessionEvent } from '../../contract/events.ts';
import { createLogger } from '../../lib/logger.ts';
import { streamEvents } from '../../api/streaming/sse.ts';

// `db` is the tests' own pool: appends keep working while an API under test is closed.
const test = apiTest();

const newSession = (db: Db, user: TestUser) => storedSession(db, user, 'events');

const delta = (text: string): NewEvent => ({ type: 'message.part.delta', data: { messageId: 'msg_test', delta: text } });

/** Appends `count` deltas labelled `<label><i>` in one transaction. */
function append(db: Db, sessionId: string, count: number, label = 'd'): Promise<SessionEvent[]> {
  return inTransaction(db, (client) =>
    appendEvents(
      client,
      sessionId,
      Array.from({ length: count }, (_, i) => delta(`${label}${i}`)),
    ),
  );
}

function openSse(url: string, who: TestUser, sessionId: string, options: { after?: string; lastEventId?: string } = {}): Promise<Response> {
  const query = options.after === undefined ? '' : `?after=${options.after}`;
  const headers: Record<string, string> = { ...who.auth, accept: 'text/event-stream' };
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  return fetch(`${url}/session/${sessionId}/events${query}`, { headers });
}

const seqs = (events: SseEvent[]) => events.map((event) => Number(event.id));
const parsed = (events: SseEvent[]) =>
  events.map((event) => ({ id: event.id, event: event.event, data: JSON.parse(event.data) as unknown }));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const reaches = (seq: number) => (event: SseEvent) => Number(event.id) >= seq;

/** Reads from a live SSE body until `done` holds, leaving the stream open for more. */
async function readUntil(events: AsyncGenerator<SseEvent>, done: (event: SseEvent) => boolean, timeoutMs = 10_000): Promise<SseEvent[]> {
  const got: SseEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`readUntil timed out; got ${JSON.stringify(got)}`)), Math.max(0, deadline - Date.now()));
    });
    const next = await Promise.race([events.next(), timeout]).finally(() => clearTimeout(timer));
    if (next.done) throw new Error(`the stream ended; got ${JSON.stringify(got)}`);
    got.push(next.value);
    if (done(next.value)) return got;
  }
}

function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error('condition not reached in time');
      return value;
    },
    { timeout: timeoutMs, interval: 25 },
  );
}

describe('appending', () => {
  test('one append numbers its events after the last, moves the status with them, is announced at commit, and refuses an unknown session', async ({
    db,
    user,
  }) => {
    const sessionId = await newSession(db, user);
    const listener = new pg.Client({ connectionString: testConfig().databaseUrl });
    await listener.connect();
    const notices: EventNotice[] = [];
    const payloads: string[] = [];
    listener.on('notification', (message) => {
      payloads.push(message.payload ?? '');
      notices.push(parseEventNotice(message.payload ?? ''));
    });
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    const announced = (lastSeq: number) => notices.find((notice) => notice.id === sessionId && notice.lastSeq === lastSeq);
    try {
      const before = await lastSeqOf(db, sessionId);
      const appended = await inTransaction(db, async (client) => {
        const events = await appendEvents(client, sessionId, [delta('a'), delta('b é 🌍'), delta('c')], { status: 'running' });
        // Announced at commit, not before.
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(announced(before + 3)).toBeUndefined();
        return events;
      });
      expect(appended.map((event) => [event.seq, (event as { delta?: string }).delta])).toEqual([
        [before + 1, 'a'],
        [before + 2, 'b é 🌍'],
        [before + 3, 'c'],
      ]);
      expect(await readEvents(db, sessionId, before, 10)).toEqual(appended);
      expect(await lastSeqOf(db, sessionId)).toBe(before + 3);
      expect((await getSession(db, sessionId))?.status).toBe('running');
      await expect.poll(() => announced(before + 3), { timeout: 10_000 }).toBeDefined();
      // The notice carries the events as a read builds them, member order and `at` to the millisecond included.
      expect(JSON.stringify(announced(before + 3)!.events)).toBe(JSON.stringify(await readEvents(db, sessionId, before, 3)));
      // An API of the version before took the session from before the payload's last colon: it still wakes it.
      // (Other tests' sessions are announced on the same channel meanwhile: this session's notices are checked.)
      const own = payloads.filter((payload) => payload.startsWith(`${sessionId}:`));
      expect(own.length).toBeGreaterThan(0);
      for (const payload of own) expect(payload.slice(0, payload.lastIndexOf(':'))).toBe(sessionId);

      // Events too big for a notice are announced by seq alone, and the transaction commits.
      const big = await inTransaction(db, (client) =>
        appendEvents(client, sessionId, [delta('x'.repeat(4_000)), delta('y'.repeat(4_000))]),
      );
      await expect.poll(() => announced(before + 5), { timeout: 10_000 }).toBeDefined();
      expect(announced(before + 5)!.events).toBeUndefined();
      expect(await readEvents(db, sessionId, before + 3, 10)).toEqual(big);

      // Without a status the session keeps its own.
      await inTransaction(db, (client) => appendEvents(client, sessionId, [delta('d')]));
      expect((await getSession(db, sessionId))?.status).toBe('running');
      await expect(inTransaction(db, (client) => appendEvents(client, 'ses_missing', [delta('x')]))).rejects.toThrow(/does not exist/);
    } finally {
      await listener.end();
    }
  });
});

describe('a new session', () => {
  test('its row and its session.created (seq 1) are one statement, announced with the event; a refused one leaves neither', async ({
    db,
    user,
  }) => {
    const { agent } = await deployRevision(db, { userId: user.userId, bundle: minimalBundle(`created-${Date.now()}`), warnings: [] });
    const listener = new pg.Client({ connectionString: testConfig().databaseUrl });
    await listener.connect();
    const notices: EventNotice[] = [];
    listener.on('notification', (message) => notices.push(parseEventNotice(message.payload ?? '')));
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    try {
      const session = await createSession(db, { userId: user.userId, agentId: agent.id, revision: agent.revision });
      expect(session).toMatchObject({ userId: user.userId, agentId: agent.id, revision: agent.revision, status: 'idle', lastSeq: 1 });
      const events = await readEvents(db, session.id, 0, 10);
      expect(events).toEqual([
        { seq: 1, type: 'session.created', at: expect.any(String), sessionId: session.id, agentId: agent.id, revision: agent.revision },
      ]);
      expect(await lastSeqOf(db, session.id)).toBe(1);
      await expect.poll(() => notices.find((notice) => notice.id === session.id), { timeout: 10_000 }).toBeDefined();
      const notice = notices.find((each) => each.id === session.id)!;
      expect(notice.lastSeq).toBe(1);
      expect(JSON.stringify(notice.events)).toBe(JSON.stringify(events));
      // The next append follows it.
      const [next] = await inTransaction(db, (client) => appendEvents(client, session.id, [delta('after')]));
      expect(next!.seq).toBe(2);

      // An agent that does not exist: the row is refused, and no event of it is left behind.
      const refusedId = `ses_refused${Date.now()}`;
      await expect(createSession(db, { id: refusedId, userId: user.userId, agentId: 'agt_missing', revision: 1 })).rejects.toThrow(
        /foreign key/,
      );
      expect(await getSession(db, refusedId)).toBeUndefined();
      expect(await readEvents(db, refusedId, 0, 10)).toEqual([]);
    } finally {
      await listener.end();
    }
  });
});

describe('JSON pages', () => {
  test('pages follow `next` to the end, where next is null', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    await append(db, sessionId, 24);
    const page = (query: string) =>
      call<{ events: SessionEvent[]; next: number | null }>(`${api.url}/session/${sessionId}/events${query}`, {
        headers: { ...user.auth, accept: 'application/json' },
      });

    const first = await page('?limit=10');
    expect(first.status).toBe(200);
    expect(first.body.events.map((event) => event.seq)).toEqual(range(1, 10));
    expect(first.body.next).toBe(10);
    expect(first.body.events[0]).toMatchObject({ seq: 1, type: 'session.created', sessionId, at: expect.any(String) });
    expect(first.body.events[1]).toEqual({
      seq: 2,
      type: 'message.part.delta',
      sessionId,
      at: expect.any(String),
      messageId: 'msg_test',
      delta: 'd0',
    });

    const second = await page(`?limit=10&after=${first.body.next}`);
    expect(second.body.events.map((event) => event.seq)).toEqual(range(11, 20));
    const third = await page(`?limit=10&after=${second.body.next}`);
    expect(third.body.events.map((event) => event.seq)).toEqual(range(21, 25));
    expect(third.body.next).toBeNull();

    // A page ending exactly at the last event is the end too; the default limit is 100.
    expect((await page('?limit=25')).body.next).toBeNull();
    const all = await page('');
    expect(all.body.events).toHaveLength(25);
    expect(all.body.next).toBeNull();
    expect((await page('?after=25')).body).toEqual({ events: [], next: null });
  });
});

describe('SSE replay', () => {
  test('from 0: every event as id/event/data frames, across several replay pages, with the SSE headers', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    await append(db, sessionId, 2_499);
    const response = await openSse(api.url, user, sessionId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const events = await collectSse(response, reaches(2_500));
    expect(seqs(events)).toEqual(range(1, 2_500));
    expect(events[0]!.event).toBe('session.created');
    expect(events[1]).toEqual({ id: '2', event: 'message.part.delta', data: expect.any(String) });
    expect(JSON.parse(events[1]!.data)).toEqual({
      seq: 2,
      type: 'message.part.delta',
      at: expect.any(String),
      sessionId,
      messageId: 'msg_test',
      delta: 'd0',
    });
    for (const event of events) expect(JSON.parse(event.data)).toMatchObject({ seq: Number(event.id), type: event.event, sessionId });
  });

  test('from the middle: Last-Event-ID header, ?after=, and the header winning over the query', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    await append(db, sessionId, 9);
    expect(seqs(await collectSse(await openSse(api.url, user, sessionId, { lastEventId: '4' }), reaches(10)))).toEqual(range(5, 10));
    expect(seqs(await collectSse(await openSse(api.url, user, sessionId, { after: '6' }), reaches(10)))).toEqual(range(7, 10));
    expect(seqs(await collectSse(await openSse(api.url, user, sessionId, { after: '8', lastEventId: '4' }), reaches(10)))).toEqual(
      range(5, 10),
    );
    // An empty Last-Event-ID (what a client that saw no id would send) means "not given".
    expect(seqs(await collectSse(await openSse(api.url, user, sessionId, { after: '8', lastEventId: '' }), reaches(10)))).toEqual(
      range(9, 10),
    );
  });
});

describe('SSE live', () => {
  test('events appended after the replay arrive on the open stream', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    await append(db, sessionId, 2);
    const stream = readSse(await openSse(api.url, user, sessionId));
    try {
      expect(seqs(await readUntil(stream, reaches(3)))).toEqual(range(1, 3));
      await append(db, sessionId, 3, 'live');
      const live = await readUntil(stream, reaches(6));
      expect(seqs(live)).toEqual(range(4, 6));
      expect(live.map((event) => (JSON.parse(event.data) as { delta: string }).delta)).toEqual(['live0', 'live1', 'live2']);
      await append(db, sessionId, 1, 'later');
      expect(seqs(await readUntil(stream, reaches(7)))).toEqual([7]);
    } finally {
      await stream.return(undefined);
    }
  });

  test('two concurrent readers see identical sequences while appenders race', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    const [a, b] = await Promise.all([openSse(api.url, user, sessionId), openSse(api.url, user, sessionId)]);
    const reading = Promise.all([collectSse(a, reaches(51)), collectSse(b, reaches(51))]);
    await Promise.all(
      range(1, 5).map(async (appender) => {
        for (let i = 0; i < 10; i++) await append(db, sessionId, 1, `a${appender}-`);
      }),
    );
    const [first, second] = await reading;
    expect(seqs(first)).toEqual(range(1, 51));
    // The same events in the same order with the same members. Not byte-equal: a reader that joined
    // while events were being appended gets some of them from PostgreSQL's replay, which prints JSON
    // with a space after ':' and ',' (store/event-frames.ts), and the other reader the same events live.
    expect(parsed(second)).toEqual(parsed(first));
  });

  test('two API processes on one database both stream appended events live', async ({ api, user, db }) => {
    const other = await startTestApi();
    try {
      const sessionId = await newSession(db, user);
      const streams = [readSse(await openSse(api.url, user, sessionId)), readSse(await openSse(other.url, user, sessionId))];
      for (const stream of streams) expect(seqs(await readUntil(stream, reaches(1)))).toEqual([1]);
      await append(db, sessionId, 4);
      const [viaFirst, viaSecond] = await Promise.all(streams.map((stream) => readUntil(stream, reaches(5))));
      expect(seqs(viaFirst!)).toEqual(range(2, 5));
      expect(parsed(viaSecond!)).toEqual(parsed(viaFirst!));
      for (const stream of streams) await stream.return(undefined);
    } finally {
      await other.close();
    }
  });

  test('a small SSE_HEARTBEAT_MS puts keep-alive comments on an idle stream', async ({ user, db }) => {
    const fast = await startTestApi({ SSE_HEARTBEAT_MS: '50' });
    try {
      const sessionId = await newSession(db, user);
      const response = await openSse(fast.url, user, sessionId);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const deadline = Date.now() + 5_000;
      while ((text.match(/^: keep-alive\n\n/gm) ?? []).length < 3 && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await reader.cancel();
      expect(text.startsWith('id: 1\nevent: session.created\n')).toBe(true);
      expect((text.match(/^: keep-alive\n\n/gm) ?? []).length).toBeGreaterThanOrEqual(3);
    } finally {
      await fast.close();
    }
  });

  test('streamEvents with `until` ends the response after the terminal event of a turn', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    const app = express();
    const logger = createLogger({ level: 'silent' });
    app.get('/turn', async (req, res) => {
      req.log = logger;
      await streamEvents({
        req,
        res,
        hub: api.events,
        sessionId,
        afterSeq: 1,
        heartbeatMs: 15_000,
        until: (event) => TERMINAL_TURN_EVENTS.includes(event.type),
      });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/turn`);
      const reading = collectSse(response);
      await inTransaction(db, (client) =>
        appendEvents(client, sessionId, [{ type: 'turn.started', data: { turnId: 'msg_turn' } }, delta('a')]),
      );
      await inTransaction(db, (client) =>
        appendEvents(client, sessionId, [
          { type: 'turn.completed', data: { turnId: 'msg_turn', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: null } },
          delta('after'),
        ]),
      );
      // collectSse without `until` reads to the end of the body: the server ended it.
      const events = await reading;
      expect(events.map((event) => event.event)).toEqual(['turn.started', 'message.part.delta', 'turn.completed']);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('ordering under concurrency', () => {
  test('20 concurrent appenders of 10 events each give seq 1..201 with no gap or repeat', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    const reading = openSse(api.url, user, sessionId).then((response) => collectSse(response, reaches(201), { timeoutMs: 20_000 }));
    await Promise.all(
      range(1, 20).map(async (appender) => {
        for (let i = 0; i < 10; i++) await append(db, sessionId, 1, `w${appender}-${i}-`);
      }),
    );

    const paged: SessionEvent[] = [];
    for (let after: number | null = 0; after !== null;) {
      const page: { body: { events: SessionEvent[]; next: number | null } } = await call(
        `${api.url}/session/${sessionId}/events?after=${after}&limit=37`,
        {
          headers: user.auth,
        },
      );
      paged.push(...page.body.events);
      after = page.body.next;
    }
    expect(paged.map((event) => event.seq)).toEqual(range(1, 201));
    // Each appender's own events are in the order it appended them.
    for (const appender of range(1, 20)) {
      const mine = paged.flatMap((event) => ('delta' in event && event.delta.startsWith(`w${appender}-`) ? [event.delta] : []));
      expect(mine).toEqual(range(0, 9).map((i) => `w${appender}-${i}-0`));
    }
    const streamed = await reading;
    expect(streamed.map((event) => JSON.parse(event.data) as SessionEvent)).toEqual(paged);
  });
});

describe('failover', () => {
  test('an API process closed mid-stream: the client resumes on another with Last-Event-ID and has every event once', async ({
    user,
    db,
  }) => {
    const [first, second] = await Promise.all([startTestApi(), startTestApi()]);
    try {
      const sessionId = await newSession(db, user);
      const total = 1 + 80;
      const appending = (async () => {
        for (let i = 0; i < 80; i++) {
          await append(db, sessionId, 1, 'f');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();

      const received: SseEvent[] = [];
      let lastId: string | undefined;
      let reconnects = 0;
      let closing: Promise<void> | undefined;
      for (const target of [first, second, second, second]) {
        const response = await openSse(target.url, user, sessionId, lastId === undefined ? {} : { lastEventId: lastId });
        expect(response.status).toBe(200);
        try {
          for await (const event of readSse(response)) {
            received.push(event);
            lastId = event.id;
            // Pull the first process away under the client once it is well into the stream.
            if (target === first && received.length === 10) closing = first.close();
            if (Number(event.id) >= total) break;
          }
        } catch {
          // The connection was cut: reconnect below.
        }
        if (Number(lastId) >= total) break;
        reconnects++;
      }
      await appending;
      await closing;
      expect(reconnects).toBeGreaterThanOrEqual(1);
      expect(seqs(received)).toEqual(range(1, total));
    } finally {
      await Promise.all([first.close().catch(() => undefined), second.close()]);
    }
  });

  test('the hub reconnects after its LISTEN connection is killed, and streams miss nothing', async ({ user, db }) => {
    const own = await startTestApi();
    try {
      const sessionId = await newSession(db, user);
      const stream = readSse(await openSse(own.url, user, sessionId));
      expect(seqs(await readUntil(stream, reaches(1)))).toEqual([1]);

      // Found by its application_name: pg_stat_activity.query shows the connection's latest
      // statement, which is the hub's safety poll as often as it is LISTEN.
      const backend = () =>
        db
          .query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [own.eventsApplicationName])
          .then(({ rows }) => rows);
      const [before] = await backend();
      expect(before).toBeDefined();
      const killed = await db.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [before!.pid]);
      expect(killed.rows[0]!.ok).toBe(true);

      // Committed while the hub may be deaf: delivered once it is back (it wakes every stream).
      await append(db, sessionId, 2, 'outage');
      expect(seqs(await readUntil(stream, reaches(3)))).toEqual([2, 3]);

      const after = await until(async () => (await backend()).find((row) => row.pid !== before!.pid));
      expect(after.pid).not.toBe(before!.pid);
      await until(async () => (own.logs.some((line) => line.msg === 'LISTEN connection restored') ? true : undefined));
      await append(db, sessionId, 2, 'restored');
      expect(seqs(await readUntil(stream, reaches(5)))).toEqual([4, 5]);
      await stream.return(undefined);
    } finally {
      await own.close();
    }
  });
});

describe('access and validation', () => {
  test('an unknown session is 404, in both forms', async ({ api, user }) => {
    expect((await call(`${api.url}/session/ses_nope/events`, { headers: user.auth })).status).toBe(404);
    const response = await openSse(api.url, user, 'ses_nope');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    await response.body?.cancel();
  });

  test("another user's session is 403, in both forms", async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    const stranger = await createTestUser(api.db);
    const json = await call(`${api.url}/session/${sessionId}/events`, { headers: stranger.auth });
    expect(json.status).toBe(403);
    expect(json.text).not.toContain('session.created');
    const response = await openSse(api.url, stranger, sessionId);
    expect(response.status).toBe(403);
    await response.body?.cancel();
  });

  test('a bad `after`, `limit` or Last-Event-ID is 400', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    for (const query of ['after=-1', 'after=abc', 'after=1.5', 'limit=0', 'limit=1001']) {
      expect((await call(`${api.url}/session/${sessionId}/events?${query}`, { headers: user.auth })).status, query).toBe(400);
    }
    for (const after of ['-1', 'x']) {
      const response = await openSse(api.url, user, sessionId, { after });
      expect(response.status).toBe(400);
      await response.body?.cancel();
    }
    for (const lastEventId of ['abc', '-3', '1.5', '99999999999999999999']) {
      const response = await openSse(api.url, user, sessionId, { lastEventId });
      expect(response.status, lastEventId).toBe(400);
      await response.body?.cancel();
    }
  });

  test('without a key it is 401', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    expect((await call(`${api.url}/session/${sessionId}/events`)).status).toBe(401);
  });
});
