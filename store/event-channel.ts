// The PostgreSQL NOTIFY channel every appender of events announces on (store/events.ts, store/delta-batch.ts,
// store/sessions.ts, store/approvals.ts) and the API's event hub listens to: a leaf, so none of them imports
// another for its name.

/**
 * The PostgreSQL NOTIFY channel of appended events: `<sessionId>:<lastSeq>` and, when they fit, the events
 * (store/event-notices.ts); `<approvalId>:0` for an approval's writes.
 */
export const EVENTS_CHANNEL = 'session_events';
