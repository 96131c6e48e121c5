// The API's session tails read PostgreSQL together (api/streaming/grouped-tail-reads.ts): reads asked
// for in the same moment are one query, and each tail still gets exactly its own page, the one
// readEvents gives; a few queries run at once and reads asked beyond that share the next one; a query
// that fails has its reads tried one by one, unless the database is down.
import { expect } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { groupedTailReads } from '../../api/streaming/grouped-tail-reads.ts';
import { appendEvents, readEvents } from '../../store/events.ts';
import { inTransaction, type Db } from '../../store/db.ts';
import type { NewEvent } from '../../contract/events.ts';

const test = agentTest();

/** A session with `count` events after its session.created (seq 1). */
async function sessionWithEvents(env: AgentEnv, count: number): Promise<string> {
  const sessionId = await env.newSession();
  const events = Array.from({ length: count }, (_, index) => ({ type: 'approval.answered', data: { approvalId: `apr_${index}` } }));
  await inTransaction(env.api.db, (client) => appendEvents(client, sessionId, events as unknown as NewEvent[]));
  return sessionId;
}

/**
 * The database, counting the queries sent through it; the first `failing` of them fail with `failure`;
 * each waits for `gate` while it is set.
 */
function counted(db: Db, failing = 0, failure: () => Error = () => new Error('canceling statement due to statement timeout')) {
  const sent: string[] = [];
  const control = { gate: undefined as Promise<void> | undefined };
  const wrapped = {
    query: async (...args: Parameters<Db['query']>) => {
      sent.push(String(args[0]));
      const number = sent.length;
      await control.gate;
      if (number <= failing) throw failure();
      return (db.query as (...all: unknown[]) => unknown)(...args);
    },
  } as unknown as Db;
  return { db: wrapped, sent, control };
}

/** A gate and the function that opens it. */
function gate() {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
}

const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

test('reads of twenty tails asked at once are one query, and each is the page readEvents gives', async ({ env }) => {
  const sessions = await Promise.all(Array.from({ length: 20 }, (_, index) => sessionWithEvents(env, 3 + index)));
  // Positions and limits differ; one session is asked twice; one position is its end (an empty page).
  const asked = sessions.map((sessionId, index) => ({ sessionId, afterSeq: index % 4, limit: 2 + (index % 5) }));
  asked.push({ sessionId: sessions[0]!, afterSeq: 1, limit: 1000 }, { sessionId: sessions[1]!, afterSeq: 5, limit: 10 });
  const { db, sent } = counted(env.api.db);
  const read = groupedTailReads(db);
  const pages = await Promise.all(asked.map((request) => read(request.sessionId, request.afterSeq, request.limit)));
  expect(sent).toHaveLength(1);
  const expected = await Promise.all(asked.map((request) => readEvents(env.api.db, request.sessionId, request.afterSeq, request.limit)));
  expect(pages).toEqual(expected);
  expect(pages.at(-1)).toEqual([]);
  expect(pages[0]!.map((event) => event.seq)).toEqual([1, 2]);
  expect(pages.at(-2)!.map((event) => event.seq)).toEqual([2, 3, 4]);
});

test('reads beyond the per-query bound go in further queries at once', async ({ env }) => {
  const sessions = await Promise.all(Array.from({ length: 7 }, () => sessionWithEvents(env, 2)));
  const { db, sent } = counted(env.api.db);
  const read = groupedTailReads(db, { maxReads: 3, maxQueries: 3 });
  const pages = await Promise.all(sessions.map((sessionId) => read(sessionId, 0, 10)));
  expect(sent).toHaveLength(3);
  expect(pages.map((page) => page.map((event) => event.seq))).toEqual(sessions.map(() => [1, 2, 3]));
});

test('a read asked while a query runs goes at once in another, up to the bound; beyond it reads wait and then go together', async ({
  env,
}) => {
  const sessions = await Promise.all(Array.from({ length: 4 }, () => sessionWithEvents(env, 2)));
  const { db, sent, control } = counted(env.api.db);
  const read = groupedTailReads(db, { maxReads: 100, maxQueries: 2 });
  const held = gate();
  control.gate = held.closed;
  const first = read(sessions[0]!, 1, 10);
  await nextMacrotask();
  const second = read(sessions[1]!, 1, 10);
  await nextMacrotask();
  // Two queries run, neither answered: the next reads wait for one of them to end.
  expect(sent).toHaveLength(2);
  const waiting = [read(sessions[2]!, 0, 1), read(sessions[3]!, 2, 10)];
  await nextMacrotask();
  expect(sent).toHaveLength(2);
  control.gate = undefined;
  held.open();
  expect((await first).map((event) => event.seq)).toEqual([2, 3]);
  expect((await second).map((event) => event.seq)).toEqual([2, 3]);
  const [third, fourth] = await Promise.all(waiting);
  expect(sent).toHaveLength(3);
  expect(third!.map((event) => event.seq)).toEqual([1]);
  expect(fourth!.map((event) => event.seq)).toEqual([3]);
});

test('a query that fails has its reads tried again one by one, so one bad read does not fail the tails it shared a query with', async ({
  env,
}) => {
  const sessionId = await sessionWithEvents(env, 2);
  const { db, sent } = counted(env.api.db, 1);
  const read = groupedTailReads(db);
  const pages = await Promise.all([read(sessionId, 0, 10), read(sessionId, 1, 10), read(sessionId, 2, 10)]);
  expect(pages.map((page) => page.map((event) => event.seq))).toEqual([[1, 2, 3], [2, 3], [3]]);
  expect(sent).toHaveLength(4);
});

test('with the database down the reads of the failed query fail at once, untried; the reads after it are answered', async ({ env }) => {
  const sessionId = await sessionWithEvents(env, 2);
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const { db, sent } = counted(env.api.db, 1, refused);
  const read = groupedTailReads(db);
  const failed = await Promise.allSettled([read(sessionId, 0, 10), read(sessionId, 1, 10)]);
  expect(failed.map((result) => (result.status === 'rejected' ? (result.reason as Error).message : 'answered'))).toEqual([
    'connect ECONNREFUSED 127.0.0.1:5432',
    'connect ECONNREFUSED 127.0.0.1:5432',
  ]);
  expect(sent).toHaveLength(1);
  expect((await read(sessionId, 0, 10)).map((event) => event.seq)).toEqual([1, 2, 3]);
});
