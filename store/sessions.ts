// Sessions: one conversation with one agent revision. The row also carries the event counter
// (last_seq) and the usage totals of its assistant messages.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { newId } from '../lib/ids.ts';
import { EVENTS_CHANNEL } from './event-channel.ts';

export type SessionStatus = 'idle' | 'running' | 'waiting';

export interface Session {
  id: string;
  userId: string;
  agentId: string;
  revision: number;
  status: SessionStatus;
  lastSeq: number;
  /** Running totals; the cache counts are part of the input (what the provider's prompt cache served). */
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; costUsd: number };
  forkedFrom: string | null;
  /** A subtask's session: the session its command was called from (its reply goes back there). */
  parentSessionId: string | null;
  /** A child session another agent's tool call opened: that call (its parent is `parentSessionId`). */
  parentToolCallId: string | null;
  /** How deep in a chain of agent calls this session is: 0 for one a person or trigger opened. */
  callDepth: number;
  /** The agents up its chain of calls, whose budgets its model calls count against too (store/budgets.ts). */
  callerAgentIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

interface SessionRow {
  id: string;
  user_id: string;
  agent_id: string;
  revision: number;
  status: SessionStatus;
  last_seq: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: string;
  cache_write_tokens: string;
  cost_usd: string;
  forked_from: string | null;
  parent_session_id: string | null;
  parent_tool_call_id: string | null;
  call_depth: number;
  caller_agent_ids?: string[];
  created_at: Date;
  updated_at: Date;
}

function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    userId: row.user_id,
    agentId: row.agent_id,
    revision: row.revision,
    status: row.status,
    lastSeq: row.last_seq,
    usage: {
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      cacheReadTokens: Number(row.cache_read_tokens),
      cacheWriteTokens: Number(row.cache_write_tokens),
      costUsd: Number(row.cost_usd),
    },
    forkedFrom: row.forked_from,
    parentSessionId: row.parent_session_id,
    parentToolCallId: row.parent_tool_call_id ?? null,
    callDepth: row.call_depth ?? 0,
    callerAgentIds: row.caller_agent_ids ?? [],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The agent call that opens a child session (docs/tools.md, "Calling other agents"). */
export interface ParentCall {
  toolCallId: string;
  /** The child's depth in the chain of calls: its parent's plus one. */
  depth: number;
  /** The agents up the child's chain of calls: its parent's, and the parent's own agent. */
  callerAgentIds: string[];
}

/** Creates a session pinned to the agent's revision, with its `session.created` event (seq 1). */
export async function createSession(
  db: Db,
  input: { userId: string; agentId: string; revision: number; parentSessionId?: string; id?: string },
): Promise<Session> {
  return insertSession(db, input);
}

/**
 * The session with this id, created as `createSession` does if it does not exist yet: a request
 * retried under its Idempotency-Key opens the session it chose the first time, once.
 */
export async function openSessionOnce(
  db: Db,
  input: { id: string; userId: string; agentId: string; revision: number; parentSessionId?: string; parentCall?: ParentCall },
): Promise<Session> {
  return inTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [input.id]);
    return (await getSession(client, input.id)) ?? insertSession(client, input);
  });
}

/**
 * Inserts a session and its `session.created` event (naming its origin when it is a fork), and announces
 * the event, in one statement: alone it needs no transaction of its own (it was four round trips: BEGIN,
 * the INSERT, the append, COMMIT), and in a caller's transaction it commits with the rest. A new session's
 * first event is seq 1, so the row is written with `last_seq` 1 rather than updated by an append; the
 * events' foreign key is checked at the statement's end, when the session row is there.
 */
export async function insertSession(
  db: Db | DbClient,
  input: {
    userId: string;
    agentId: string;
    revision: number;
    forkedFrom?: string;
    parentSessionId?: string;
    parentCall?: ParentCall;
    id?: string;
  },
): Promise<Session> {
  const data = {
    agentId: input.agentId,
    revision: input.revision,
    ...(input.forkedFrom ? { forkedFrom: input.forkedFrom } : {}),
    ...(input.parentSessionId ? { parentSessionId: input.parentSessionId } : {}),
    ...(input.parentCall ? { parentToolCallId: input.parentCall.toolCallId } : {}),
  };
  // `announced` makes the NOTIFY run: PostgreSQL skips a SELECT in WITH that nothing reads.
  const { rows } = await db.query<SessionRow & { announced: unknown }>(
    `WITH session AS (
       INSERT INTO sessions (id, user_id, agent_id, revision, forked_from, parent_session_id, parent_tool_call_id, call_depth,
                             caller_agent_ids, last_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $9, $10, $11, 1) RETURNING *
     ), inserted AS (
       INSERT INTO events (session_id, seq, type, data) SELECT id, 1, 'session.created', $7::jsonb FROM session RETURNING *
     ), notice AS (
       SELECT announce_session_events($8, i.session_id, i.seq, json_build_array(json_build_array(i.seq, i.type, i.data))) FROM inserted i
     )
     SELECT session.*, (SELECT count(*) FROM notice) AS announced FROM session`,
    [
      input.id ?? newId('ses'),
      input.userId,
      input.agentId,
      input.revision,
      input.forkedFrom ?? null,
      input.parentSessionId ?? null,
      JSON.stringify(data),
      EVENTS_CHANNEL,
      input.parentCall?.toolCallId ?? null,
      input.parentCall?.depth ?? 0,
      input.parentCall?.callerAgentIds ?? [],
    ],
  );
  const { announced: _announced, ...session } = rows[0]!;
  return toSession(session);
}

export async function getSession(db: Db | DbClient, sessionId: string): Promise<Session | undefined> {
  const { rows } = await db.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [sessionId]);
  return rows[0] && toSession(rows[0]);
}

/** A session with what decides whether it takes changes: its agent deleted, a workflow run driving it. */
export interface SessionWithState {
  session: Session;
  agentDeleted: boolean;
  runRunning: boolean;
}

/** getSession and the state a send checks, in one query (a send made three). */
export async function getSessionWithState(db: Db | DbClient, sessionId: string): Promise<SessionWithState | undefined> {
  const { rows } = await db.query<SessionRow & { agent_deleted: boolean | null; run_running: boolean }>(
    `SELECT s.*,
            (SELECT a.deleted_at IS NOT NULL FROM agents a WHERE a.id = s.agent_id) AS agent_deleted,
            EXISTS (SELECT 1 FROM workflow_runs r WHERE r.session_id = s.id AND r.status = 'running') AS run_running
       FROM sessions s WHERE s.id = $1`,
    [sessionId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { agent_deleted: agentDeleted, run_running: runRunning, ...session } = row;
  // An agent row that is gone counts as deleted.
  return { session: toSession(session), agentDeleted: agentDeleted ?? true, runRunning };
}

/**
 * An agent's sessions, newest first. `before` is the id of the last session of the previous page:
 * the page continues strictly after it in (created_at, id) order, so equal timestamps never make a
 * session appear twice or not at all.
 */
export async function listAgentSessions(db: Db, agentId: string, options: { limit: number; before?: string }): Promise<Session[]> {
  const { rows } = await db.query<SessionRow>(
    `SELECT * FROM sessions s
      WHERE s.agent_id = $1
        -- An eval's cases are its run's (GET /evals/<id>), not conversations of the agent's users.
        AND NOT EXISTS (SELECT 1 FROM eval_sessions e WHERE e.session_id = s.id)
        AND ($2::text IS NULL OR (s.created_at, s.id) < (SELECT created_at, id FROM sessions WHERE id = $2 AND agent_id = $1))
      ORDER BY s.created_at DESC, s.id DESC LIMIT $3`,
    [agentId, options.before ?? null, options.limit],
  );
  return rows.map(toSession);
}

/**
 * The status a session is set to: `idle` reads `running` while sends the API took wait in its inbox
 * (store/session-inbox.ts), so a session with work never reads idle. `$1` is the session, `$2` the status.
 */
const STATUS_UNLESS_SENDS_WAIT = `CASE WHEN $2::text = 'idle' AND EXISTS (SELECT 1 FROM session_inbox WHERE session_id = $1)
                                   THEN 'running' ELSE $2::text END`;

export async function setSessionStatus(client: Db | DbClient, sessionId: string, status: SessionStatus): Promise<void> {
  await client.query(`UPDATE sessions SET status = ${STATUS_UNLESS_SENDS_WAIT}, updated_at = now() WHERE id = $1`, [sessionId, status]);
}

/**
 * Moves a session to `to` if its status is one of `from` and, with `whileLatestTurn`, only while that
 * turn is the session's latest (by its `turn.started`); otherwise leaves it as it is.
 */
export async function moveSessionStatus(
  client: DbClient,
  sessionId: string,
  move: { to: SessionStatus; from: readonly SessionStatus[]; whileLatestTurn?: string },
): Promise<void> {
  await client.query(
    `UPDATE sessions SET status = ${STATUS_UNLESS_SENDS_WAIT}, updated_at = now()
      WHERE id = $1 AND status = ANY($3)
        AND ($4::text IS NULL OR $4 = (SELECT data->>'turnId' FROM events WHERE session_id = $1 AND type = 'turn.started' ORDER BY seq DESC LIMIT 1))`,
    [sessionId, move.to, move.from, move.whileLatestTurn ?? null],
  );
}
