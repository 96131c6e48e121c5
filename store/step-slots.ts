// Places for running model steps, tool calls and compactions, per user (schema/migrations/0022_step_slots.sql,
// 0023_step_waiters.sql): how one user's turns get no more than their share of the workers every user
// shares. Each takes a place before it runs and gives it back when it ends; a place of a worker that died
// lapses with its lease. A key (core/place-keys.ts) starts with its session's id.
import type { Db } from './db.ts';

/**
 * Takes a place for `key` of `userId` when the user holds fewer than `limit` others (its own, from an
 * earlier attempt, is renewed). False when there is none: `key` is then listed among the user's waiters
 * (keeping its first `since`, so it stays ahead of later ones) for `releaseStepSlot` to wake. One round
 * trip, to a function (schema/migrations/0029_acquire_step_slot.sql) that takes the user's advisory lock
 * before it counts, so places taken at the same moment (the calls of one step run at once) never pass the
 * limit: a single statement would count from a snapshot taken before it waited for the lock.
 */
export async function acquireStepSlot(
  db: Db,
  input: { userId: string; key: string; limit: number; leaseMs: number; workflowId: string },
): Promise<boolean> {
  const { rows } = await db.query<{ taken: boolean }>({
    name: 'acquire-step-slot',
    text: 'SELECT acquire_step_slot($1, $2, $3, $4, $5) AS taken',
    values: [input.userId, input.key, input.limit, input.leaseMs, input.workflowId],
  });
  return rows[0]!.taken;
}

/** A waiting step woken this long ago whose step has not taken a place (its signal lost) may be woken again. */
const REWAKE_AFTER_MS = 60_000;

/**
 * Gives the place of step `key` back and picks the user's longest-waiting step to wake (marked woken, so
 * the next release picks another): the workflow id to signal, or null when none waits. One round trip.
 */
export async function releaseStepSlot(
  db: Db,
  input: { key: string; userId: string },
): Promise<{ stepKey: string; workflowId: string } | null> {
  const { rows } = await db.query<{ step_key: string; workflow_id: string }>({
    name: 'release-step-slot',
    text: `WITH released AS (DELETE FROM step_slots WHERE step_key = $1),
                 next AS (
                   SELECT step_key FROM step_waiters
                    WHERE user_id = $2 AND (woken_at IS NULL OR woken_at < now() - $3 * interval '1 millisecond')
                    ORDER BY since LIMIT 1 FOR UPDATE SKIP LOCKED)
           UPDATE step_waiters w SET woken_at = now() FROM next WHERE w.step_key = next.step_key
           RETURNING w.step_key, w.workflow_id`,
    values: [input.key, input.userId, REWAKE_AFTER_MS],
  });
  return rows[0] ? { stepKey: rows[0].step_key, workflowId: rows[0].workflow_id } : null;
}

/** A waiter whose workflow is gone (its turn ended while it waited): nobody is left to wake there. */
export async function forgetStepWaiter(db: Db, stepKey: string): Promise<void> {
  await db.query('DELETE FROM step_waiters WHERE step_key = $1', [stepKey]);
}

/**
 * A turn ended (aborted or failed) while it may have waited for a place: its session's waiters go. A
 * turn run in its session workflow cannot be told ended by a missing workflow (the session lives on),
 * so its end forgets it here. A session runs one turn at a time, so its waiters are that turn's, but for a
 * compaction asked for between turns that waits at that moment: it then asks again on its own timer.
 */
export async function forgetSessionStepWaiters(db: Db, sessionId: string): Promise<void> {
  await db.query("DELETE FROM step_waiters WHERE left(step_key, length($1) + 1) = $1 || ':'", [sessionId]);
}

/** Steps the user runs now (places not lapsed). */
export async function runningSteps(db: Db, userId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM step_slots WHERE user_id = $1 AND expires_at >= now()',
    [userId],
  );
  return rows[0]!.count;
}
