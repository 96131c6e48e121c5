// Outbound webhook subscriptions and their delivery log. The signing secret is in the creating
// response only; listings never carry it. Another user's subscription is 403 (ids are global, as sessions'), an unknown one 404.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import type { Principal } from '../../store/api-keys.ts';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  SubscriptionLimitError,
  type Subscription,
} from '../../store/webhook-subscriptions.ts';
import { listDeliveries } from '../../store/webhook-deliveries.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { createOutboundClient, OutboundRequestError } from '../../lib/outbound.ts';
import { generateWebhookSecret } from '../../lib/webhook-signature.ts';

function view(subscription: Subscription) {
  const { id, url, events, status, disabledReason, createdAt, updatedAt } = subscription;
  return { id, url, events, status, disabledReason, createdAt, updatedAt };
}

async function loadOwned(deps: ApiDeps, principal: Principal | undefined, id: string): Promise<Subscription> {
  const subscription = await getSubscription(deps.db, id);
  if (!subscription) throw new NotFoundError(`There is no webhook "${id}"`);
  if (subscription.userId !== principal?.userId) throw new ForbiddenError('This webhook belongs to another user');
  return subscription;
}

export function webhookRoutes(deps: ApiDeps) {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const limit = deps.config.webhooks.maxSubscriptionsPerUser;

  return [
    defineRoute(OPERATIONS.createWebhook, {
      async handle({ body, principal }) {
        let url: URL;
        try {
          url = outbound.checkUrl(body.url);
        } catch (error) {
          if (!(error instanceof OutboundRequestError)) throw error;
          throw new ValidationError(`The webhook url ${error.message}`, [{ path: '/url', message: error.message }]);
        }
        const secret = generateWebhookSecret();
        try {
          const subscription = await createSubscription(deps.db, deps.masterKey, {
            userId: principal!.userId,
            url: url.href,
            events: body.events,
            secret,
            limit,
          });
          return { status: 201, body: { ...view(subscription), secret } };
        } catch (error) {
          if (error instanceof SubscriptionLimitError) throw new ConflictError(error.message);
          throw error;
        }
      },
    }),
    defineRoute(OPERATIONS.listWebhooks, {
      async handle({ principal }) {
        return { status: 200, body: { webhooks: (await listSubscriptions(deps.db, principal!.userId)).map(view) } };
      },
    }),
    defineRoute(OPERATIONS.deleteWebhook, {
      async handle({ params, principal }) {
        const subscription = await loadOwned(deps, principal, params.id!);
        if (!(await deleteSubscription(deps.db, subscription.id))) throw new NotFoundError(`There is no webhook "${params.id}"`);
        return { status: 204 };
      },
    }),
    defineRoute(OPERATIONS.listDeliveries, {
      async handle({ params, query, principal }) {
        const subscription = await loadOwned(deps, principal, params.id!);
        const deliveries = await listDeliveries(deps.db, subscription.id, { limit: query.limit, before: query.before });
        const next = deliveries.length === query.limit ? deliveries.at(-1)!.id : null;
        return { status: 200, body: { deliveries, next } };
      },
    }),
  ];
}
