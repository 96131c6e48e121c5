// A model step told of its turn's abort by a notice (abort-notices.ts) ends as cancelled as soon as
// Temporal has the cancellation: it asks the server itself, with a heartbeat of its own every
// CONFIRM_POLL_MS, rather than wait for the worker's next throttled heartbeat (seconds away). Once the
// server says the cancellation was requested, the step reports it and leaves the activity to that
// report, as an activity completed from outside is; the turn workflow then sees what a cancelled step
// always gave it. The notice is sent by the turn workflow as it requests the cancellation, so the
// request is on its way; one that does not come in CONFIRM_MS (it cannot be told apart from a lost
// one) fails the attempt, to be retried.
import { CompleteAsyncError, type Context } from '@temporalio/activity';
import { ActivityCancelledError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { FAILURE } from '../../lib/failures.ts';

const CONFIRM_POLL_MS = 50;
const CONFIRM_MS = 10_000;

export async function endAsAborted(context: Context): Promise<never> {
  const deadline = Date.now() + CONFIRM_MS;
  for (;;) {
    // The worker's own heartbeat brought the cancellation meanwhile.
    if (context.cancellationSignal.aborted) throw new CancelledFailure('The turn was aborted');
    try {
      await context.client.activity.heartbeat(context.info.taskToken);
    } catch (error) {
      if (!(error instanceof ActivityCancelledError)) throw error;
      await context.client.activity.reportCancellation(context.info.taskToken);
      throw new CompleteAsyncError();
    }
    if (Date.now() >= deadline) {
      throw ApplicationFailure.retryable('An abort was announced but Temporal did not cancel the step', FAILURE.modelTransient);
    }
    await context.sleep(CONFIRM_POLL_MS);
  }
}
