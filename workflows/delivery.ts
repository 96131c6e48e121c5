// One webhook delivery (`delivery:<deliveryId>`): one attempt per activity, a durable timer between
// attempts, so a delivery waiting hours for its next attempt costs nothing and survives any restart.
// The attempt activity is never retried by Temporal: the workflow owns the schedule, and an attempt
// that fails as an activity (its worker died mid-request) counts as a failed attempt.
import { log, proxyActivities, sleep } from '@temporalio/workflow';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import type { Activities } from '../activities/index.ts';
import type { AttemptOutcome, DeliveryInput, DeliveryResult } from '../core/delivery-types.ts';

export async function deliveryWorkflow(input: DeliveryInput): Promise<DeliveryResult> {
  const { settings } = input;
  const { attemptDelivery } = proxyActivities<Activities>({
    // Room beyond the request's own timeout for reading the target and recording the attempt.
    startToCloseTimeout: settings.attemptTimeoutMs + 30_000,
    retry: { maximumAttempts: 1 },
  });
  const { finishDelivery } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 10 } });

  const attempts = settings.retryScheduleMs.length + 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const final = attempt === attempts;
    let outcome: AttemptOutcome;
    try {
      outcome = await attemptDelivery({ deliveryId: input.deliveryId, attempt, final });
    } catch (error) {
      outcome = { result: 'retry', detail: error instanceof Error ? error.message : String(error) };
      if (final) await finishDelivery({ deliveryId: input.deliveryId, status: 'failed' });
    }
    if (outcome.result === 'delivered') return { status: 'delivered', attempts: attempt };
    if (outcome.result === 'cancelled') return { status: 'cancelled', attempts: attempt - 1 };
    if (outcome.result === 'gone') {
      throw nonRetryable(FAILURE.webhookGone, `The receiver answered 410 Gone; subscription ${input.subscriptionId} is disabled`);
    }
    log.info('delivery attempt failed', { deliveryId: input.deliveryId, attempt, detail: outcome.detail });
    if (!final) await sleep(settings.retryScheduleMs[attempt - 1]!);
  }
  // Failed, so operators find undelivered events with the Web UI's status filter.
  throw nonRetryable(FAILURE.webhookUndelivered, `No attempt of ${attempts} was answered with 2xx`);
}
