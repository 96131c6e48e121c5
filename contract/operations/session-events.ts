// A session's events: an SSE replay that continues live, or JSON pages.
import { CHILDREN_QUERY } from './shared.ts';
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';

/** The largest seq a client may name (events are numbered 1, 2, 3... per session). */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export const EVENT_SCHEMA = {
  type: 'object',
  required: ['seq', 'type', 'at', 'sessionId'],
  description: 'A session event; the members beside these depend on `type`',
  properties: {
    seq: { type: 'integer', minimum: 1, description: '1, 2, 3... per session, with no gap and no repeat' },
    type: {
      type: 'string',
      description:
        'session.created, message.created, turn.started, turn.queued, message.part.delta, step.retry, tool.call, tool.result, ' +
        'message.completed, reply.invalid, turn.completed, turn.failed, turn.aborted, session.compacted, messages.reverted, ' +
        'approval.requested, approval.voted, approval.escalated, approval.delegated, approval.answered, approval.expired, trigger.fired, workflow.started, workflow.node, ' +
        'workflow.completed, workflow.failed (docs/sessions.md)',
    },
    at: { type: 'string', format: 'date-time' },
    sessionId: { type: 'string' },
  },
} as const;

export const EVENTS_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    after: { type: 'integer', minimum: 0, maximum: MAX_SEQ, description: 'Only events with a greater seq (default 0)' },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'JSON only: events per page' },
    children: CHILDREN_QUERY,
  },
} as const;

export const listSessionEvents = defineOperation({
  id: 'listSessionEvents',
  method: 'get',
  path: '/session/{id}/events',
  summary: "A session's events: SSE replay then live, or JSON pages",
  description:
    'With `Accept: text/event-stream`: an SSE stream of the events with `seq` above `Last-Event-ID` (header) or ' +
    '`after`, then new events as they happen; frames are `id: <seq>`, `event: <type>`, `data: <event JSON>`, with ' +
    "a `: keep-alive` comment at least every SSE_HEARTBEAT_MS. A `Last-Event-ID` (or `after`) beyond the session's " +
    'last event is taken as that last event: the stream then carries the events that come next. A user holds at most ' +
    'OPEN_STREAMS_PER_USER open streams (streamed and waiting sends included, all its keys together) per API process; ' +
    'one more is a 429 `stream-limit` with Retry-After. ' +
    'Otherwise one JSON page of events ' +
    'after `after`; `next` is the `after` of the following page, or null when this page reached the last event.',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'read' },
  streams: true,
  query: EVENTS_QUERY_SCHEMA,
  headers: {
    'Last-Event-ID': {
      description: 'SSE only: resume after this seq (what a reconnecting EventSource sends); wins over `after`',
      schema: { type: 'string' },
    },
  },
  responses: {
    200: {
      description: 'A page of events (or, with Accept: text/event-stream, the SSE stream)',
      schema: {
        type: 'object',
        required: ['events', 'next'],
        properties: {
          events: { type: 'array', items: EVENT_SCHEMA },
          next: { type: ['integer', 'null'], description: 'Pass as `after` for the next page; null at the end' },
        },
      },
    },
    403: { description: 'The session belongs to another user' },
    404: { description: 'There is no such session' },
  },
});

export type EventsQuery = Sent<typeof EVENTS_QUERY_SCHEMA>;
export type EventPage = ResponseOf<typeof listSessionEvents, 200>;
