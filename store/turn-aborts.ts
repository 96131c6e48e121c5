// A turn's abort, told to the workers at once: the cancelled turn workflow NOTIFYs `<sessionId>:<turnId>`
// on this channel (a local activity), and the worker running that turn's model step stops the model
// call then (activities/turn/abort-notices.ts). Temporal carries the same cancellation to the step with
// its next heartbeat: the notice only makes it sooner, so one that is lost costs time, not the abort.
import type { Db } from './db.ts';

export const TURN_ABORTS_CHANNEL = 'turn_aborts';

export async function announceTurnAbort(db: Db, sessionId: string, turnId: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [TURN_ABORTS_CHANNEL, `${sessionId}:${turnId}`]);
}
