// The rows behind a worker's life (store/worker-lives.ts): a worker's activities are taken for dead's
// only once the connection holding its advisory lock has closed, by one sweeper, and only within the
// sweeper's own scope (its Temporal namespace and task queue).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, expect, inject, test } from 'vitest';
import { claimWorkerLife, endWorkerLife, recordRunningTasks, takeDeadWorkersTasks } from '../../store/worker-lives.ts';

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

test('a worker’s activities are taken once its connection has closed, by one sweeper, in its scope only', async () => {
  const scope = `default/test-${randomUUID()}`;
  const otherScope = `default/test-${randomUUID()}`;
  const [dying, sweeper, otherSweeper] = [await connection(), await connection(), await connection()];
  const dyingKey = key();
  expect(await claimWorkerLife(dying, dyingKey, scope)).toBe(true);
  // The key is its own while it lives: another connection cannot take it.
  expect(await claimWorkerLife(sweeper, dyingKey, scope)).toBe(false);
  await recordRunningTasks(dying, dyingKey, [token('step-1'), token('tool-2')]);
  const sweeperKey = key();
  expect(await claimWorkerLife(sweeper, sweeperKey, scope)).toBe(true);

  expect(await takeDeadWorkersTasks(sweeper, scope)).toEqual([]);
  await dying.end();
  expect(await takeDeadWorkersTasks(otherSweeper, otherScope)).toEqual([]);
  const taken = await takeDeadWorkersTasks(sweeper, scope);
  expect(taken.map((bytes) => Buffer.from(bytes).toString())).toEqual(['step-1', 'tool-2']);
  // Taken once: the row went with the sweep; the sweeper's own row stays.
  expect(await takeDeadWorkersTasks(sweeper, scope)).toEqual([]);
  const { rows } = await sweeper.query('SELECT lock_key FROM worker_lives WHERE scope = $1', [scope]);
  expect(rows).toEqual([{ lock_key: sweeperKey }]);

  // A worker stopping in order leaves nothing to take, and its key is free again.
  await endWorkerLife(sweeper, sweeperKey);
  expect(await takeDeadWorkersTasks(otherSweeper, scope)).toEqual([]);
  expect(await claimWorkerLife(otherSweeper, sweeperKey, scope)).toBe(true);
});

test('a key whose row a dead worker left is not claimed: its activities wait for a sweep', async () => {
  const scope = `default/test-${randomUUID()}`;
  const dying = await connection();
  const dyingKey = key();
  expect(await claimWorkerLife(dying, dyingKey, scope)).toBe(true);
  await recordRunningTasks(dying, dyingKey, [token('step-1')]);
  await dying.end();
  const next = await connection();
  expect(await claimWorkerLife(next, dyingKey, scope)).toBe(false);
  expect((await takeDeadWorkersTasks(next, scope)).map((bytes) => Buffer.from(bytes).toString())).toEqual(['step-1']);
});
