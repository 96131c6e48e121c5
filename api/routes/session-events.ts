// GET /session/:id/events: the session's events, as an SSE replay that continues live, or as JSON
// pages. Both read PostgreSQL, so any API process serves any session.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { MAX_SEQ } from '../../contract/operations/session-events.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { loadOwnedSession } from '../sessions/access.ts';
import { acceptsEventStream, streamEvents, wantsChildren } from '../streaming/sse.ts';
import { readEvents } from '../../store/events.ts';
import { ValidationError } from '../../lib/workflow-safe/errors.ts';

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
    defineRoute(OPERATIONS.listSessionEvents, {
      holdsConnection: acceptsEventStream,
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
            ...(wantsChildren(query) ? { relayChildren: { db: deps.db, resume: true } } : {}),
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
