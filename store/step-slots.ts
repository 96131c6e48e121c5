// Places for running model steps, per user (schema/migrations/0022_step_slots.sql): how one user's
// turns get no more than their share of the workers every user shares. A step takes a place before it
// calls the model and gives it back when it ends; a place of a worker that died lapses with its lease.
import type { Db } from './db.ts';

/**
 * Takes a place for the step `key` of `userId` when the user holds fewer than `limit` others (its own,
 * from an earlier attempt, is renewed). False when there is none: the caller waits and asks again.
 * One statement, one round trip: the user's advisory lock keeps two of its steps from counting at
 * once; a step committed just before the lock was taken may go uncounted, so two steps arriving at the
 * same moment can pass the limit by one each, never by more.
 */
export async function acquireStepSlot(db: Db, input: { userId: string; key: string; limit: number; leaseMs: number }): Promise<boolean> {
  const { rows } = await db.query({
    name: 'acquire-step-slot',
    text: `WITH locked AS (SELECT pg_advisory_xact_lock(hashtextextended('step-slots:' || $1, 0))),
                 lapsed AS (DELETE FROM step_slots WHERE user_id = $1 AND expires_at < now())
           INSERT INTO step_slots (step_key, user_id, expires_at)
           SELECT $2, $1, now() + $4 * interval '1 millisecond' FROM locked
            WHERE (SELECT count(*) FROM step_slots WHERE user_id = $1 AND step_key <> $2 AND expires_at >= now()) < $3
           ON CONFLICT (step_key) DO UPDATE SET expires_at = EXCLUDED.expires_at
           RETURNING 1`,
    values: [input.userId, input.key, input.limit, input.leaseMs],
  });
  return rows.length === 1;
}

export async function releaseStepSlot(db: Db, key: string): Promise<void> {
  await db.query('DELETE FROM step_slots WHERE step_key = $1', [key]);
}

/** Steps the user runs now (places not lapsed). */
export async function runningSteps(db: Db, userId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM step_slots WHERE user_id = $1 AND expires_at >= now()',
    [userId],
  );
  return rows[0]!.count;
}
