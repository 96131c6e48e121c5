// What a session's running turn waits on, as GET /session/<id> (and an agent's MCP get_session) says it:
// its step's calls of custom tools the client runs, or sessions of agents it called (at any depth) that
// wait on someone. A step's client calls are readable (and answerable) a moment before the turn marks
// its session waiting: a session with such calls awaited is waiting on them already.
import type { Session } from '../../store/sessions.ts';
import { awaitedClientToolCalls, awaitedView } from '../../store/tool-calls.ts';
import type { ApiDeps } from '../context.ts';
import { waitingDescendants } from './child-sessions.ts';

export async function sessionWaitingFor(deps: Pick<ApiDeps, 'db'>, session: Session) {
  if (session.status === 'idle') return {};
  const awaited = await awaitedClientToolCalls(deps.db, session.id);
  if (awaited.length > 0) {
    return { status: 'waiting' as const, waitingFor: { kind: 'tool' as const, toolCalls: awaited.map(awaitedView) } };
  }
  const throughChildren = await waitingDescendants(deps.db, session.userId, session.id);
  return throughChildren ? { waitingFor: throughChildren } : {};
}
