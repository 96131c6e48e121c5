// Outbound webhook subscriptions and their delivery log.
import { WEBHOOK_EVENTS } from '../webhook-events.ts';
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { NULLABLE_STRING, TIME } from './shared.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

const SUBSCRIPTION_FIELDS = {
  id: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'array', items: { enum: WEBHOOK_EVENTS } },
  status: { enum: ['active', 'disabled'], description: '`disabled` after the receiver answered 410 Gone' },
  disabledReason: NULLABLE_STRING,
  createdAt: TIME,
  updatedAt: TIME,
} as const;

const SUBSCRIPTION_REQUIRED = ['id', 'url', 'events', 'status', 'disabledReason', 'createdAt', 'updatedAt'] as const;

export const SUBSCRIPTION_SCHEMA = { type: 'object', required: SUBSCRIPTION_REQUIRED, properties: SUBSCRIPTION_FIELDS } as const;

const ATTEMPT_SCHEMA = {
  type: 'object',
  required: ['attempt', 'startedAt', 'statusCode', 'error', 'durationMs'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    startedAt: TIME,
    statusCode: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when there was none" },
    error: { type: ['string', 'null'], description: 'Why there was no HTTP status (timeout, refused address, reset)' },
    durationMs: { type: 'integer' },
  },
} as const;

export const DELIVERY_SCHEMA = {
  type: 'object',
  required: ['id', 'subscriptionId', 'type', 'status', 'payload', 'createdAt', 'updatedAt', 'attempts'],
  properties: {
    id: { type: 'string', description: 'Also the `webhook-id` header and the `id` of the payload, the same on every attempt' },
    subscriptionId: { type: 'string' },
    type: { type: 'string' },
    status: {
      enum: ['pending', 'delivered', 'failed', 'cancelled'],
      description: '`failed`: every attempt failed, or 410; `cancelled`: the subscription was disabled first',
    },
    payload: { type: 'object', description: 'The body sent: `{id, type, createdAt, data}`' },
    createdAt: TIME,
    updatedAt: TIME,
    attempts: { type: 'array', items: ATTEMPT_SCHEMA },
  },
} as const;

export const CREATE_WEBHOOK_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'events'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH },
    events: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: WEBHOOK_EVENTS } },
  },
} as const;

export const createWebhook = defineOperation({
  id: 'createWebhook',
  method: 'post',
  path: '/webhook',
  summary: 'Subscribe a URL to events',
  description:
    'The answer carries the signing secret (`whsec_` + base64, Standard Webhooks) once; keep it to verify deliveries. ' +
    `\`url\` is an http(s) URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters; a literal private, loopback, link-local or ` +
    'metadata address is refused (a host name is checked when each delivery connects). ' +
    'At most WEBHOOK_SUBSCRIPTIONS_PER_USER webhooks per user (20 unless configured; 409 beyond). ' +
    'Event payloads never carry approval answer links or tokens (the delivery log is readable with `read`, and a ' +
    'link answers): to receive links over HTTP, give the agent a `webhook` userChannel with answerVia signed-url.',
  tag: 'webhooks',
  auth: { kind: 'scope', scope: 'webhooks:write' },
  body: { required: true, schema: CREATE_WEBHOOK_BODY_SCHEMA },
  responses: {
    201: {
      description: 'Subscribed; `secret` is shown this once',
      schema: {
        type: 'object',
        required: [...SUBSCRIPTION_REQUIRED, 'secret'],
        properties: { ...SUBSCRIPTION_FIELDS, secret: { type: 'string' } },
      },
    },
    409: { description: 'You already have the most webhooks allowed' },
  },
});

export const listWebhooks = defineOperation({
  id: 'listWebhooks',
  method: 'get',
  path: '/webhook',
  summary: 'List your webhooks (never their secrets)',
  tag: 'webhooks',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Your webhooks, oldest first',
      schema: { type: 'object', required: ['webhooks'], properties: { webhooks: { type: 'array', items: SUBSCRIPTION_SCHEMA } } },
    },
  },
});

export const deleteWebhook = defineOperation({
  id: 'deleteWebhook',
  method: 'delete',
  path: '/webhook/{id}',
  summary: 'Delete a webhook; its pending deliveries stop',
  tag: 'webhooks',
  auth: { kind: 'scope', scope: 'webhooks:write' },
  responses: {
    204: { description: 'Deleted, with its delivery log' },
    403: { description: 'The webhook belongs to another user' },
    404: { description: 'There is no such webhook' },
  },
});

export const listDeliveries = defineOperation({
  id: 'listDeliveries',
  method: 'get',
  path: '/webhook/{id}/deliveries',
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
          deliveries: { type: 'array', items: DELIVERY_SCHEMA },
          next: { type: ['string', 'null'], description: 'Pass as `before` for the next page; null at the end' },
        },
      },
    },
    403: { description: 'The webhook belongs to another user' },
    404: { description: 'There is no such webhook' },
  },
});

export type CreateWebhookBody = Sent<typeof CREATE_WEBHOOK_BODY_SCHEMA>;
export type WebhookSubscription = Sent<typeof SUBSCRIPTION_SCHEMA>;
export type CreatedWebhook = ResponseOf<typeof createWebhook, 201>;
export type WebhookDelivery = Sent<typeof DELIVERY_SCHEMA>;
export type WebhookList = ResponseOf<typeof listWebhooks, 200>;
export type DeliveryPage = ResponseOf<typeof listDeliveries, 200>;
export type DeliveriesQuery = Sent<typeof listDeliveries.query>;
