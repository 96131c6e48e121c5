// A session's children, as GET /session/<id> shows them (docs/tools.md, "Calling other agents"): the
// sessions its agent's calls (and its subtasks) opened, each with what it waits on when it waits on
// someone, so a client sees which child holds the caller's turn and how to answer it.
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

/**
 * What the caller's turn waits on through its children: each child of an agent call that waits on
 * someone, with its open questions and its awaited client calls; undefined when none waits.
 */
export async function waitingChildren(db: Db, userId: string, children: readonly ChildSessionView[]) {
  const waiting = children.filter((child) => child.parentToolCallId !== null && child.status === 'waiting');
  if (waiting.length === 0) return undefined;
  const sessions = await Promise.all(
    waiting.map(async (child) => {
      const [questions, calls] = await Promise.all([
        listApprovals(db, userId, { status: 'unanswered', sessionId: child.id, limit: QUESTIONS_SHOWN }),
        awaitedClientToolCalls(db, child.id),
      ]);
      return {
        sessionId: child.id,
        agent: child.agent,
        toolCallId: child.parentToolCallId!,
        approvals: questions.approvals.map(({ id, question, options, expiresAt }) => ({ approvalId: id, question, options, expiresAt })),
        toolCalls: calls.map(awaitedView),
      };
    }),
  );
  return { kind: 'agents' as const, sessions };
}
