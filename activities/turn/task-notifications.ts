// A2A push notifications of a task's state (store/a2a-push.ts): when a turn ends, or asks its user, the
// configs its A2A client left for it each get a delivery, recorded in the transaction that writes the
// change (insertPushDeliveries) and started once it commits; the API's housekeeping pass starts one whose
// start was lost (api/webhooks/publish.ts). A task with no config (nearly all) costs one indexed read.
import { Context } from '@temporalio/activity';
import type { Db } from '../../store/db.ts';
import type { Config } from '../../lib/config.ts';
import type { RecordedPush } from '../../store/a2a-push.ts';
import { startDelivery } from '../../clients/delivery.ts';
import { markDeliveriesStarted } from '../../store/webhook-deliveries.ts';

export type NotifyDeps = { db: Db; config?: Pick<Config, 'taskQueue' | 'webhooks'> };

/** Starts the notifications a committed change recorded; one not started waits for the housekeeping pass. */
export async function startTaskNotifications(deps: NotifyDeps, made: readonly RecordedPush[]): Promise<void> {
  if (made.length === 0 || !deps.config) return;
  const { taskQueue, webhooks } = deps.config;
  const settings = { retryScheduleMs: webhooks.retryScheduleMs, attemptTimeoutMs: webhooks.attemptTimeoutMs };
  for (const delivery of made) {
    try {
      await startDelivery(Context.current().client, taskQueue, delivery.userId, {
        deliveryId: delivery.deliveryId,
        subscriptionId: delivery.label,
        type: delivery.type,
        settings,
      });
      await markDeliveriesStarted(deps.db, [delivery.deliveryId]);
    } catch (error) {
      Context.current().log.warn('an A2A push notification was not started yet', { deliveryId: delivery.deliveryId, error: String(error) });
    }
  }
}
