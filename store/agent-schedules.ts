// Which Temporal Schedules exist for an agent's cron triggers. The reconcile activity records a
// schedule before creating it and forgets it after deleting it, so a schedule is never left behind
// unrecorded; the API reads it to skip a reconcile when an agent never had any.
import type { Db } from './db.ts';

export async function scheduleIdsOf(db: Db, agentId: string): Promise<string[]> {
  const { rows } = await db.query<{ schedule_id: string }>('SELECT schedule_id FROM agent_schedules WHERE agent_id = $1', [agentId]);
  return rows.map((row) => row.schedule_id);
}

export async function hasSchedules(db: Db, agentId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM agent_schedules WHERE agent_id = $1 LIMIT 1', [agentId]);
  return (rowCount ?? 0) > 0;
}

export async function recordSchedule(db: Db, agentId: string, scheduleId: string): Promise<void> {
  await db.query('INSERT INTO agent_schedules (agent_id, schedule_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [agentId, scheduleId]);
}

export async function forgetSchedule(db: Db, agentId: string, scheduleId: string): Promise<void> {
  await db.query('DELETE FROM agent_schedules WHERE agent_id = $1 AND schedule_id = $2', [agentId, scheduleId]);
}
