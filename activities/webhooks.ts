// Webhook activities: publishing an event (recording its deliveries) and making one delivery
// attempt. The signing secret is opened here, inside the attempt, so it never enters workflow
// history; the workflow sees only ids, outcomes and the retry schedule.
import type { Db } from '../store/db.ts';
import type { Logger } from '../lib/logger.ts';
import type { Config } from '../lib/config.ts';
import type { MasterKey } from '../lib/master-key.ts';
import { createOutboundClient, OutboundAddressRefusedError, outboundErrorText } from '../lib/outbound.ts';
import { signWebhook } from '../lib/webhook-signature.ts';
import { SERVICE_VERSION } from '../lib/version.ts';
import { createDeliveries, deliveryTarget, finishDelivery, recordAttempt } from '../store/webhook-deliveries.ts';
import { disableSubscription, openSubscriptionSecret } from '../store/webhook-subscriptions.ts';
import type { AttemptOutcome, DeliverySettings, PublishedDeliveries } from '../core/delivery-types.ts';
import { webhookDeliveryAttempts } from '../lib/metrics/worker-metrics.ts';
import { deletePushConfig, pushTarget, taskHasEnded } from '../store/a2a-push.ts';

/** A2A's media type for its JSON (the SDK's A2A_CONTENT_TYPE, which its push sender sends). */
const A2A_CONTENT_TYPE = 'application/a2a+json';

export interface PublishInput {
  userId: string;
  type: string;
  data: unknown;
  /** Names the event once (e.g. `session.completed:<turnId>`), so a rerun finds its deliveries. */
  eventKey: string;
}

export function webhookActivities(deps: { db: Db; logger: Logger; config: Config; masterKeys: readonly MasterKey[] }) {
  const { db } = deps;
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const settings: DeliverySettings = {
    retryScheduleMs: deps.config.webhooks.retryScheduleMs,
    attemptTimeoutMs: deps.config.webhooks.attemptTimeoutMs,
  };

  /** This attempt ran before (its result was lost with a worker): what it came to. */
  function alreadyEnded(status: string): AttemptOutcome {
    return { result: status === 'delivered' ? 'delivered' : 'cancelled', detail: `already ${status}` };
  }

  /** One POST of the delivery's body, recorded as its attempt (and, unless retried, its end). */
  async function post(
    input: { deliveryId: string; attempt: number; final: boolean },
    url: string,
    body: string,
    headersAt: (startedAt: Date) => Record<string, string>,
  ): Promise<AttemptOutcome> {
    const startedAt = new Date();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const response = await outbound.request(url, {
        method: 'POST',
        headers: headersAt(startedAt),
        body,
        timeoutMs: settings.attemptTimeoutMs,
      });
      statusCode = response.status;
    } catch (caught) {
      // Stored for `read` keys to see, so it names no resolved address; the operator's log has it.
      error = outboundErrorText(caught);
      if (caught instanceof OutboundAddressRefusedError)
        deps.logger.warn(
          { deliveryId: input.deliveryId, address: caught.address, range: caught.range },
          'webhook receiver address refused',
        );
    }
    const durationMs = Date.now() - startedAt.getTime();
    const result: AttemptOutcome['result'] =
      statusCode !== null && statusCode >= 200 && statusCode < 300 ? 'delivered' : statusCode === 410 ? 'gone' : 'retry';
    const status = result === 'delivered' ? 'delivered' : result === 'gone' || input.final ? 'failed' : 'pending';
    await recordAttempt(db, {
      deliveryId: input.deliveryId,
      attempt: { attempt: input.attempt, startedAt, statusCode, error, durationMs },
      status,
    });
    webhookDeliveryAttempts.inc({ outcome: status === 'pending' ? 'retry' : status });
    return { result, detail: statusCode !== null ? `HTTP ${statusCode}` : (error ?? 'no answer') };
  }

  /**
   * An A2A push notification (store/a2a-push.ts): the StreamResponse to the client's URL, with the token
   * it gave (X-A2A-Notification-Token) and its credentials (Authorization), as A2A's push sender sends them.
   */
  async function attemptPush(input: { deliveryId: string; attempt: number; final: boolean }): Promise<AttemptOutcome> {
    const target = await pushTarget(db, deps.masterKeys, input.deliveryId);
    if (!target) return { result: 'cancelled', detail: 'the push config or the subscription was deleted' };
    if (target.status !== 'pending') return alreadyEnded(target.status);
    const { config } = target;
    // Each notification is a workflow of its own: a wait told after the task ended would take its end back.
    if (/INPUT_REQUIRED|AUTH_REQUIRED/.test(target.type) && (await taskHasEnded(db, config.sessionId, config.taskId))) {
      await finishDelivery(db, input.deliveryId, 'cancelled');
      webhookDeliveryAttempts.inc({ outcome: 'cancelled' });
      return { result: 'cancelled', detail: 'the task has ended since: its wait is no news' };
    }
    const outcome = await post(input, config.url, target.body, () => ({
      'content-type': A2A_CONTENT_TYPE,
      'user-agent': `agent-service-a2a/${SERVICE_VERSION}`,
      ...(config.token ? { 'x-a2a-notification-token': config.token } : {}),
      ...(config.authentication ? { authorization: `${config.authentication.scheme} ${config.authentication.credentials}` } : {}),
    }));
    if (outcome.result === 'gone') {
      // The client's URL will never take notifications again: its config goes (and its notifications with it).
      await deletePushConfig(db, config.taskId, config.id);
      deps.logger.info({ taskId: config.taskId, configId: config.id }, 'A2A push config deleted by 410');
    }
    return outcome;
  }

  return {
    /** Records one delivery per matching active subscription; the calling workflow starts them. */
    async publishWebhookEvent(input: PublishInput): Promise<PublishedDeliveries> {
      const deliveries = await createDeliveries(db, input);
      // The schedule travels in workflow input from here, so a delivery keeps the schedule it began with.
      return { deliveries, settings };
    },

    async attemptDelivery(input: { deliveryId: string; attempt: number; final: boolean }): Promise<AttemptOutcome> {
      const target = await deliveryTarget(db, input.deliveryId);
      if (!target) return attemptPush(input);
      if (target.status !== 'pending') return alreadyEnded(target.status);
      if (target.subscription_status !== 'active') {
        await finishDelivery(db, input.deliveryId, 'cancelled');
        webhookDeliveryAttempts.inc({ outcome: 'cancelled' });
        return { result: 'cancelled', detail: 'the subscription is disabled' };
      }
      const secret = openSubscriptionSecret(deps.masterKeys, target.subscription_id, target);
      const outcome = await post(input, target.url, target.body, (startedAt) => ({
        // A fresh timestamp, hence a fresh signature, on every attempt; the id stays the delivery's.
        ...signWebhook(secret, target.id, Math.floor(startedAt.getTime() / 1000), target.body),
        'content-type': 'application/json',
        'user-agent': `agent-service-webhooks/${SERVICE_VERSION}`,
      }));
      if (outcome.result === 'gone') {
        // 410 Gone: the receiver says this endpoint will never take deliveries again.
        await disableSubscription(db, target.subscription_id, `The receiver answered 410 Gone to delivery ${target.id}`);
        deps.logger.info({ subscriptionId: target.subscription_id, deliveryId: target.id }, 'webhook subscription disabled by 410');
      }
      return outcome;
    },

    /** Ends a delivery whose attempt activity itself failed (e.g. its worker died) on the last attempt. */
    async finishDelivery(input: { deliveryId: string; status: 'failed' | 'cancelled' }): Promise<void> {
      await finishDelivery(db, input.deliveryId, input.status);
      webhookDeliveryAttempts.inc({ outcome: input.status });
    },
  };
}
