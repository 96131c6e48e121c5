// GET /session/:id/events: the session's events, as an SSE replay that continues live, or as JSON
// pages. Both read PostgreSQL, so any API process serves any session.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { loadOwnedSession } from '../sessions/access.ts';
import { acceptsEventStream, streamEvents } from '../streaming/sse.ts';
import { readEvents } from '../../store/events.ts';
import { ValidationError } from '../../lib/errors.ts';

const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export const eventSchema = {
  type: 'object',
  required: ['seq', 'type', 'at', 'sessionId'],
  description: 'A session event; the members beside these depend on `type`',
  properties: {
    seq: { type: 'integer', minimum: 1, description: '1, 2, 3... per session, with no gap and no repeat' },
    type: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    sessionId: { type: 'string' },
  },
};

interface EventsQuery {
  after?: number;
  limit: number;
}

/** Last-Event-ID wins over `?after=`: a reconnecting EventSource sends it, and it is newer than the URL. */
function replayStart(header: string | undefined, after: number | undefined): number {
  if (header === undefined || header.trim() === '') return after ?? 0;
  const value = header.trim();
  if (!/^\d+$/.test(value) || Number(value) > MAX_SEQ) {
    throw new ValidationError('Last-Event-ID must be the seq of an event (a non-negative integer)', [
      { path: '/headers/last-event-id', message: 'must be a non-negative integer' },
    ]);
  }
  return Number(value);
}

export function sessionEventRoutes(deps: ApiDeps) {
  return [
    defineRoute<unknown, EventsQuery>({
      method: 'get',
      path: '/session/:id/events',
      summary: "A session's events: SSE replay then live, or JSON pages",
      description:
        'With `Accept: text/event-stream`: an SSE stream of the events with `seq` above `Last-Event-ID` (header) or ' +
        '`after`, then new events as they happen; frames are `id: <seq>`, `event: <type>`, `data: <event JSON>`, with ' +
        "a `: keep-alive` comment at least every SSE_HEARTBEAT_MS. A `Last-Event-ID` (or `after`) beyond the session's " +
        'last event is taken as that last event: the stream then carries the events that come next. A key holds at most ' +
        'SSE_STREAMS_PER_KEY open streams (streamed sends included) per API process; one more is a 429 with Retry-After. ' +
        'Otherwise one JSON page of events ' +
        'after `after`; `next` is the `after` of the following page, or null when this page reached the last event.',
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'read' },
      opensStream: acceptsEventStream,
      query: {
        type: 'object',
        properties: {
          after: { type: 'integer', minimum: 0, maximum: MAX_SEQ, description: 'Only events with a greater seq (default 0)' },
          limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'JSON only: events per page' },
        },
      },
      responses: {
        200: {
          description: 'A page of events (or, with Accept: text/event-stream, the SSE stream)',
          schema: {
            type: 'object',
            required: ['events', 'next'],
            properties: {
              events: { type: 'array', items: eventSchema },
              next: { type: ['integer', 'null'], description: 'Pass as `after` for the next page; null at the end' },
            },
          },
        },
        403: { description: 'The session belongs to another user' },
        404: { description: 'There is no such session' },
      },
      async handle({ req, res, params, query, principal }) {
        const wantsStream = acceptsEventStream(req);
        const after = wantsStream ? replayStart(req.get('last-event-id'), query.after) : (query.after ?? 0);
        const session = await loadOwnedSession(deps.db, principal, params.id!);
        if (wantsStream) {
          await streamEvents({
            req,
            res,
            hub: deps.events,
            sessionId: session.id,
            // A position past the end (a client's own Last-Event-ID) is taken as the end, as documented above.
            afterSeq: Math.min(after, session.lastSeq),
            heartbeatMs: deps.config.limits.sseHeartbeatMs,
          });
          return undefined;
        }
        // One row beyond the page tells whether another page exists, without a count.
        const rows = await readEvents(deps.db, session.id, after, query.limit + 1);
        const events = rows.slice(0, query.limit);
        const next = rows.length > query.limit ? events[events.length - 1]!.seq : null;
        return { status: 200, body: { events, next } };
      },
    }),
  ];
}
