// Turns read as A2A tasks (api/a2a/): a task is a turn, named by the message that started it, in the
// session that is its context. Nothing is stored for A2A: the session's messages and events say it all.
import { TERMINAL_TURN_EVENTS } from '../contract/events.ts';
import type { Db } from './db.ts';
import type { SessionStatus } from './sessions.ts';

export type TurnState = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'aborted';

export interface TurnTask {
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
  turn_id: string;
  session_id: string;
  user_id: string;
  agent_id: string;
  status: SessionStatus;
  ended: string | null;
  error: string | null;
  started: boolean;
  created_at: Date;
}

/** One user message's turn, with what its session's events say of it ($1: the terminal event types). */
const TURN_SELECT = `
  SELECT m.id AS turn_id, m.session_id, s.user_id, s.agent_id, s.status, m.created_at,
         (SELECT e.type FROM events e WHERE e.session_id = m.session_id AND e.type = ANY($1)
             AND e.data->>'turnId' = m.id ORDER BY e.seq DESC LIMIT 1) AS ended,
         (SELECT e.data->>'error' FROM events e WHERE e.session_id = m.session_id AND e.type = 'turn.failed'
             AND e.data->>'turnId' = m.id LIMIT 1) AS error,
         EXISTS (SELECT 1 FROM events e WHERE e.session_id = m.session_id AND e.type = 'turn.started'
             AND e.data->>'turnId' = m.id) AS started
    FROM messages m JOIN sessions s ON s.id = m.session_id
   WHERE m.role = 'user' AND m.turn_id = m.id AND NOT m.reverted`;

function toTask(row: TurnRow): TurnTask {
  const state: TurnState =
    row.ended === 'turn.completed'
      ? 'completed'
      : row.ended === 'turn.failed'
        ? 'failed'
        : row.ended === 'turn.aborted'
          ? 'aborted'
          : !row.started
            ? 'queued'
            : row.status === 'waiting'
              ? 'waiting'
              : 'running';
  return {
    turnId: row.turn_id,
    sessionId: row.session_id,
    userId: row.user_id,
    agentId: row.agent_id,
    state,
    ...(row.error ? { error: row.error } : {}),
    createdAt: row.created_at,
  };
}

/** The turn `turnId` (a user message's id) of this user and agent, or undefined. */
export async function turnTask(db: Db, owner: { userId: string; agentId: string }, turnId: string): Promise<TurnTask | undefined> {
  const { rows } = await db.query<TurnRow>(`${TURN_SELECT} AND m.id = $2 AND s.user_id = $3 AND s.agent_id = $4`, [
    TERMINAL_TURN_EVENTS,
    turnId,
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
