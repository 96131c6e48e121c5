// Webhook events of changes the API makes itself (an agent's revisions: contract/webhook-events.ts,
// `agent.changed`). The change and its deliveries commit in one transaction (store/revision-changes.ts);
// the deliveries' workflows are started after, and marked started. A process that dies in between, or
// a Temporal that does not answer, leaves deliveries recorded and unmarked: the housekeeping pass starts
// those (`startUnstartedDeliveries`), so an event is delivered late rather than lost. Starting never
// fails the request: the change is made, and the log says what waits for the pass.
import type { ApiDeps } from '../context.ts';
import type { DeliverySettings } from '../../core/delivery-types.ts';
import type { RecordedDeliveries } from '../../store/revision-changes.ts';
import { markDeliveriesStarted, unstartedDeliveries } from '../../store/webhook-deliveries.ts';
import { startDelivery } from '../../clients/delivery.ts';
import { callTemporal } from '../temporal-call.ts';

/** A recorded delivery not marked started after this long was never started. */
export const UNSTARTED_DELIVERY_MS = 2 * 60_000;
/** Deliveries one housekeeping pass starts at most. */
const STARTED_PER_PASS = 100;

type StartDeps = Pick<ApiDeps, 'db' | 'config' | 'logger'> & { temporal: Pick<ApiDeps['temporal'], 'client'> };

function deliverySettings(deps: Pick<ApiDeps, 'config'>): DeliverySettings {
  return { retryScheduleMs: deps.config.webhooks.retryScheduleMs, attemptTimeoutMs: deps.config.webhooks.attemptTimeoutMs };
}

/** Starts one delivery within the API's Temporal deadline and marks it; false when it must wait (logged). */
async function startOne(
  deps: StartDeps,
  userId: string,
  delivery: { deliveryId: string; subscriptionId: string; type: string },
): Promise<boolean> {
  try {
    await callTemporal(deps, () =>
      startDelivery(deps.temporal.client, deps.config.taskQueue, userId, { ...delivery, settings: deliverySettings(deps) }),
    );
    await markDeliveriesStarted(deps.db, [delivery.deliveryId]);
    return true;
  } catch (error) {
    deps.logger.warn({ err: error, deliveryId: delivery.deliveryId }, 'webhook delivery not started yet; the housekeeping pass starts it');
    return false;
  }
}

/** After the change committed: its event's deliveries go out. */
export async function startRecordedDeliveries(deps: StartDeps, type: string, recorded: RecordedDeliveries): Promise<void> {
  for (const delivery of recorded.deliveries) {
    // One the engine did not take: the others would wait as long each; the housekeeping pass starts them all.
    if (!(await startOne(deps, recorded.userId, { deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, type }))) return;
  }
}

/** Deliveries recorded long enough ago and never started: started now (a no-op for one found running). */
export async function startUnstartedDeliveries(deps: StartDeps): Promise<number> {
  const found = await unstartedDeliveries(deps.db, UNSTARTED_DELIVERY_MS, STARTED_PER_PASS);
  let started = 0;
  for (const delivery of found) {
    const { userId, ...rest } = delivery;
    // The engine did not take one: the next pass tries again, rather than this one waiting out each deadline.
    if (!(await startOne(deps, userId, rest))) break;
    started += 1;
  }
  return started;
}
