// The rows of schema/migrations/0033_worker_lives.sql: a worker's life (an advisory lock its own
// connection holds) and the task tokens of the activities it runs. Every statement here runs on that
// connection (workers/worker-life.ts), never on the pool: the lock lives and dies with it.
import type pg from 'pg';

/** The first key of every worker's advisory lock, pg_advisory_lock(WORKER_LIFE_LOCK_SPACE, lock_key). */
export const WORKER_LIFE_LOCK_SPACE = 0x574c4946; // "WLIF"

/**
 * Takes the lock `lockKey` and, if no row has that key (a dead worker's may still), the row. False when
 * either is taken: the caller tries another key. A lock taken without its row is let go.
 */
export async function claimWorkerLife(client: pg.Client, lockKey: number, scope: string): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
    WORKER_LIFE_LOCK_SPACE,
    lockKey,
  ]);
  if (!rows[0]?.locked) return false;
  const inserted = await client.query('INSERT INTO worker_lives (lock_key, scope) VALUES ($1, $2) ON CONFLICT (lock_key) DO NOTHING', [
    lockKey,
    scope,
  ]);
  if (inserted.rowCount === 1) return true;
  await client.query('SELECT pg_advisory_unlock($1, $2)', [WORKER_LIFE_LOCK_SPACE, lockKey]);
  return false;
}

/** The activities the worker runs now (all of them: the row is rewritten, not patched). */
export async function recordRunningTasks(client: pg.Client, lockKey: number, taskTokens: readonly Uint8Array[]): Promise<void> {
  await client.query('UPDATE worker_lives SET task_tokens = $2, updated_at = now() WHERE lock_key = $1', [
    lockKey,
    taskTokens.map((token) => Buffer.from(token)),
  ]);
}

/** A worker stopping in order leaves no row: its activities were finished or handed back. */
export async function endWorkerLife(client: pg.Client, lockKey: number): Promise<void> {
  await client.query('DELETE FROM worker_lives WHERE lock_key = $1', [lockKey]);
  await client.query('SELECT pg_advisory_unlock($1, $2)', [WORKER_LIFE_LOCK_SPACE, lockKey]);
}

/**
 * Deletes the rows of `scope` whose lock nobody holds (their workers died) and returns the task tokens
 * they held. Rows are deleted as they are read: of two workers sweeping at once, one gets each row.
 */
export async function takeDeadWorkersTasks(client: pg.Client, scope: string): Promise<Uint8Array[]> {
  const { rows } = await client.query<{ task_tokens: Buffer[] }>(
    `DELETE FROM worker_lives w
      WHERE w.scope = $1
        AND NOT EXISTS (
          SELECT 1 FROM pg_locks l
           WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND l.classid = $2::bigint::oid AND l.objid = w.lock_key::bigint::oid)
      RETURNING w.task_tokens`,
    [scope, WORKER_LIFE_LOCK_SPACE],
  );
  return rows.flatMap((row) => row.task_tokens.map((token) => new Uint8Array(token)));
}
