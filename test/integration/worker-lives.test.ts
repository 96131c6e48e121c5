// The rows behind a worker's life (store/worker-lives.ts): a worker's activities are taken for dead's
// only once the connection holding its advisory lock has closed and a later look still finds it free,
// by one sweeper, and only within the sweeper's own scope (its Temporal namespace and task queue); a
// worker whose connection dropped takes its row back in time and keeps its activities.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, expect, inject, test } from 'vitest';
import {
  claimWorkerLife,
  endWorkerLife,
  reclaimWorkerLife,
  recordRunningTasks,
  takeDeadWorkers,
  type DeadWorkers,
} from '../../store/worker-lives.ts';

const opened: pg.Client[] = [];
async function connection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  opened.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.end().catch(() => undefined)));
});

const key = () => 1 + Math.floor(Math.random() * 2_000_000_000);
const token = (text: string) => new Uint8Array(Buffer.from(text));
const texts = (dead: DeadWorkers) => dead.taskTokens.map((bytes) => Buffer.from(bytes).toString());
/**
 * Two looks, as the sweep makes them a second apart: the first marks a free lock (and takes nothing marked
 * within the last minute), the second, with no grace left, takes its row.
 */
async function twoLooks(sweeper: pg.Client, scope: string): Promise<string[]> {
  const first = await takeDeadWorkers(sweeper, scope, 60_000);
  return [...texts(first), ...texts(await takeDeadWorkers(sweeper, scope, 0))];
}

test('a worker’s activities are taken once its connection has closed, by one sweeper, in its scope only', async () => {
  const scope = `default/test-${randomUUID()}`;
  const otherScope = `default/test-${randomUUID()}`;
  const [dying, sweeper, otherSweeper] = [await connection(), await connection(), await connection()];
  const dyingKey = key();
  expect(await claimWorkerLife(dying, dyingKey, scope, '1234@dying-host')).toBe(true);
  // The key is its own while it lives: another connection cannot take it.
  expect(await claimWorkerLife(sweeper, dyingKey, scope, '5678@host')).toBe(false);
  expect(await recordRunningTasks(dying, dyingKey, [token('step-1'), token('tool-2')])).toBe(true);
  const sweeperKey = key();
  expect(await claimWorkerLife(sweeper, sweeperKey, scope, '5678@host')).toBe(true);

  expect(await twoLooks(sweeper, scope)).toEqual([]);
  await dying.end();
  expect(await twoLooks(otherSweeper, otherScope)).toEqual([]);
  // A first look only marks the free lock; a look at least the grace later takes the row.
  expect(texts(await takeDeadWorkers(sweeper, scope, 60_000))).toEqual([]);
  expect(texts(await takeDeadWorkers(sweeper, scope, 60_000))).toEqual([]);
  // With the tokens comes the dead worker's Temporal identity, to ask Temporal what it had not recorded.
  expect(await takeDeadWorkers(sweeper, scope, 0)).toEqual({
    taskTokens: [token('step-1'), token('tool-2')],
    identities: ['1234@dying-host'],
  });
  // Taken once: the row went with the sweep; the sweeper's own row stays.
  expect(await twoLooks(sweeper, scope)).toEqual([]);
  const { rows } = await sweeper.query('SELECT lock_key FROM worker_lives WHERE scope = $1', [scope]);
  expect(rows).toEqual([{ lock_key: sweeperKey }]);

  // A worker stopping in order leaves nothing to take, and its key is free again.
  await endWorkerLife(sweeper, sweeperKey);
  expect(await twoLooks(otherSweeper, scope)).toEqual([]);
  expect(await claimWorkerLife(otherSweeper, sweeperKey, scope, '5678@host')).toBe(true);
});

test('a worker whose connection dropped takes its row back before a second look, and keeps its activities', async () => {
  const scope = `default/test-${randomUUID()}`;
  const [dropped, sweeper] = [await connection(), await connection()];
  const lifeKey = key();
  expect(await claimWorkerLife(dropped, lifeKey, scope, '5678@host')).toBe(true);
  await recordRunningTasks(dropped, lifeKey, [token('step-1')]);
  await dropped.end();
  // A first look marks it free; its worker connects again and takes it back.
  expect(texts(await takeDeadWorkers(sweeper, scope, 60_000))).toEqual([]);
  const again = await connection();
  expect(await reclaimWorkerLife(again, lifeKey, scope)).toBe(true);
  expect(await twoLooks(sweeper, scope)).toEqual([]);
  expect(await recordRunningTasks(again, lifeKey, [token('step-1'), token('step-2')])).toBe(true);

  // Away too long: the row is taken (its activities failed); taking it back fails, and its writes say so.
  await again.end();
  expect(await twoLooks(sweeper, scope)).toEqual(['step-1', 'step-2']);
  const late = await connection();
  expect(await reclaimWorkerLife(late, lifeKey, scope)).toBe(false);
  expect(await recordRunningTasks(late, lifeKey, [])).toBe(false);
});

test('a key whose row a dead worker left is not claimed anew: its activities wait for a sweep', async () => {
  const scope = `default/test-${randomUUID()}`;
  const dying = await connection();
  const dyingKey = key();
  expect(await claimWorkerLife(dying, dyingKey, scope, '1234@dying-host')).toBe(true);
  await recordRunningTasks(dying, dyingKey, [token('step-1')]);
  await dying.end();
  const next = await connection();
  expect(await claimWorkerLife(next, dyingKey, scope, '5678@host')).toBe(false);
  expect(await twoLooks(next, scope)).toEqual(['step-1']);
});

test('a dead row’s identity is not given when a live row carries it (its worker lives), nor when it has none', async () => {
  const scope = `default/test-${randomUUID()}`;
  const [away, sweeper] = [await connection(), await connection()];
  const oldKey = key();
  expect(await claimWorkerLife(away, oldKey, scope, '42@host/away')).toBe(true);
  await recordRunningTasks(away, oldKey, [token('step-1')]);
  await away.end();
  // Its worker came back too late to take its row back, and claimed a new life under the same identity.
  const back = await connection();
  expect(await claimWorkerLife(back, key(), scope, '42@host/away')).toBe(true);
  const first = await takeDeadWorkers(sweeper, scope, 60_000);
  expect(first).toEqual({ taskTokens: [], identities: [] });
  // The recorded tokens are still taken (as before), but not the identity: what it runs now is left alone.
  expect(await takeDeadWorkers(sweeper, scope, 0)).toEqual({ taskTokens: [token('step-1')], identities: [] });

  // A row of a worker of an earlier release has no identity: only its tokens.
  const older = await connection();
  const olderKey = key();
  expect(await claimWorkerLife(older, olderKey, scope, '')).toBe(true);
  await older.query('UPDATE worker_lives SET identity = NULL WHERE lock_key = $1', [olderKey]);
  await recordRunningTasks(older, olderKey, [token('tool-2')]);
  await older.end();
  await takeDeadWorkers(sweeper, scope, 60_000);
  expect(await takeDeadWorkers(sweeper, scope, 0)).toEqual({ taskTokens: [token('tool-2')], identities: [] });
});
