// Turns read as A2A tasks (api/a2a/): a task is a turn, named by the message that started it, in the
// session that is its context. Nothing is stored for A2A: the session's messages and events say it all.
import { TERMINAL_TURN_EVENTS } from '../contract/events.ts';
import type { Db } from './db.ts';
import type { SessionStatus } from './sessions.ts';

export type TurnState = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'aborted';

export interface TurnTask {
  /** The user message that started it: the task's id, and its messages' turn id. */
  taskId: string;
  /** The turn that runs (or ran) it: the message's own id, or a regeneration's (its events carry this one). */
  turnId: string;
  sessionId: string;
  userId: string;
  agentId: string;
  state: TurnState;
  /** The turn.failed's error. */
  error?: string;
  createdAt: Date;
}

interface TurnRow {
  task_id: string;
  turn_id: string | null;
  session_id: string;
  user_id: string;
  agent_id: string;
  status: SessionStatus;
  ended: string | null;
  error: string | null;
  created_at: Date;
}

/**
 * One user message's task, with what its session's events say of its latest turn (a regeneration runs a
 * turn of its own, whose turn.started names the message as `userMessageId`). $1: the terminal event types.
 */
const TURN_SELECT = `
  SELECT m.id AS task_id, t.turn_id, m.session_id, s.user_id, s.agent_id, s.status, m.created_at, e.ended, e.error
    FROM messages m JOIN sessions s ON s.id = m.session_id
    LEFT JOIN LATERAL (
      SELECT st.data->>'turnId' AS turn_id FROM events st
       WHERE st.session_id = m.session_id AND st.type = 'turn.started'
         AND coalesce(st.data->>'userMessageId', st.data->>'turnId') = m.id
       ORDER BY st.seq DESC LIMIT 1) t ON true
    LEFT JOIN LATERAL (
      SELECT en.type AS ended, en.data->>'error' AS error FROM events en
       WHERE en.session_id = m.session_id AND en.type = ANY($1) AND en.data->>'turnId' = t.turn_id
       ORDER BY en.seq DESC LIMIT 1) e ON true
   WHERE m.role = 'user' AND m.turn_id = m.id AND NOT m.reverted`;

function toTask(row: TurnRow): TurnTask {
  const state: TurnState =
    row.ended === 'turn.completed'
      ? 'completed'
      : row.ended === 'turn.failed'
        ? 'failed'
        : row.ended === 'turn.aborted'
          ? 'aborted'
          : row.turn_id === null
            ? 'queued'
            : row.status === 'waiting'
              ? 'waiting'
              : 'running';
  return {
    taskId: row.task_id,
    turnId: row.turn_id ?? row.task_id,
    sessionId: row.session_id,
    userId: row.user_id,
    agentId: row.agent_id,
    state,
    ...(row.error ? { error: row.error } : {}),
    createdAt: row.created_at,
  };
}

/** The task `taskId` (a user message's id) of this user and agent, or undefined. */
export async function turnTask(db: Db, owner: { userId: string; agentId: string }, taskId: string): Promise<TurnTask | undefined> {
  const { rows } = await db.query<TurnRow>(`${TURN_SELECT} AND m.id = $2 AND s.user_id = $3 AND s.agent_id = $4`, [
    TERMINAL_TURN_EVENTS,
    taskId,
    owner.userId,
    owner.agentId,
  ]);
  return rows[0] ? toTask(rows[0]) : undefined;
}

/** The agent's turns, newest first: of one session when `sessionId` is given; `before` is the last of the previous page. */
export async function listTurnTasks(
  db: Db,
  owner: { userId: string; agentId: string },
  options: { sessionId?: string; before?: string; limit: number },
): Promise<TurnTask[]> {
  const { rows } = await db.query<TurnRow>(
    `${TURN_SELECT} AND s.user_id = $2 AND s.agent_id = $3 AND ($4::text IS NULL OR m.session_id = $4)
       AND ($5::text IS NULL OR (m.created_at, m.id) < (SELECT created_at, id FROM messages WHERE id = $5))
     ORDER BY m.created_at DESC, m.id DESC LIMIT $6`,
    [TERMINAL_TURN_EVENTS, owner.userId, owner.agentId, options.sessionId ?? null, options.before ?? null, options.limit],
  );
  return rows.map(toTask);
}

/** How many tasks the agent (or one of its sessions) has: ListTasks' totalSize. */
export async function countTurnTasks(db: Db, owner: { userId: string; agentId: string }, sessionId: string | undefined): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE m.role = 'user' AND m.turn_id = m.id AND NOT m.reverted AND s.user_id = $1 AND s.agent_id = $2
        AND ($3::text IS NULL OR m.session_id = $3)`,
    [owner.userId, owner.agentId, sessionId ?? null],
  );
  return rows[0]!.count;
}
