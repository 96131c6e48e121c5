// What one user holds, counted for the limits per user (api/user-limits.ts) and for GET /limits.
import type { Db, DbClient } from './db.ts';

/** Cron triggers in the current revisions of the user's live agents, but for the agent named `except` (being redeployed). */
export async function countCronTriggers(db: Db | DbClient, userId: string, except?: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count
       FROM agents a
       JOIN agent_revisions r ON r.agent_id = a.id AND r.revision = a.current_revision
       CROSS JOIN LATERAL jsonb_array_elements(coalesce(r.bundle->'triggers', '[]'::jsonb)) AS t(trigger)
      WHERE a.user_id = $1 AND a.deleted_at IS NULL AND a.name IS DISTINCT FROM $2 AND t.trigger->>'kind' = 'cron'`,
    [userId, except ?? null],
  );
  return rows[0]!.count;
}

/** The user's approvals not yet answered or expired: each one a workflow that may wait up to APPROVAL_MAX_EXPIRY_MS. */
export async function countOpenApprovals(db: Db | DbClient, userId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM approvals WHERE user_id = $1 AND status = 'unanswered'",
    [userId],
  );
  return rows[0]!.count;
}

/** Bytes of the files uploaded to the user's sessions, each stored object once (a fork shares its origin's). */
export async function storedBytes(db: Db | DbClient, userId: string): Promise<number> {
  const { rows } = await db.query<{ bytes: string }>(
    `SELECT coalesce(sum(size_bytes), 0)::text AS bytes
       FROM (SELECT DISTINCT ON (m.object_key) m.size_bytes
               FROM media m JOIN sessions s ON s.id = m.session_id
              WHERE s.user_id = $1) objects`,
    [userId],
  );
  return Number(rows[0]!.bytes);
}
