// Who may name a session: its owner. An unknown id is 404; another user's session is 403: a
// session id is global and naming another user's is forbidden, unlike an agent name, which is
// private per user (another user's agent of that name is simply not found).
import type { Db } from '../../store/db.ts';
import type { Principal } from '../../store/api-keys.ts';
import { getSession, getSessionWithState, type Session, type SessionWithState } from '../../store/sessions.ts';
import { ConflictError, DependencyUnavailableError, ForbiddenError, GoneError, NotFoundError } from '../../lib/workflow-safe/errors.ts';
import { finishRun, runningRunOfSession } from '../../store/workflow-runs.ts';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ApiDeps } from '../context.ts';
import { callTemporal } from '../temporal-call.ts';
import { graphRunWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';

export async function loadOwnedSession(db: Db, principal: Principal | undefined, id: string): Promise<Session> {
  return owned(await getSession(db, id), principal, id);
}

function owned(session: Session | undefined, principal: Principal | undefined, id: string): Session {
  if (!session) throw new NotFoundError(`There is no session "${id}"`);
  if (session.userId !== principal?.userId) throw new ForbiddenError('This session belongs to another user');
  return session;
}

/** A session that may still change: its owner's, and its agent not deleted (410: readable only). */
export async function loadWritableSession(db: Db, principal: Principal | undefined, id: string): Promise<Session> {
  return (await loadWritable(db, principal, id)).session;
}

async function loadWritable(db: Db, principal: Principal | undefined, id: string): Promise<SessionWithState> {
  const found = await getSessionWithState(db, id);
  const session = owned(found?.session, principal, id);
  if (found?.agentDeleted) {
    throw new GoneError('The agent of this session was deleted; the session can be read but not changed');
  }
  return { session, agentDeleted: false, runRunning: found?.runRunning ?? false };
}

const RUN_START_GRACE_MS = 60_000;

/**
 * A session that takes sends, reverts and regenerations: writable, and not driven by a running
 * workflow run. A run recorded as running whose workflow is gone (terminated by an operator, say)
 * is closed here as failed, so its session is not held forever.
 */
export async function loadSendableSession(
  deps: Pick<ApiDeps, 'db' | 'temporal' | 'config' | 'logger'>,
  principal: Principal | undefined,
  id: string,
): Promise<Session> {
  const { session, runRunning } = await loadWritable(deps.db, principal, id);
  const run = runRunning ? await runningRunOfSession(deps.db, session.id) : undefined;
  if (!run) return session;
  let state: string | undefined;
  try {
    state = (await callTemporal(deps, () => deps.temporal.client.workflow.getHandle(graphRunWorkflowId(run.id)).describe())).status.name;
  } catch (error) {
    if (error instanceof DependencyUnavailableError) throw error;
    if (!(error instanceof WorkflowNotFoundError))
      throw new ConflictError(`Workflow run ${run.id} drives this session until it ends (GET /run/${run.id})`);
    state = 'NOT_FOUND';
  }
  // A run is recorded a moment before its workflow starts: not finding it yet is not a stopped run.
  const starting = state === 'NOT_FOUND' && Date.now() - run.createdAt.getTime() < RUN_START_GRACE_MS;
  if (state === 'RUNNING' || starting)
    throw new ConflictError(`Workflow run ${run.id} drives this session until it ends (GET /run/${run.id})`);
  await finishRun(deps.db, {
    runId: run.id,
    sessionId: session.id,
    status: 'failed',
    outputs: run.outputs,
    error: `The run stopped (${state})`,
  });
  return session;
}
