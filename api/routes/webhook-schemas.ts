// JSON Schemas of webhook subscriptions and deliveries as the API shows them (for /openapi.json).
import { WEBHOOK_EVENTS } from '../../contract/webhook-events.ts';

export const subscriptionSchema = {
  type: 'object',
  required: ['id', 'url', 'events', 'status', 'disabledReason', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { enum: [...WEBHOOK_EVENTS] } },
    status: { enum: ['active', 'disabled'], description: '`disabled` after the receiver answered 410 Gone' },
    disabledReason: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const attemptSchema = {
  type: 'object',
  required: ['attempt', 'startedAt', 'statusCode', 'error', 'durationMs'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    startedAt: { type: 'string', format: 'date-time' },
    statusCode: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when there was none" },
    error: { type: ['string', 'null'], description: 'Why there was no HTTP status (timeout, refused address, reset)' },
    durationMs: { type: 'integer' },
  },
};

export const deliverySchema = {
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
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    attempts: { type: 'array', items: attemptSchema },
  },
};
