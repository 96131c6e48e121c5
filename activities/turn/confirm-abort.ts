// A model step told of its turn's abort by a notice (abort-notices.ts) ends as cancelled as soon as
// Temporal has the cancellation: it asks the server itself, with heartbeats of its own (50 ms apart,
// then further apart), rather than wait for the worker's next throttled heartbeat, seconds away. Once
// the server says the cancellation was requested, the step reports it and leaves the activity to that
// report, as an activity completed from outside is; the turn workflow then sees what a cancelled step
// always gave it. The notice is sent by the turn workflow as it requests the cancellation, so the
// request is on its way even when it is slow to come (a workflow task retried on another worker): the
// step waits for it, for as long as its own heartbeats keep it alive, rather than fail and be run
// again, which would call the model anew for a turn its user aborted.
import { CompleteAsyncError, type Context } from '@temporalio/activity';
import { ActivityCancelledError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';

/** The cancellation's details in the turn's history: an operator sees that the notice brought it. */
export const CANCELLED_ON_NOTICE = "cancelled on its turn's abort notice";

const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 1_000;

export async function endAsAborted(context: Context): Promise<never> {
  for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(MAX_POLL_MS, pollMs * 2)) {
    // The worker's own heartbeat brought the cancellation meanwhile.
    if (context.cancellationSignal.aborted) throw new CancelledFailure('The turn was aborted');
    if (await reportedCancelled(context)) throw new CompleteAsyncError();
    // Throws CancelledFailure if the worker's heartbeat brings the cancellation during the wait.
    await context.sleep(pollMs);
  }
}

/**
 * Whether the server has the cancellation, and now has the step's report of it too. A call that fails
 * otherwise (the server out of reach a moment, the activity paused or gone) answers false: the worker's
 * own heartbeat settles those, and meanwhile the step asks again.
 */
async function reportedCancelled(context: Context): Promise<boolean> {
  try {
    await context.client.activity.heartbeat(context.info.taskToken);
    return false;
  } catch (error) {
    if (!(error instanceof ActivityCancelledError)) {
      context.log.warn('could not ask Temporal whether the aborted step is cancelled', { error: String(error) });
      return false;
    }
  }
  try {
    await context.client.activity.reportCancellation(context.info.taskToken, CANCELLED_ON_NOTICE);
    return true;
  } catch (error) {
    context.log.warn('could not report the aborted step cancelled', { error: String(error) });
    return false;
  }
}
