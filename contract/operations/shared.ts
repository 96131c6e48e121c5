// Schemas and headers that several operations share.

export const IDEMPOTENCY_KEY_HEADER = {
  description:
    'Makes a retry safe: the same key (per user and route) within 24 h answers for the first request with it and does ' +
    'nothing else (a definitive refusal of the first, such as 409, is answered again). Reusing a key for a different ' +
    'request (another body or target) is 422. At most 255 printable ASCII characters, e.g. a UUID.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
} as const;

export const IDEMPOTENCY_KEY_HEADERS = { 'Idempotency-Key': IDEMPOTENCY_KEY_HEADER } as const;

export const NULLABLE_STRING = { type: ['string', 'null'] } as const;
export const NULLABLE_TIME = { type: ['string', 'null'], format: 'date-time' } as const;
export const TIME = { type: 'string', format: 'date-time' } as const;
export const STRINGS = { type: 'array', items: { type: 'string' } } as const;

/** The agent bundle as the OpenAPI document holds it (contract/openapi/bundle-components.ts). */
export const BUNDLE_REF = { $ref: '#/components/schemas/Bundle' } as const;

/** `async` of the requests that start a turn. */
export const ASYNC_QUERY = { enum: ['1', 'true', '0', 'false'] } as const;

/** SSE only: the events of the agents the session's turns call, relayed (contract/events.ts, RelayedEvent). */
export const CHILDREN_QUERY = {
  enum: ['1', 'true', '0', 'false'],
  description:
    'SSE only. 1: the events of the agents its turns call (and those call) are relayed on this stream as `subagent.event` ' +
    "frames with no `id:` (each wraps the child's event, whose `sessionId` is the child's); a reconnect relays the calls " +
    'still running from their turn start',
} as const;
