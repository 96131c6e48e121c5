// What a session's running turn waits on, as GET /session/<id> (and an agent's MCP get_session, A2A's
// tasks) says it: its step's calls of custom tools the client runs, its own open questions (approvals,
// and sign-ins to MCP servers), or sessions of agents it called (at any depth) that wait on someone. A
// step's client calls are readable (and answerable) a moment before the turn marks its session waiting:
// a session with such calls awaited is waiting on them already.
import type { Session } from '../../store/sessions.ts';
import { awaitedClientToolCalls, awaitedView } from '../../store/tool-calls.ts';
import type { ApiDeps } from '../context.ts';
import { waitingDescendants } from './child-sessions.ts';
import { listApprovals } from '../../store/approvals.ts';

export async function sessionWaitingFor(deps: Pick<ApiDeps, 'db'>, session: Session) {
  if (session.status === 'idle') return {};
  const awaited = await awaitedClientToolCalls(deps.db, session.id);
  if (awaited.length > 0) {
    return { status: 'waiting' as const, waitingFor: { kind: 'tool' as const, toolCalls: awaited.map(awaitedView) } };
  }
  // The running turn's own open questions (the newest; an approval asked through the API in no turn holds nothing).
  const { approvals } = await listApprovals(deps.db, session.userId, { status: 'unanswered', sessionId: session.id, limit: 5 });
  const question = approvals.find((approval) => approval.turnId !== null);
  if (question?.connectServer) {
    const { id: approvalId, connectServer: server, expiresAt } = question;
    return { waitingFor: { kind: 'connect' as const, approvalId, server, expiresAt: expiresAt.toISOString() } };
  }
  if (question) {
    const { id: approvalId, question: text, options, expiresAt } = question;
    return { waitingFor: { kind: 'approval' as const, approvalId, question: text, options, expiresAt: expiresAt.toISOString() } };
  }
  const throughChildren = await waitingDescendants(deps.db, session.userId, session.id);
  return throughChildren ? { waitingFor: throughChildren } : {};
}
