// Publishing webhook events from workflow code: an activity records one delivery per matching
// subscription (in one transaction), then this workflow starts each delivery as an abandoned child
// `delivery:<id>`. The ids come from the activity's recorded result, and a workflow id is never
// reused, so a replay, a retried activity or a reset never delivers an event twice.
import {
  ApplicationFailure,
  ChildWorkflowFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  log,
  deprecatePatch,
  proxyLocalActivities,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities/index.ts';
import type { PublishedEvent } from '../contract/webhook-events.ts';
import { FAILURE } from '../lib/workflow-safe/failures.ts';
import { deliveryWorkflow } from './delivery.ts';
import type { SessionRef, TurnOutcome } from '../core/turn-types.ts';
import { deliveryWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';
import { PATCHES_OF_0_1_0 } from './release-patches.ts';

const { publishWebhookEvent } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 10 } });

/** Records the deliveries of one event and starts them. `eventKey` names the event once (see the activity). */
export async function publishEvent(userId: string, event: PublishedEvent, eventKey: string): Promise<void> {
  const { deliveries, settings } = await publishWebhookEvent({ userId, type: event.type, data: event.data, eventKey });
  for (const delivery of deliveries) {
    try {
      await startChild(deliveryWorkflow, {
        workflowId: deliveryWorkflowId(delivery.id),
        args: [{ deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, type: event.type, settings }],
        // A delivery outlives the session workflow that published it (which ends when idle).
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: searchAttributes('delivery', { userId }),
        ...readableMetadata({
          summary: `Webhook ${event.type} delivery ${delivery.id}`,
          details: `Subscription ${delivery.subscriptionId}. Attempts: GET /webhook/${delivery.subscriptionId}/deliveries`,
        }),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}

/** How a turn ended, as the session workflow saw it. */
export type TurnEnd = { outcome: TurnOutcome } | { error: unknown };

/**
 * After each turn: `session.completed` when it completed and no turn is queued, `session.failed`
 * when it failed; nothing for an aborted turn. Never fails the session: a problem is logged.
 */
export async function publishTurnEnd(session: SessionRef, turnId: string, ended: TurnEnd, idle: boolean): Promise<void> {
  const base = { sessionId: session.sessionId, agentId: session.agentId, revision: session.revision, turnId };
  try {
    if ('outcome' in ended && ended.outcome.status === 'completed' && idle) {
      // With no subscription to it when the turn completed there is no delivery to record: no local
      // activity (a trip through the worker, a query and a marker in history per turn).
      if (ended.outcome.completionUnsubscribed) {
        deprecatePatch(PATCHES_OF_0_1_0.unsubscribedCompletion);
        return;
      }
      const { usage, costUsd } = ended.outcome;
      await publishEvent(
        session.userId,
        { type: 'session.completed', data: { ...base, status: 'completed', usage, costUsd } },
        `session.completed:${turnId}`,
      );
    } else if ('error' in ended && turnFailureMessage(ended.error) !== undefined) {
      const error = turnFailureMessage(ended.error)!;
      await publishEvent(
        session.userId,
        { type: 'session.failed', data: { ...base, status: 'failed', error } },
        `session.failed:${turnId}`,
      );
    }
  } catch (error) {
    log.error('could not publish webhook event', { sessionId: session.sessionId, turnId, error: String(error) });
  }
}

/**
 * A turn fails with `TurnFailed` (see workflows/turn.ts): its child workflow's failure, or the failure
 * itself when the turn ran in the session workflow. An abort is a cancellation. Its message, or none.
 */
function turnFailureMessage(error: unknown): string | undefined {
  const failure = error instanceof ChildWorkflowFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === FAILURE.turnFailed ? failure.message : undefined;
}
