// Waking a session's workflow for the sends the API took (store/session-inbox.ts). The send is taken
// once PostgreSQL has it; the wake-up is a Signal-with-Start the engine takes with no worker running,
// sent after the answer (api/hand-offs.ts); one that never arrived is sent again by the sweep below.
import { wakeSessionWithStart, type SessionTarget } from '../../clients/session.ts';
import { sessionsWithUntakenSends } from '../../store/session-inbox.ts';
import type { ApiDeps } from '../context.ts';
import { callTemporal } from '../temporal-call.ts';
import { sessionClient } from './workflows.ts';

/** Sessions woken per sweep: the rest wait for the next one. */
const SWEEP_BATCH = 200;

type WakeDeps = Pick<ApiDeps, 'temporal' | 'config' | 'logger'>;

function wake(deps: WakeDeps, session: SessionTarget, messageId: string): Promise<void> {
  return wakeSessionWithStart(sessionClient(deps), session, messageId);
}

/** Wakes the session's workflow soon (api/hand-offs.ts): the send is answered without waiting for it. */
export function wakeSession(deps: WakeDeps & Pick<ApiDeps, 'handOffs'>, session: SessionTarget, messageId: string): void {
  deps.handOffs.submit(`session:${session.id}`, () => wake(deps, session, messageId), {
    log: { sessionId: session.id, messageId },
    sweep: 'the send sweep',
  });
}

/** Wakes the workflows of sessions whose sends no workflow has read for `olderThanMs` (`userId`: only that user's). */
export async function sweepUntakenSends(deps: WakeDeps & Pick<ApiDeps, 'db'>, olderThanMs: number, userId?: string): Promise<number> {
  const sessions = await sessionsWithUntakenSends(deps.db, olderThanMs, SWEEP_BATCH, userId);
  for (const session of sessions) {
    const target = { id: session.sessionId, userId: session.userId, agentId: session.agentId, revision: session.revision };
    await callTemporal(deps, () => wake(deps, target, 'sweep'));
  }
  return sessions.length;
}
