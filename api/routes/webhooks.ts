// Outbound webhook subscriptions and their delivery log. The signing secret is in the creating
// response only; listings never carry it. Another user's subscription is 403 (ids are global, as sessions'), an unknown one 404.
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
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import { createOutboundClient, OutboundRequestError } from '../../lib/outbound.ts';
import { generateWebhookSecret } from '../../lib/webhook-signature.ts';
import { WEBHOOK_EVENTS } from '../../contract/webhook-events.ts';
import { deliverySchema, subscriptionSchema } from './webhook-schemas.ts';

const MAX_URL_LENGTH = 2048;

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

interface CreateBody {
  url: string;
  events: string[];
}

export function webhookRoutes(deps: ApiDeps) {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const limit = deps.config.webhooks.maxSubscriptionsPerUser;

  return [
    defineRoute<CreateBody>({
      method: 'post',
      path: '/webhook',
      summary: 'Subscribe a URL to events',
      description:
        'The answer carries the signing secret (`whsec_` + base64, Standard Webhooks) once; keep it to verify deliveries. ' +
        `\`url\` is an http(s) URL of at most ${MAX_URL_LENGTH} characters; a literal private, loopback, link-local or ` +
        'metadata address is refused (a host name is checked when each delivery connects). ' +
        `At most ${limit} webhooks per user (409 beyond). ` +
        'Event payloads never carry approval answer links or tokens (the delivery log is readable with `read`, and a ' +
        'link answers): to receive links over HTTP, give the agent a `webhook` userChannel with answerVia signed-url.',
      tag: 'webhooks',
      auth: { kind: 'scope', scope: 'webhooks:write' },
      body: {
        required: true,
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'events'],
          properties: {
            url: { type: 'string', minLength: 1, maxLength: MAX_URL_LENGTH },
            events: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...WEBHOOK_EVENTS] } },
          },
        },
      },
      responses: {
        201: {
          description: 'Subscribed; `secret` is shown this once',
          schema: {
            ...subscriptionSchema,
            required: [...subscriptionSchema.required, 'secret'],
            properties: { ...subscriptionSchema.properties, secret: { type: 'string' } },
          },
        },
        409: { description: 'You already have the most webhooks allowed' },
      },
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
    defineRoute({
      method: 'get',
      path: '/webhook',
      summary: 'List your webhooks (never their secrets)',
      tag: 'webhooks',
      auth: { kind: 'scope', scope: 'read' },
      responses: {
        200: {
          description: 'Your webhooks, oldest first',
          schema: { type: 'object', required: ['webhooks'], properties: { webhooks: { type: 'array', items: subscriptionSchema } } },
        },
      },
      async handle({ principal }) {
        return { status: 200, body: { webhooks: (await listSubscriptions(deps.db, principal!.userId)).map(view) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/webhook/:id',
      summary: 'Delete a webhook; its pending deliveries stop',
      tag: 'webhooks',
      auth: { kind: 'scope', scope: 'webhooks:write' },
      responses: {
        204: { description: 'Deleted, with its delivery log' },
        403: { description: 'The webhook belongs to another user' },
        404: { description: 'There is no such webhook' },
      },
      async handle({ params, principal }) {
        const subscription = await loadOwned(deps, principal, params.id!);
        if (!(await deleteSubscription(deps.db, subscription.id))) throw new NotFoundError(`There is no webhook "${params.id}"`);
        return { status: 204 };
      },
    }),
    defineRoute<unknown, { limit: number; before?: string }>({
      method: 'get',
      path: '/webhook/:id/deliveries',
      summary: "A webhook's deliveries, newest first, each with its attempts",
      description:
        'Each attempt has its start time, the HTTP status the receiver answered or the network error instead (refused ' +
        'address, timeout, reset), and its duration. Page with `before`: the `next` of the previous page. ' +
        '`payload` is the body as sent, which never holds an approval answer link or token.',
      tag: 'webhooks',
      auth: { kind: 'scope', scope: 'read' },
      query: {
        type: 'object',
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
          before: { type: 'string', maxLength: 100, description: 'Only deliveries older than this delivery id' },
        },
      },
      responses: {
        200: {
          description: 'A page of deliveries',
          schema: {
            type: 'object',
            required: ['deliveries', 'next'],
            properties: {
              deliveries: { type: 'array', items: deliverySchema },
              next: { type: ['string', 'null'], description: 'Pass as `before` for the next page; null at the end' },
            },
          },
        },
        403: { description: 'The webhook belongs to another user' },
        404: { description: 'There is no such webhook' },
      },
      async handle({ params, query, principal }) {
        const subscription = await loadOwned(deps, principal, params.id!);
        const deliveries = await listDeliveries(deps.db, subscription.id, { limit: query.limit, before: query.before });
        const next = deliveries.length === query.limit ? deliveries.at(-1)!.id : null;
        return { status: 200, body: { deliveries, next } };
      },
    }),
  ];
}
