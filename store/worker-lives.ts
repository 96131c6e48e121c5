// The rows of schema/migrations/0033_worker_lives.sql: a worker's life (an advisory lock its own
// connection holds) and the task tokens of the activities it runs. Every statement here runs on that
// connection (workers/worker-life.ts), never on the pool: the lock lives and dies with it.
import type pg from 'pg';

/** The first key of every worker's advisory lock, pg_advisory_lock(WORKER_LIFE_LOCK_SPACE, lock_key). */
export const WORKER_LIFE_LOCK_SPACE = 0x574c4946; // "WLIF"

/** SQL: nobody holds the lock of the row aliased `alias` (the two-int4 form shows as objsubid 2 in pg_locks). */
const unlocked = (alias: string) => `NOT EXISTS (
  SELECT 1 FROM pg_locks l
   WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND l.classid = ${WORKER_LIFE_LOCK_SPACE}::bigint::oid AND l.objid = ${alias}.lock_key::bigint::oid)`;
const UNLOCKED = unlocked('w');

/**
 * Takes the lock `lockKey` and, if no row has that key (a dead worker's may still), the row. False when
 * either is taken: the caller tries another key. A lock taken without its row is let go.
 */
export async function claimWorkerLife(client: pg.Client, lockKey: number, scope: string, identity: string): Promise<boolean> {
  if (!(await tryLock(client, lockKey))) return false;
  const inserted = await client.query(
    'INSERT INTO worker_lives (lock_key, scope, identity) VALUES ($1, $2, $3) ON CONFLICT (lock_key) DO NOTHING',
    [lockKey, scope, identity],
  );
  if (inserted.rowCount === 1) return true;
  await unlock(client, lockKey);
  return false;
}

/**
 * A worker whose connection dropped takes its own key and row back, if no sweep has taken the row: true
 * then, and its activities go on unfailed. False when the row is gone (its activities were failed) or the
 * lock is held: the caller claims a new life.
 */
export async function reclaimWorkerLife(client: pg.Client, lockKey: number, scope: string): Promise<boolean> {
  if (!(await tryLock(client, lockKey))) return false;
  const kept = await client.query('UPDATE worker_lives SET unlocked_since = NULL WHERE lock_key = $1 AND scope = $2', [lockKey, scope]);
  if (kept.rowCount === 1) return true;
  await unlock(client, lockKey);
  return false;
}

/** The activities the worker runs now (all of them: the row is rewritten, not patched); false if its row is gone. */
export async function recordRunningTasks(client: pg.Client, lockKey: number, taskTokens: readonly Uint8Array[]): Promise<boolean> {
  const { rowCount } = await client.query('UPDATE worker_lives SET task_tokens = $2, updated_at = now() WHERE lock_key = $1', [
    lockKey,
    taskTokens.map((token) => Buffer.from(token)),
  ]);
  return rowCount === 1;
}

/** A worker stopping in order with nothing running leaves no row. */
export async function endWorkerLife(client: pg.Client, lockKey: number): Promise<void> {
  await client.query('DELETE FROM worker_lives WHERE lock_key = $1', [lockKey]);
  await unlock(client, lockKey);
}

export interface DeadWorkers {
  /** The task tokens the dead workers recorded. */
  taskTokens: Uint8Array[];
  /**
   * Their Temporal identities: none for a row of a worker of an earlier release, nor for one whose
   * identity a live row carries again (its worker lost its connection and claimed a new life: it lives).
   */
  identities: string[];
}

/**
 * One look for dead workers: rows whose lock nobody holds are marked; rows of `scope` found unlocked at
 * an earlier look at least `graceMs` ago are deleted and their task tokens and identities returned (of
 * two workers sweeping at once, one gets each row). Rows of any scope unlocked for an hour go without
 * their tokens: a task queue nobody polls any more.
 */
export async function takeDeadWorkers(client: pg.Client, scope: string, graceMs: number): Promise<DeadWorkers> {
  await client.query(`UPDATE worker_lives w SET unlocked_since = now() WHERE unlocked_since IS NULL AND ${UNLOCKED}`);
  const { rows } = await client.query<{ task_tokens: Buffer[]; scope: string; identity: string | null }>(
    `DELETE FROM worker_lives w
      WHERE w.unlocked_since IS NOT NULL AND ${UNLOCKED}
        AND ((w.scope = $1 AND w.unlocked_since <= now() - $2 * interval '1 millisecond')
             OR w.unlocked_since < now() - interval '1 hour')
      RETURNING w.task_tokens, w.scope,
                CASE WHEN EXISTS (SELECT 1 FROM worker_lives o WHERE o.identity = w.identity AND o.lock_key <> w.lock_key
                                     AND NOT ${unlocked('o')})
                     THEN NULL ELSE w.identity END AS identity`,
    [scope, graceMs],
  );
  const ours = rows.filter((row) => row.scope === scope);
  return {
    taskTokens: ours.flatMap((row) => row.task_tokens.map((token) => new Uint8Array(token))),
    identities: ours.flatMap((row) => (row.identity ? [row.identity] : [])),
  };
}

async function tryLock(client: pg.Client, lockKey: number): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
    WORKER_LIFE_LOCK_SPACE,
    lockKey,
  ]);
  return rows[0]?.locked === true;
}

async function unlock(client: pg.Client, lockKey: number): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1, $2)', [WORKER_LIFE_LOCK_SPACE, lockKey]);
}
