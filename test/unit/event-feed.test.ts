// The event feed against an in-memory event log: many followers of one session share one read per
// wake, every follower gets every event once and in order, a slow follower falls behind the bounded
// buffer and reads for itself, a wake before the tail knows its position is not lost, a failed
// tail read costs queries, not events (nor a stall), and a follower starting past the end of the log
// neither spins nor misplaces the tail that the others share. A wake that brings its events is taken
// without a read when it continues the tail, and read for when it does not.
import { describe, expect, test } from 'vitest';
import { createEventFeed, type EventFeed } from '../../api/streaming/event-feed.ts';
import type { TailLimits } from '../../api/streaming/session-tail.ts';
import type { Db } from '../../store/db.ts';
import { createLogger } from '../../lib/logger.ts';
import { toSessionEvent } from '../../store/events.ts';
import type { SessionEvent } from '../../contract/events.ts';

const SESSION = 'ses_feed';

interface Row {
  session_id: string;
  seq: number;
  type: string;
  at: Date;
  data: Record<string, unknown>;
}

/** An event log with the hub's wake, and a pool whose reads can be counted, held or failed. */
function fakeLog(limits: TailLimits) {
  const rows: Row[] = [];
  const subscribers = new Set<(events?: readonly SessionEvent[]) => void>();
  const state = {
    reads: 0,
    /** While set, reads take their rows at once but answer only when it resolves. */
    hold: undefined as Promise<void> | undefined,
    /** Reads (counted from 1) that fail. */
    failing: new Set<number>(),
    /** Reads (counted from 1) that take their rows at once but answer only when their promise resolves. */
    held: new Map<number, Promise<void>>(),
  };
  const db = {
    async query(sql: string, params: [string, number, number] | [string[], number[], number[]]) {
      if (sql.includes('FROM sessions')) {
        return { rows: [{ last_seq: rows.length }] };
      }
      const number = ++state.reads;
      // A reader's own page (readEvents), or the tails' grouped read (store/tail-reads.ts: arrays, rows numbered by request).
      const grouped = (Array.isArray(params[0]) ? params : undefined) as [string[], number[], number[]] | undefined;
      const single = params as [string, number, number];
      const asked = grouped
        ? grouped[0].map((sessionId, index) => ({ sessionId, afterSeq: grouped[1][index]!, limit: grouped[2][index]!, request: index + 1 }))
        : [{ sessionId: single[0], afterSeq: single[1], limit: single[2], request: undefined }];
      const found = asked.flatMap(({ sessionId, afterSeq, limit, request }) =>
        rows
          .filter((row) => row.session_id === sessionId && row.seq > afterSeq)
          .slice(0, limit)
          .map((row) => (request === undefined ? row : { ...row, request })),
      );
      // A read answers in a later turn of the event loop, as a real one does: a reader reading in a loop cannot starve the test.
      await new Promise((resolve) => setImmediate(resolve));
      if (state.hold) await state.hold;
      await state.held.get(number);
      if (state.failing.has(number)) throw new Error('connection lost');
      return { rows: found };
    },
  } as unknown as Db;
  const feed = createEventFeed({
    db,
    logger: createLogger({ level: 'silent' }),
    limits,
    subscribe: (_sessionId, onWake) => {
      subscribers.add(onWake);
      return () => subscribers.delete(onWake);
    },
  });
  return {
    feed,
    state,
    subscribers,
    /**
     * Commits `count` events (with `size` characters of text each) and wakes the feed, as NOTIFY would:
     * with the events themselves when `wake` is 'push', as a notice that carries them does.
     */
    append(count = 1, size = 10, wake: boolean | 'push' = true) {
      const first = rows.length;
      for (let i = 0; i < count; i++) {
        const seq = rows.length + 1;
        rows.push({
          session_id: SESSION,
          seq,
          type: 'message.part.delta',
          at: new Date(0),
          data: { messageId: 'm', delta: 'x'.repeat(size) },
        });
      }
      const pushed = wake === 'push' ? rows.slice(first).map(toSessionEvent) : undefined;
      if (wake) for (const onWake of [...subscribers]) onWake(pushed);
    },
    /** Wakes the feed with events as a notice brings them, whether or not they continue the log. */
    push(events: readonly SessionEvent[]) {
      for (const onWake of [...subscribers]) onWake(events);
    },
    event: (seq: number) => toSessionEvent(rows[seq - 1]!),
  };
}

/** Pulls batches while `paused` is false, recording seqs. */
function follower(feed: EventFeed, afterSeq = 0) {
  const stop = new AbortController();
  const seqs: number[] = [];
  const control = { paused: false, resume: () => undefined as void };
  const done = (async () => {
    for await (const batch of feed.follow(SESSION, afterSeq, stop.signal)) {
      seqs.push(...batch.map((event) => event.seq));
      while (control.paused) await new Promise<void>((resolve) => (control.resume = resolve));
    }
  })();
  return {
    seqs,
    pause: () => (control.paused = true),
    resume: () => {
      control.paused = false;
      control.resume();
    },
    async close() {
      stop.abort();
      await done;
    },
  };
}

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`not reached: ${what}`);
}

const LIMITS: TailLimits = { pageSize: 5, maxEvents: 10, maxBytes: 1024 * 1024 };

describe('event feed', () => {
  test('20 followers: every event once and in order, one read per wake for all of them', async () => {
    const log = fakeLog(LIMITS);
    log.append(7);
    const followers = Array.from({ length: 20 }, () => follower(log.feed));
    await until(() => followers.every((f) => f.seqs.length === 7), 'replay');
    expect(log.subscribers.size).toBe(1);

    log.state.reads = 0;
    for (let seq = 8; seq <= 27; seq++) {
      log.append();
      await until(() => followers.every((f) => f.seqs.at(-1) === seq), `seq ${seq}`);
    }
    expect(log.state.reads).toBe(20);
    for (const f of followers) expect(f.seqs).toEqual(range(1, 27));

    await Promise.all(followers.map((f) => f.close()));
    expect(log.subscribers.size).toBe(0);
    expect(log.feed.stats()).toEqual({ sessions: 0, readers: 0, bufferedEvents: 0, bufferedBytes: 0 });
  });

  test('events a wake brings are taken as they are: 20 followers get them in order, with no read', async () => {
    const log = fakeLog(LIMITS);
    log.append(3);
    const followers = Array.from({ length: 20 }, () => follower(log.feed));
    await until(() => followers.every((f) => f.seqs.length === 3), 'replay');
    log.state.reads = 0;
    for (let seq = 4; seq <= 30; seq += 3) {
      log.append(3, 10, 'push');
      await until(() => followers.every((f) => f.seqs.at(-1) === seq + 2), `seq ${seq + 2}`);
    }
    expect(log.state.reads).toBe(0);
    for (const f of followers) expect(f.seqs).toEqual(range(1, 30));
    await Promise.all(followers.map((f) => f.close()));
  });

  test('a wake whose events do not continue the tail reads the log; events it already holds are not repeated', async () => {
    const log = fakeLog(LIMITS);
    log.append(2);
    const f = follower(log.feed);
    await until(() => f.seqs.length === 2, 'replay');
    log.state.reads = 0;
    // Seq 3 committed with a notice too big to carry it (a wake only) that is late; seq 4's notice comes first.
    log.append(1, 10, false);
    log.append(1, 10, 'push');
    await until(() => f.seqs.length === 4, 'seq 3 and 4, read');
    expect(log.state.reads).toBe(1);
    // The late wake, then a notice repeating what the tail holds: nothing new, nothing twice.
    log.push([log.event(3), log.event(4)]);
    log.append(1, 10, 'push');
    await until(() => f.seqs.length === 5, 'seq 5');
    expect(f.seqs).toEqual(range(1, 5));
    expect(log.state.reads).toBe(1);
    await f.close();
  });

  test('an event a notice brings while the tail is reading it is not taken twice', async () => {
    const log = fakeLog(LIMITS);
    log.append(1);
    const f = follower(log.feed);
    await until(() => f.seqs.length === 1, 'replay');
    const readsBefore = log.state.reads;
    const held = gate();
    log.state.held.set(readsBefore + 1, held.opened);
    // Seq 2 is committed and a plain wake starts the tail's read of it (the read has its rows, held);
    // then seq 2's notice arrives with the event itself.
    log.append(1);
    await until(() => log.state.reads === readsBefore + 1, 'the tail reads seq 2');
    log.push([log.event(2)]);
    held.open();
    await until(() => f.seqs.length >= 2, 'seq 2');
    // A third event shows that nothing more was queued for the follower in between.
    log.append(1, 10, 'push');
    await until(() => f.seqs.length >= 3, 'seq 3');
    expect(f.seqs).toEqual(range(1, 3));
    await f.close();
  });

  test('events a wake brings while the tail reads are read for after it, once', async () => {
    const log = fakeLog(LIMITS);
    log.append(1);
    const f = follower(log.feed);
    await until(() => f.seqs.length === 1, 'replay');
    const held = gate();
    log.state.held.set(log.state.reads + 1, held.opened);
    log.append(1);
    await until(() => log.state.held.size === 1 && log.state.reads === 2, 'the tail reads seq 2');
    log.append(2, 10, 'push');
    held.open();
    await until(() => f.seqs.length === 4, 'seq 2 to 4');
    expect(f.seqs).toEqual(range(1, 4));
    await f.close();
  });

  test('a follower behind the buffer pages the log itself, then joins the tail', async () => {
    const log = fakeLog(LIMITS);
    log.append(3);
    const ahead = follower(log.feed);
    await until(() => ahead.seqs.length === 3, 'first follower');
    log.append(30);
    await until(() => ahead.seqs.length === 33, 'first follower live');
    const late = follower(log.feed, 0);
    await until(() => late.seqs.length === 33, 'late replay');
    log.append(2);
    await until(() => late.seqs.length === 35 && ahead.seqs.length === 35, 'both live');
    expect(late.seqs).toEqual(range(1, 35));
    expect(ahead.seqs).toEqual(range(1, 35));
    await Promise.all([ahead.close(), late.close()]);
  });

  test('a slow follower does not grow the buffer: it falls behind and reads for itself', async () => {
    const log = fakeLog({ pageSize: 5, maxEvents: 10, maxBytes: 2_000 });
    log.append(1);
    const fast = follower(log.feed);
    const slow = follower(log.feed);
    await until(() => fast.seqs.length === 1 && slow.seqs.length === 1, 'start');
    slow.pause();
    log.append();
    await until(() => fast.seqs.length === 2, 'fast got 2');
    let largest = { events: 0, bytes: 0 };
    for (let i = 0; i < 60; i++) {
      log.append(1, 200);
      await until(() => fast.seqs.at(-1) === 3 + i, `fast got ${3 + i}`);
      const { bufferedEvents, bufferedBytes } = log.feed.stats();
      largest = { events: Math.max(largest.events, bufferedEvents), bytes: Math.max(largest.bytes, bufferedBytes) };
    }
    expect(largest.events).toBeLessThanOrEqual(10);
    expect(largest.bytes).toBeLessThanOrEqual(2_000);
    const readsBefore = log.state.reads;
    slow.resume();
    await until(() => slow.seqs.length === 62, 'slow caught up');
    expect(slow.seqs).toEqual(range(1, 62));
    expect(fast.seqs).toEqual(range(1, 62));
    // The slow follower read the events the buffer no longer held from the log itself.
    expect(log.state.reads).toBeGreaterThan(readsBefore);
    await Promise.all([fast.close(), slow.close()]);
  });

  test('a wake that comes while the first follower is still reading is not lost', async () => {
    const log = fakeLog(LIMITS);
    log.append(3);
    let release!: () => void;
    log.state.hold = new Promise<void>((resolve) => (release = resolve));
    const f = follower(log.feed);
    await until(() => log.state.reads === 1, 'first read started');
    // Committed after the follower's read took its rows, before the tail knows where the log ended.
    log.append(1);
    log.state.hold = undefined;
    release();
    await until(() => f.seqs.length === 4, 'the event committed during the read');
    expect(f.seqs).toEqual(range(1, 4));
    await f.close();
  });

  test('a failed read of the tail costs queries, not events: the followers read for themselves and go on', async () => {
    const log = fakeLog(LIMITS);
    const followers = [follower(log.feed), follower(log.feed)];
    await until(() => followers.every((f) => f.seqs.length === 0) && log.state.reads >= 2, 'start');
    log.append(1);
    await until(() => followers.every((f) => f.seqs.length === 1), 'first event');
    log.state.failing.add(log.state.reads + 1);
    log.append(1);
    await until(() => followers.every((f) => f.seqs.length === 2), 'the event whose tail read failed');
    log.append(1);
    await until(() => followers.every((f) => f.seqs.length === 3), 'after the failure');
    for (const f of followers) expect(f.seqs).toEqual(range(1, 3));
    await Promise.all(followers.map((f) => f.close()));
  });

  test('a failed tail read does not stall a follower whose own read began before the event it was woken for', async () => {
    const log = fakeLog(LIMITS);
    log.append(3);
    const first = follower(log.feed);
    await until(() => first.seqs.length === 3, 'the first follower positioned the tail at 3');
    expect(log.state.reads).toBe(1);

    // A second follower replays from the start; its read takes seqs 1..3 and is held.
    const secondRead = gate();
    log.state.held.set(2, secondRead.opened);
    const second = follower(log.feed, 0);
    await until(() => log.state.reads === 2, 'the second follower is reading');

    // Seq 4 is committed and woken for; the tail's read of it fails, and the first follower (behind
    // the reset tail) reads for itself, slowly.
    const firstRead = gate();
    log.state.failing.add(3);
    log.state.held.set(4, firstRead.opened);
    log.append(1);
    await until(() => log.state.reads === 4, "the tail's read failed and the first follower reads for itself");

    // The second follower's read ends first: the tail is positioned at 3, and the wake for 4 is spent.
    secondRead.open();
    await until(() => second.seqs.length >= 3, 'the second follower replayed 1..3');
    firstRead.open();
    await until(() => first.seqs.length === 4, 'the first follower read 4');
    await until(() => second.seqs.length === 4, 'the second follower gets 4 without another event');
    expect(second.seqs).toEqual(range(1, 4));
    await Promise.all([first.close(), second.close()]);
  });

  test('a follower starting past the end of the log gets what comes next; the others go on, with one read per wake', async () => {
    const log = fakeLog(LIMITS);
    log.append(3);
    // First, so that its read is the one that finds the end of the log for the shared tail.
    const beyond = follower(log.feed, 999_999_999);
    await until(() => log.state.reads === 1, 'the follower beyond the end read');
    const normal = follower(log.feed);
    await until(() => normal.seqs.length === 3, 'the normal follower replayed');
    log.state.reads = 0;
    for (let seq = 4; seq <= 8; seq++) {
      log.append();
      await until(() => normal.seqs.at(-1) === seq && beyond.seqs.at(-1) === seq, `seq ${seq}`);
    }
    expect(normal.seqs).toEqual(range(1, 8));
    expect(beyond.seqs).toEqual(range(4, 8));
    // One read per wake for both: neither re-reads an empty page in a loop.
    expect(log.state.reads).toBe(5);
    await Promise.all([normal.close(), beyond.close()]);
  });

  test('a follower whose read ended empty while another positioned the tail further reads again', async () => {
    const log = fakeLog(LIMITS);
    const slowRead = gate();
    log.state.held.set(1, slowRead.opened);
    const slow = follower(log.feed);
    await until(() => log.state.reads === 1, 'the slow follower read the empty log');
    // Committed after that read; a second follower reads it itself and positions the tail after it.
    log.append(1);
    const quick = follower(log.feed);
    await until(() => quick.seqs.length === 1, 'the quick follower has seq 1');
    slowRead.open();
    await until(() => slow.seqs.length === 1, 'the slow follower has seq 1 without another event');
    await Promise.all([slow.close(), quick.close()]);
  });
});
