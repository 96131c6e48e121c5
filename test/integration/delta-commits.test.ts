// The worker's group commit of streamed text (activities/turn/delta-commits.ts): many streams'
// writes of one moment go in one transaction, each session's events stay numbered without gaps and
// are announced, and a write that cannot be stored fails only its own stream.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { expect } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { DeltaCommits } from '../../activities/turn/delta-commits.ts';
import { parseEventNotice, type EventNotice } from '../../store/event-notices.ts';
import { claimAssistantMessage, StaleAttemptError } from '../../store/messages.ts';
import { appendEvents, EVENTS_CHANNEL, readEvents } from '../../store/events.ts';
import { inTransaction } from '../../store/db.ts';

const test = agentTest();

const newId = () => `msg_${randomUUID().replace(/-/g, '')}`;

/** A session with a streaming assistant message owned by `attempt`. */
async function streamingMessage(env: AgentEnv, attempt = 1, sessionId?: string) {
  const session = sessionId ?? (await env.newSession());
  const messageId = newId();
  await claimAssistantMessage(env.api.db, {
    sessionId: session,
    turnId: messageId,
    messageId,
    attempt,
    model: { providerId: 'openai', modelId: 'm' },
  });
  return { sessionId: session, messageId, attempt };
}

async function deltaRows(env: AgentEnv, sessionId: string) {
  const { rows } = await env.api.db.query<{ seq: number; data: { messageId: string; delta: string }; tx: string }>(
    `SELECT seq, data, xmin::text AS tx FROM events WHERE session_id = $1 AND type = 'message.part.delta' ORDER BY seq`,
    [sessionId],
  );
  return rows;
}

test("twenty streams' writes of one moment commit in one transaction, each session numbered without gaps and announced", async ({
  env,
}) => {
  const streams = await Promise.all(Array.from({ length: 20 }, () => streamingMessage(env)));
  const before = new Map(
    await Promise.all(streams.map(async (s) => [s.sessionId, (await readEvents(env.api.db, s.sessionId, 0, 100)).length] as const)),
  );
  const listener = new pg.Client({ connectionString: env.api.config.databaseUrl });
  await listener.connect();
  const notices: EventNotice[] = [];
  listener.on('notification', (message) => notices.push(parseEventNotice(message.payload ?? '')));
  await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
  try {
    const commits = new DeltaCommits(env.api.db);
    await Promise.all(streams.map((stream, index) => commits.commit({ ...stream, delta: `text ${index}` })));

    const transactions = new Set<string>();
    for (const [index, stream] of streams.entries()) {
      const events = await readEvents(env.api.db, stream.sessionId, 0, 100);
      // The delta follows the session's earlier events at the next seq.
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events).toHaveLength(before.get(stream.sessionId)! + 1);
      expect(events.at(-1)).toMatchObject({ type: 'message.part.delta', messageId: stream.messageId, delta: `text ${index}` });
      for (const row of await deltaRows(env, stream.sessionId)) transactions.add(row.tx);
    }
    expect(transactions.size).toBe(1);
    await expect.poll(() => notices.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(streams.length);
    for (const stream of streams) {
      // Each session's notice names its last seq and carries its delta, as a read of it builds it.
      const notice = notices.find((n) => n.id === stream.sessionId && n.lastSeq === before.get(stream.sessionId)! + 1);
      expect(JSON.stringify(notice?.events)).toBe(JSON.stringify((await readEvents(env.api.db, stream.sessionId, 0, 100)).slice(-1)));
    }
  } finally {
    await listener.end();
  }
});

test("one stream's writes queued together become one event, in order; what follows goes in the next transaction", async ({ env }) => {
  const stream = await streamingMessage(env);
  const commits = new DeltaCommits(env.api.db);
  await Promise.all(['a', 'b', 'c'].map((delta) => commits.commit({ ...stream, delta })));
  await commits.commit({ ...stream, delta: 'd' });
  const rows = await deltaRows(env, stream.sessionId);
  expect(rows.map((row) => row.data.delta)).toEqual(['abc', 'd']);
  expect(rows[1]!.seq).toBe(rows[0]!.seq + 1);
});

test('a stale attempt sharing a transaction with live streams fails alone, even for the same message', async ({ env }) => {
  const live = await streamingMessage(env, 2);
  const other = await streamingMessage(env);
  const commits = new DeltaCommits(env.api.db);
  const results = await Promise.allSettled([
    commits.commit({ ...live, attempt: 1, delta: 'from a zombie attempt' }),
    commits.commit({ ...live, delta: 'live' }),
    commits.commit({ ...other, delta: 'other' }),
    commits.commit({ sessionId: other.sessionId, messageId: newId(), attempt: 1, delta: 'no such message' }),
  ]);
  expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'rejected']);
  expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(StaleAttemptError);
  expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(StaleAttemptError);
  expect((await deltaRows(env, live.sessionId)).map((row) => row.data.delta)).toEqual(['live']);
  expect((await deltaRows(env, other.sessionId)).map((row) => row.data.delta)).toEqual(['other']);
});

test('a write PostgreSQL refuses fails its own stream only; the others in its transaction are stored', async ({ env }) => {
  const good = await streamingMessage(env);
  const bad = await streamingMessage(env);
  const commits = new DeltaCommits(env.api.db);
  // DeltaEntry requires storable text; this one breaks that promise on purpose.
  const results = await Promise.allSettled([
    commits.commit({ ...good, delta: 'fine' }),
    commits.commit({ ...bad, delta: 'nul \u0000 here' }),
  ]);
  expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
  expect((await deltaRows(env, good.sessionId)).map((row) => row.data.delta)).toEqual(['fine']);
  expect(await deltaRows(env, bad.sessionId)).toEqual([]);
});

test('a transaction holds at most the configured number of events; the rest follow at once', async ({ env }) => {
  const streams = await Promise.all(Array.from({ length: 5 }, () => streamingMessage(env)));
  const commits = new DeltaCommits(env.api.db, { maxEvents: 2, maxChars: 1_000_000 });
  await Promise.all(streams.map((stream) => commits.commit({ ...stream, delta: 'x' })));
  const transactions = new Set<string>();
  for (const stream of streams) for (const row of await deltaRows(env, stream.sessionId)) transactions.add(row.tx);
  expect(transactions.size).toBe(3);
});

test('batches racing with the other writers of their sessions leave each session numbered without gaps or repeats', async ({ env }) => {
  const streams = await Promise.all(Array.from({ length: 4 }, () => streamingMessage(env)));
  const commits = new DeltaCommits(env.api.db);
  const work: Promise<unknown>[] = [];
  for (let round = 0; round < 25; round++) {
    for (const stream of streams) {
      work.push(commits.commit({ ...stream, delta: `${round} ` }));
      work.push(
        inTransaction(env.api.db, (client) =>
          appendEvents(client, stream.sessionId, [{ type: 'approval.answered', data: { approvalId: `apr_${round}` } } as never]),
        ),
      );
    }
  }
  await Promise.all(work);
  for (const stream of streams) {
    const events = await readEvents(env.api.db, stream.sessionId, 0, 1000);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    const text = events.flatMap((event) => (event.type === 'message.part.delta' ? [event.delta] : [])).join('');
    expect(text).toBe(Array.from({ length: 25 }, (_, round) => `${round} `).join(''));
  }
});
