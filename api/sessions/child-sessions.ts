// A session's children, as GET /session/<id> shows them (docs/tools.md, "Calling other agents"): the
// sessions its agent's calls (and its subtasks) opened; and the sessions down its chains of calls that
// wait on someone, with on what, so a client sees which of them holds the caller's turn and how to answer it.
import type { Db } from '../../store/db.ts';
import { listApprovals } from '../../store/approvals.ts';
import { awaitedClientToolCalls, awaitedView } from '../../store/tool-calls.ts';

/** Children listed per session, oldest first; the rest are found with the events' `childSessionId`. */
const CHILDREN_SHOWN = 100;
/** Open questions shown per waiting child. */
const QUESTIONS_SHOWN = 10;

export interface ChildSessionView {
  id: string;
  agentId: string;
  agent: string;
  status: 'idle' | 'running' | 'waiting';
  parentToolCallId: string | null;
  createdAt: Date;
}

export async function childSessionsOf(db: Db, userId: string, sessionId: string): Promise<ChildSessionView[]> {
  const { rows } = await db.query<{
    id: string;
    agent_id: string;
    name: string;
    status: ChildSessionView['status'];
    parent_tool_call_id: string | null;
    created_at: Date;
  }>(
    `SELECT s.id, s.agent_id, a.name, s.status, s.parent_tool_call_id, s.created_at
       FROM sessions s JOIN agents a ON a.id = s.agent_id
      WHERE s.parent_session_id = $1 AND s.user_id = $2
      ORDER BY s.created_at, s.id LIMIT $3`,
    [sessionId, userId, CHILDREN_SHOWN],
  );
  return rows.map((row) => ({
    id: row.id,
    agentId: row.agent_id,
    agent: row.name,
    status: row.status,
    parentToolCallId: row.parent_tool_call_id,
    createdAt: row.created_at,
  }));
}

/** Levels of calls searched below a session: more than AGENT_CALL_DEPTH_LIMIT allows, a guard against bad data. */
const MAX_LEVELS = 16;

/**
 * What the caller's turn waits on through the agents it called: each session down its chains of calls
 * (a child, a child's child) that waits on someone, with its open questions and its awaited client
 * calls; undefined when none waits. Only children still running are looked into: an idle child holds
 * nobody.
 */
export async function waitingDescendants(db: Db, userId: string, sessionId: string) {
  const { rows } = await db.query<{ id: string; name: string; parent_session_id: string; parent_tool_call_id: string }>(
    `WITH RECURSIVE chain AS (
       SELECT id, agent_id, status, parent_session_id, parent_tool_call_id, 1 AS level
         FROM sessions WHERE parent_session_id = $1 AND parent_tool_call_id IS NOT NULL AND user_id = $2 AND status <> 'idle'
       UNION ALL
       SELECT s.id, s.agent_id, s.status, s.parent_session_id, s.parent_tool_call_id, chain.level + 1
         FROM sessions s JOIN chain ON s.parent_session_id = chain.id
        WHERE s.parent_tool_call_id IS NOT NULL AND s.status <> 'idle' AND chain.level < $3 AND s.user_id = $2
     )
     SELECT chain.id, a.name, chain.parent_session_id, chain.parent_tool_call_id
       FROM chain JOIN agents a ON a.id = chain.agent_id
      WHERE chain.status = 'waiting'
      ORDER BY chain.level, chain.id LIMIT $4`,
    [sessionId, userId, MAX_LEVELS, CHILDREN_SHOWN],
  );
  if (rows.length === 0) return undefined;
  const sessions = await Promise.all(
    rows.map(async (row) => {
      const [questions, calls] = await Promise.all([
        listApprovals(db, userId, { status: 'unanswered', sessionId: row.id, limit: QUESTIONS_SHOWN }),
        awaitedClientToolCalls(db, row.id),
      ]);
      return {
        sessionId: row.id,
        agent: row.name,
        parentSessionId: row.parent_session_id,
        toolCallId: row.parent_tool_call_id,
        approvals: questions.approvals.map(({ id, question, options, expiresAt, connectServer }) => ({
          approvalId: id,
          question,
          options,
          expiresAt,
          // A sign-in asked for: answered by signing in to that server, not by a choice.
          ...(connectServer ? { server: connectServer } : {}),
        })),
        toolCalls: calls.map(awaitedView),
      };
    }),
  );
  return { kind: 'agents' as const, sessions };
}
