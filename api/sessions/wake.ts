// Waking a session's workflow for the sends the API took (store/session-inbox.ts). The send is taken
// once PostgreSQL has it; the wake-up is a Signal-with-Start the engine takes with no worker running.
// The answer waits for it only briefly: an engine slow to answer, or down, delays the turn, not the
// answer, and a wake-up that never arrived is sent again by the sweep below.
import { wakeSessionWithStart, type SessionTarget } from '../../clients/session.ts';
import { sessionsWithUntakenSends } from '../../store/session-inbox.ts';
import type { ApiDeps } from '../context.ts';
import { callTemporal } from '../temporal-call.ts';
import { sessionClient } from './workflows.ts';

/** How long a send's answer waits for the engine to take its wake-up before answering anyway. */
const WAKE_WAIT_MS = 1_000;
/** Sessions woken per sweep: the rest wait for the next one. */
const SWEEP_BATCH = 200;

type WakeDeps = Pick<ApiDeps, 'temporal' | 'config' | 'logger'>;

function wake(deps: WakeDeps, session: SessionTarget, messageId: string): Promise<void> {
  return callTemporal(deps, () => wakeSessionWithStart(sessionClient(deps), session, messageId));
}

/** Wakes the session's workflow; resolves once the engine took it or after WAKE_WAIT_MS, and never rejects. */
export async function wakeSession(deps: WakeDeps, session: SessionTarget, messageId: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const sent = wake(deps, session, messageId).catch((error: unknown) => {
    deps.logger.warn({ err: error, sessionId: session.id, messageId }, 'could not wake the session workflow; the send sweep tries again');
  });
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, WAKE_WAIT_MS)));
  await Promise.race([sent, waited]);
  clearTimeout(timer);
}

/** Wakes the workflows of sessions whose sends no workflow has read for `olderThanMs`. */
export async function sweepUntakenSends(deps: WakeDeps & Pick<ApiDeps, 'db'>, olderThanMs: number): Promise<number> {
  const sessions = await sessionsWithUntakenSends(deps.db, olderThanMs, SWEEP_BATCH);
  for (const session of sessions) {
    await wake(deps, { id: session.sessionId, userId: session.userId, agentId: session.agentId, revision: session.revision }, 'sweep');
  }
  return sessions.length;
}
