// A replay's pages are SSE text made by PostgreSQL (store/event-frames.ts), live events are framed in
// Node (api/streaming/sse-frame.ts): a client must get the same events either way. Against a real PostgreSQL:
// every frame parses to exactly the event toSessionEvent makes (members, values, their order, and
// `at` as toISOString prints it, whatever the stored microseconds and the connection's time zone),
// data that JSON escapes or reorders included; and through the HTTP API, a replay from the middle of a
// multi-page session (Last-Event-ID) gives every event once and in order, equal to what a stream that
// was open while they were written received live.
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { storedSession } from '../helpers/harness/stored-session.ts';
import type { TestApi } from '../helpers/harness/api.ts';
import type { TestUser } from '../helpers/harness/users.ts';
import { readSse, type SseEvent } from '../helpers/client/sse-parse.ts';
import { inTransaction, type Db } from '../../store/db.ts';
import { appendEvents, readEvents } from '../../store/events.ts';
import { readEventFrames } from '../../store/event-frames.ts';
import { sseFrame } from '../../api/streaming/sse-frame.ts';
import type { NewEvent, SessionEvent } from '../../contract/events.ts';

const test = apiTest();

const newSession = (db: Db, user: TestUser) => storedSession(db, user, 'replay');

const append = (db: Db, sessionId: string, events: readonly NewEvent[]) =>
  inTransaction(db, (client) => appendEvents(client, sessionId, events));
const delta = (text: string): NewEvent => ({ type: 'message.part.delta', data: { messageId: 'msg_replay', delta: text } });
const deltas = (count: number, label: string) => Array.from({ length: count }, (_, i) => delta(`${label}${i}`));
const until = (check: () => boolean) => expect.poll(check, { timeout: 10_000, interval: 10 }).toBe(true);

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Data of one member named like a member toSessionEvent sets: the event's own value wins. */
const CLASHING = { keep: 1, type: 'not-the-type', seq: -1, at: 'never', sessionId: 'ses_other' };

/** Events whose data JSON must escape, jsonb reorders or prints differently, and one with no data. */
const awkward = (): NewEvent[] =>
  [
    delta('quote " backslash \\ newline \n return \r tab \t controls \u0001\u001f del \u007f separators \u2028\u2029 é 漢 😀'),
    {
      type: 'message.completed',
      data: {
        message: {
          id: 'msg_x',
          zebra: 1,
          a: 2,
          mm: { '': 0, 'we"ird\\key\n': true, nested: [1, 'two', [3], {}, [], null, false] },
          numbers: [0.1, 0.30000000000000004, 1e21, 5e-7, -12.5, 123456789012345, -0],
          empty: {},
        },
      },
    },
    { type: 'turn.aborted', data: {} },
    { type: 'a "quoted" \\ type', data: { turnId: 't' } },
    { type: 'workflow.completed', data: CLASHING },
  ] as unknown as NewEvent[];

/** Splits SSE text into frames, checking each is exactly `id`, `event`, one `data` line. */
function framesOf(text: string): Array<{ id: number; type: string; data: string }> {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const lines = frame.split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^id: \d+$/);
      expect(lines[1]).toMatch(/^event: /);
      expect(lines[2]).toMatch(/^data: \{/);
      return { id: Number(lines[0]!.slice(4)), type: lines[1]!.slice(7), data: lines[2]!.slice(6) };
    });
}

/** The data of the frame api/streaming/sse-frame.ts writes for `event`. */
const liveData = (event: SessionEvent) => sseFrame(event).split('\n')[2]!.slice('data: '.length);

const clashes = (event: SessionEvent) => (event as unknown as { keep?: number }).keep === 1;

/** Whether PostgreSQL made this data (jsonb prints a space after ':'), not Node's JSON.stringify. */
const madeByPostgres = (data: string) => /"seq": \d/.test(data);

/**
 * A frame's data against the event as the live path has it: the same members and values, and,
 * re-serialized, the very bytes of the live frame (so also the same member order); except that
 * PostgreSQL drops a data member named like one toSessionEvent sets, and sets it again at the end.
 */
function expectSameEvent(data: string, live: SessionEvent): void {
  const parsed = JSON.parse(data) as Record<string, unknown>;
  expect(parsed).toStrictEqual(live);
  if (clashes(live) && madeByPostgres(data)) expect(Object.keys(parsed)).toEqual(['keep', 'seq', 'type', 'at', 'sessionId']);
  else expect(JSON.stringify(parsed)).toBe(liveData(live));
}

describe('frames made by PostgreSQL', () => {
  test('parse to exactly the events toSessionEvent makes, `at` included', async ({ user, db }) => {
    const sessionId = await newSession(db, user);
    await append(db, sessionId, [...awkward(), ...deltas(3, 'd')]);
    // Stored microseconds that truncating and rounding to milliseconds tell apart, before 1970 too.
    const stamps = [
      '2026-01-02 03:04:05.123999+00',
      '1969-12-31 23:59:59.999999+00',
      '2026-06-01 00:00:00+00',
      '2026-06-01 12:00:00.5+00',
      '2026-12-31 23:59:59.9995+00',
      '2000-02-29 23:59:59.000999+05:30',
    ];
    for (const [index, stamp] of stamps.entries()) {
      await db.query('UPDATE events SET at = $3 WHERE session_id = $1 AND seq = $2', [sessionId, index + 2, stamp]);
    }

    const client = await db.connect();
    try {
      for (const timeZone of ['UTC', 'America/St_Johns', 'Asia/Kathmandu']) {
        // Both paths read on a connection in this zone: pg's Date parse and to_char must agree.
        await client.query(`SET TimeZone = '${timeZone}'`);
        const events = await readEvents(client, sessionId, 0, 100);
        const page = await readEventFrames(client, sessionId, 0, 100);
        expect(page.count).toBe(events.length);
        expect(page.lastSeq).toBe(events.at(-1)!.seq);
        const frames = framesOf(page.text);
        expect(frames.map((frame) => frame.id)).toEqual(events.map((event) => event.seq));
        expect(frames.map((frame) => frame.type)).toEqual(events.map((event) => event.type));
        frames.forEach((frame, index) => expectSameEvent(frame.data, events[index]!));
      }
    } finally {
      await client.query('RESET TimeZone');
      client.release();
    }

    const ats = (await readEvents(db, sessionId, 1, stamps.length)).map((event) => event.at);
    expect(ats).toEqual([
      '2026-01-02T03:04:05.123Z',
      '1969-12-31T23:59:59.999Z',
      '2026-06-01T00:00:00.000Z',
      '2026-06-01T12:00:00.500Z',
      '2026-12-31T23:59:59.999Z',
      '2000-02-29T18:29:59.000Z',
    ]);
  });

  test('a page holds the events after `afterSeq`, at most `limit`; an empty page is the end', async ({ user, db }) => {
    const sessionId = await newSession(db, user);
    await append(db, sessionId, deltas(2_499, 'p'));
    const first = await readEventFrames(db, sessionId, 777, 1_000);
    expect(first.count).toBe(1_000);
    expect(first.lastSeq).toBe(1_777);
    expect(framesOf(first.text).map((frame) => frame.id)).toEqual(range(778, 1_777));
    const last = await readEventFrames(db, sessionId, 1_777, 1_000);
    expect(last.count).toBe(723);
    expect(last.lastSeq).toBe(2_500);
    expect(await readEventFrames(db, sessionId, 2_500, 1_000)).toEqual({ text: '', count: 0, lastSeq: 2_500 });
  });
});

describe('SSE replay through the API', () => {
  function open(api: TestApi, user: TestUser, sessionId: string, lastEventId: number): Promise<Response> {
    return fetch(`${api.url}/session/${sessionId}/events`, {
      headers: { ...user.auth, accept: 'text/event-stream', 'last-event-id': String(lastEventId) },
    });
  }

  /** Reads until the event with id `seq`, leaving the stream open. */
  async function readTo(events: AsyncGenerator<SseEvent>, seq: number): Promise<SseEvent[]> {
    const got: SseEvent[] = [];
    const timeout = AbortSignal.timeout(20_000);
    for (;;) {
      if (timeout.aborted) throw new Error(`no event ${seq} in time; got up to ${got.at(-1)?.id}`);
      const next = await events.next();
      if (next.done) throw new Error(`the stream ended before event ${seq}`);
      got.push(next.value);
      if (Number(next.value.id) >= seq) return got;
    }
  }

  test('from the middle of a multi-page session: every event once, in order, as the live stream had it', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    // A stream open while the events are written gets them live, from the session's tail: each batch
    // is read before the next is written, so this stream never falls behind the tail's buffer.
    const live = readSse(await open(api, user, sessionId, 1));
    // The stream follows the tail once it has read an event written after it opened: until then a
    // loaded machine may still serve what is appended from its opening page read, from PostgreSQL.
    const warmUp = await append(db, sessionId, deltas(1, 'w'));
    const received: SseEvent[] = await readTo(live, warmUp.at(-1)!.seq);
    const batches = [awkward(), ...Array.from({ length: 12 }, (_, i) => deltas(200, `b${i}-`)), awkward(), deltas(150, 'z')];
    for (const batch of batches) {
      const written = await append(db, sessionId, batch);
      received.push(...(await readTo(live, written.at(-1)!.seq)));
    }
    const lastSeq = 2 + batches.reduce((sum, batch) => sum + batch.length, 0);
    expect(lastSeq).toBeGreaterThan(2_000);
    expect(received.map((event) => Number(event.id))).toEqual(range(2, lastSeq));
    expect(received.slice(1).some((event) => madeByPostgres(event.data))).toBe(false);
    const liveEvents = received.map((event) => JSON.parse(event.data) as SessionEvent);
    const stored = await readEvents(db, sessionId, 1, lastSeq);
    // The warm-up event may still come from the opening page read (PostgreSQL's frame, the same event);
    // every later live frame is Node's: exactly what sseFrame writes for the stored event.
    expectSameEvent(received[0]!.data, stored[0]!);
    expect(received.slice(1).map((event) => event.data)).toEqual(stored.slice(1).map(liveData));

    /** Replays from 777 and checks every event against the live stream's; answers who made each frame. */
    const replayFrom777 = async () => {
      const replay = readSse(await open(api, user, sessionId, 777));
      const replayed = await readTo(replay, lastSeq);
      expect(replayed.map((event) => Number(event.id))).toEqual(range(778, lastSeq));
      for (const [index, event] of replayed.entries()) {
        const original = liveEvents[index + 776]!;
        expect(event.event).toBe(original.type);
        expect(event.data).not.toContain('\n');
        expectSameEvent(event.data, original);
      }
      return { replay, byPostgres: replayed.map((event) => madeByPostgres(event.data)) };
    };

    // The live stream keeps the session's tail, whose buffer reaches back past 1,777: one page from
    // PostgreSQL, then the tail's events, framed by Node.
    const handedOver = await replayFrom777();
    expect(handedOver.byPostgres.slice(0, 1_000).every(Boolean)).toBe(true);
    await handedOver.replay.return(undefined);

    // With no other reader the session has no tail: every page comes from PostgreSQL, the last one short.
    await live.return(undefined);
    await until(() => api.events.stats().readers === 0);
    const { replay, byPostgres } = await replayFrom777();
    expect(byPostgres.every(Boolean)).toBe(true);

    // Caught up, the replaying stream goes on with live events.
    const more = await append(db, sessionId, deltas(3, 'after'));
    const after = await readTo(replay, more.at(-1)!.seq);
    expect(after.map((event) => Number(event.id))).toEqual(range(lastSeq + 1, lastSeq + 3));
    after.forEach((event, index) => expectSameEvent(event.data, more[index]!));
    await replay.return(undefined);
  });

  test('a replay ending exactly at a page boundary goes on with live events', async ({ api, user, db }) => {
    const sessionId = await newSession(db, user);
    // 1,000 events: one full page, so the page read ahead after it is empty.
    await append(db, sessionId, deltas(999, 'e'));
    const replay = readSse(await open(api, user, sessionId, 0));
    const replayed = await readTo(replay, 1_000);
    expect(replayed.map((event) => Number(event.id))).toEqual(range(1, 1_000));
    const more = await append(db, sessionId, deltas(2, 'live'));
    const live = await readTo(replay, 1_002);
    expect(live.map((event) => Number(event.id))).toEqual([1_001, 1_002]);
    live.forEach((event, index) => expectSameEvent(event.data, more[index]!));
    await replay.return(undefined);
  });
});
