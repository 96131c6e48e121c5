// Runs of workflow graphs: written by the graph workflow's activities (idempotent), read by the API.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { appendEvents } from './events.ts';
import { setSessionStatus } from './sessions.ts';

export type RunStatus = 'running' | 'completed' | 'failed';

export interface WorkflowRun {
  id: string;
  userId: string;
  agentId: string;
  revision: number;
  workflow: string;
  sessionId: string;
  status: RunStatus;
  currentNode: string | null;
  input: string | null;
  outputs: Record<string, unknown>;
  error: string | null;
  createdAt: Date;
  endedAt: Date | null;
}

interface RunRow {
  id: string;
  user_id: string;
  agent_id: string;
  revision: number;
  workflow: string;
  session_id: string;
  status: RunStatus;
  current_node: string | null;
  input: string | null;
  outputs: Record<string, unknown>;
  error: string | null;
  created_at: Date;
  ended_at: Date | null;
}

function toRun(row: RunRow): WorkflowRun {
  return {
    id: row.id,
    userId: row.user_id,
    agentId: row.agent_id,
    revision: row.revision,
    workflow: row.workflow,
    sessionId: row.session_id,
    status: row.status,
    currentNode: row.current_node,
    input: row.input,
    outputs: row.outputs,
    error: row.error,
    createdAt: row.created_at,
    endedAt: row.ended_at,
  };
}

/** Inserts the run; false when it existed already (a retried activity). */
export async function insertRun(
  client: DbClient,
  run: { id: string; userId: string; agentId: string; revision: number; workflow: string; sessionId: string; input: string | null },
): Promise<boolean> {
  const { rowCount } = await client.query(
    `INSERT INTO workflow_runs (id, user_id, agent_id, revision, workflow, session_id, input)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
    [run.id, run.userId, run.agentId, run.revision, run.workflow, run.sessionId, run.input],
  );
  return rowCount === 1;
}

export async function getRun(db: Db | DbClient, id: string): Promise<WorkflowRun | undefined> {
  const { rows } = await db.query<RunRow>('SELECT * FROM workflow_runs WHERE id = $1', [id]);
  return rows[0] && toRun(rows[0]);
}

/** The run driving this session, if one is still running: its session takes no other sends meanwhile. */
export async function runningRunOfSession(db: Db, sessionId: string): Promise<WorkflowRun | undefined> {
  const { rows } = await db.query<RunRow>(`SELECT * FROM workflow_runs WHERE session_id = $1 AND status = 'running' LIMIT 1`, [sessionId]);
  return rows[0] && toRun(rows[0]);
}

export async function setRunNode(client: DbClient, runId: string, nodeId: string, outputs: Record<string, unknown>): Promise<void> {
  await client.query(`UPDATE workflow_runs SET current_node = $2, outputs = $3 WHERE id = $1 AND status = 'running'`, [
    runId,
    nodeId,
    JSON.stringify(outputs),
  ]);
}

/** Ends the run once; false when it had ended already. */
export async function endRun(
  client: DbClient,
  runId: string,
  end: { status: 'completed' | 'failed'; outputs: Record<string, unknown>; error?: string },
): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE workflow_runs SET status = $2, outputs = $3, error = $4, ended_at = now() WHERE id = $1 AND status = 'running'`,
    [runId, end.status, JSON.stringify(end.outputs), end.error ?? null],
  );
  return rowCount === 1;
}

/** Ends the run with its closing event (`workflow.completed` or `workflow.failed`), and frees its session. */
export async function finishRun(
  db: Db,
  input: { runId: string; sessionId: string; status: 'completed' | 'failed'; outputs: Record<string, unknown>; error?: string },
): Promise<boolean> {
  return inTransaction(db, async (client) => {
    const ended = await endRun(client, input.runId, input);
    if (!ended) return false;
    await setSessionStatus(client, input.sessionId, 'idle');
    await appendEvents(client, input.sessionId, [
      input.status === 'completed'
        ? { type: 'workflow.completed', data: { runId: input.runId, outputs: input.outputs } }
        : { type: 'workflow.failed', data: { runId: input.runId, error: input.error ?? 'The run failed' } },
    ]);
    return true;
  });
}
