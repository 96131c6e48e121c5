// Webhook events of changes the API makes itself (an agent's revisions: contract/webhook-events.ts,
// `agent.changed`). The change is committed first; its deliveries are then recorded (one per matching
// subscription, idempotent on the event key) and their workflows started. A process that dies between
// the two leaves deliveries recorded and not started: the housekeeping pass starts those
// (`startUnstartedDeliveries`), so an event is delivered late rather than lost. Failing to publish never
// fails the request: the change is made, and the log says what was not sent.
import type { ApiDeps } from '../context.ts';
import type { PublishedEvent } from '../../contract/webhook-events.ts';
import type { DeliverySettings } from '../../core/delivery-types.ts';
import { createDeliveries, unstartedDeliveries } from '../../store/webhook-deliveries.ts';
import { startDelivery } from '../../clients/delivery.ts';
import { callTemporal } from '../temporal-call.ts';

/** A recorded delivery its workflow has not taken after this long was never started. */
export const UNSTARTED_DELIVERY_MS = 2 * 60_000;

function deliverySettings(deps: Pick<ApiDeps, 'config'>): DeliverySettings {
  return { retryScheduleMs: deps.config.webhooks.retryScheduleMs, attemptTimeoutMs: deps.config.webhooks.attemptTimeoutMs };
}

export async function publishFromApi(deps: ApiDeps, userId: string, event: PublishedEvent, eventKey: string): Promise<void> {
  try {
    const deliveries = await createDeliveries(deps.db, { userId, type: event.type, data: event.data, eventKey });
    const settings = deliverySettings(deps);
    for (const delivery of deliveries) {
      await callTemporal(deps, () =>
        startDelivery(deps.temporal.client, deps.config.taskQueue, userId, {
          deliveryId: delivery.id,
          subscriptionId: delivery.subscriptionId,
          type: event.type,
          settings,
        }),
      );
    }
  } catch (error) {
    deps.logger.warn(
      { err: error, eventKey, type: event.type },
      'could not publish the webhook event now; housekeeping starts its deliveries later',
    );
  }
}

/** Deliveries recorded long enough ago and never attempted: their workflows are started (a no-op for a running one). */
export async function startUnstartedDeliveries(
  deps: Pick<ApiDeps, 'db' | 'config'> & { temporal: Pick<ApiDeps['temporal'], 'client'> },
): Promise<number> {
  const found = await unstartedDeliveries(deps.db, UNSTARTED_DELIVERY_MS, 100);
  let started = 0;
  const settings = deliverySettings(deps);
  for (const delivery of found) {
    if (await startDelivery(deps.temporal.client, deps.config.taskQueue, delivery.userId, { ...delivery, settings })) started += 1;
  }
  return started;
}
