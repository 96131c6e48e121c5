// Who may name a session: its owner. An unknown id is 404; another user's session is 403 (SPEC:
// naming another user's session is forbidden, unlike agent names, which are private per user).
import type { Db } from '../store/db.ts';
import type { Principal } from '../store/api-keys.ts';
import { getSession, type Session } from '../store/sessions.ts';
import { ConflictError, ForbiddenError, GoneError, NotFoundError } from '../lib/errors.ts';
import { isAgentDeleted } from '../store/agents.ts';
import { runningRunOfSession } from '../store/workflow-runs.ts';

export async function loadOwnedSession(db: Db, principal: Principal | undefined, id: string): Promise<Session> {
  const session = await getSession(db, id);
  if (!session) throw new NotFoundError(`There is no session "${id}"`);
  if (session.userId !== principal?.userId) throw new ForbiddenError('This session belongs to another user');
  return session;
}

/** A session that may still change: its owner's, and its agent not deleted (410: readable only). */
export async function loadWritableSession(db: Db, principal: Principal | undefined, id: string): Promise<Session> {
  const session = await loadOwnedSession(db, principal, id);
  if (await isAgentDeleted(db, session.agentId)) {
    throw new GoneError('The agent of this session was deleted; the session can be read but not changed');
  }
  return session;
}

/** A session that takes sends, reverts and regenerations: writable, and not driven by a running workflow run. */
export async function loadSendableSession(db: Db, principal: Principal | undefined, id: string): Promise<Session> {
  const session = await loadWritableSession(db, principal, id);
  const run = await runningRunOfSession(db, session.id);
  if (run) throw new ConflictError(`Workflow run ${run.id} drives this session until it ends (GET /run/${run.id})`);
  return session;
}
