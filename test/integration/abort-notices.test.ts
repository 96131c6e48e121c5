// A turn's abort announced by its cancelled workflow reaches the worker's step that watches that turn, and no
// other: each watch aborts only for its own session and turn, a step that stopped watching is left
// alone, and a LISTEN connection that is killed comes back and carries notices again.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { AbortNotices, type WatchedTurn } from '../../activities/turn/abort-notices.ts';
import { announceTurnAbort } from '../../store/turn-aborts.ts';
import { createPool, type Db } from '../../store/db.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { createLogger } from '../../lib/logger.ts';

const applicationName = `abort-notices-${randomUUID().slice(0, 8)}`;
let db: Db;
let notices: AbortNotices;

beforeAll(() => {
  db = createPool(testConfig().databaseUrl!, 5);
  notices = new AbortNotices({ databaseUrl: testConfig().databaseUrl!, logger: createLogger({ level: 'silent' }), applicationName });
});
afterAll(async () => {
  await notices?.close();
  await db?.end();
});

/**
 * Announces an abort of a turn watched for the purpose, until its watch aborts: notices arrive in the
 * order they were sent, so every notice sent before it has been handled by then.
 */
async function settle(): Promise<void> {
  const turnId = `turn_${randomUUID()}`;
  const sentinel = notices.watch('ses_sentinel', turnId);
  try {
    await expect
      .poll(
        async () => {
          await announceTurnAbort(db, 'ses_sentinel', turnId);
          return sentinel.signal.aborted;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
  } finally {
    sentinel.stop();
  }
}

const watch = (sessionId: string, turnId: string): WatchedTurn => notices.watch(sessionId, turnId);

test('an announced abort aborts the watch of that session and turn only', async () => {
  const aborted = watch('ses_a', 'turn_1');
  const otherTurn = watch('ses_a', 'turn_2');
  const otherSession = watch('ses_b', 'turn_1');
  const twice = watch('ses_a', 'turn_1');
  await settle();
  await announceTurnAbort(db, 'ses_a', 'turn_1');
  await settle();
  expect(aborted.signal.aborted).toBe(true);
  expect(twice.signal.aborted).toBe(true);
  expect(otherTurn.signal.aborted).toBe(false);
  expect(otherSession.signal.aborted).toBe(false);
  for (const watched of [aborted, otherTurn, otherSession, twice]) watched.stop();
});

test('a step that stopped watching is not aborted', async () => {
  const stopped = watch('ses_c', 'turn_1');
  await settle();
  stopped.stop();
  await announceTurnAbort(db, 'ses_c', 'turn_1');
  await settle();
  expect(stopped.signal.aborted).toBe(false);
});

test('after its LISTEN connection is killed, notices come again', async () => {
  await settle();
  const backend = async () =>
    (await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName])).rows;
  const [before] = await backend();
  expect(before).toBeDefined();
  await db.query('SELECT pg_terminate_backend($1)', [before!.pid]);
  await expect.poll(async () => (await backend()).some((row) => row.pid !== before!.pid), { timeout: 20_000 }).toBe(true);
  const watched = watch('ses_d', 'turn_1');
  await settle();
  await announceTurnAbort(db, 'ses_d', 'turn_1');
  await settle();
  expect(watched.signal.aborted).toBe(true);
  watched.stop();
});
