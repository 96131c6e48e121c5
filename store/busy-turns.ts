// The workflows a turn may be running in right now, for the worker that found another one dead
// (workers/dead-worker-recovery.ts): what the dead worker may have left mid-task is among them.
import type { Db } from './db.ts';
import { approvalWorkflowId, sessionWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';

/** A session's approvals asked about: the few it waits on, not a pile of old questions. */
const APPROVALS_PER_SESSION = 5;

/**
 * The session workflows of the sessions that are not idle (a turn runs, or waits on a person or a
 * client), most recently active first, at most `limit`; and the approval workflows those sessions wait
 * on or that ended in the last minute (an answer or an expiry a dead worker may have been recording).
 */
export async function busyTurnWorkflowIds(db: Db, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ session_id: string; approval_ids: string[] }>(
    `SELECT s.id AS session_id,
            ARRAY(SELECT a.id FROM approvals a
                   WHERE a.session_id = s.id
                     AND (a.status = 'unanswered' OR a.answered_at > now() - interval '1 minute'
                          OR a.expired_at > now() - interval '1 minute')
                   ORDER BY a.created_at DESC
                   LIMIT ${APPROVALS_PER_SESSION}) AS approval_ids
       FROM sessions s
      WHERE s.status <> 'idle'
      ORDER BY s.updated_at DESC
      LIMIT $1`,
    [limit],
  );
  return rows.flatMap((row) => [sessionWorkflowId(row.session_id), ...row.approval_ids.map(approvalWorkflowId)]);
}
