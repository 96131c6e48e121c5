// Streamed text of many messages, appended as `message.part.delta` events in ONE transaction and
// ONE round trip: what lets a worker streaming fifty replies at once commit a few times per window
// instead of once per reply per window (each commit a file sync, and NOTIFY serialises commits).
//
// It is one prepared statement (one round trip, planned once per connection). It locks the
// messages, then the sessions, each in id order (so two batches, or a batch and a single-row writer
// such as finishAssistantMessage, which locks a message before its session, never wait on each other
// in a cycle), then appends, numbers and announces the events. A message no longer written by the
// entry's attempt (its step was taken over by a retry, or finished) gets no event: the caller learns
// which messages were written and fails the others.
import type { Db } from './db.ts';
import { EVENTS_CHANNEL } from './event-channel.ts';

export interface DeltaEntry {
  sessionId: string;
  messageId: string;
  attempt: number;
  /** Storable text (no NUL, no unpaired surrogate): one unstorable entry would fail the whole batch. */
  delta: string;
}

// Each locking CTE is MATERIALIZED and sorted before its rows are locked, so locks are taken in id
// order; the sessions' CTE reads `owned`, which needs every message lock first. Under READ COMMITTED a
// row locked after a concurrent change is re-read, so `locked` holds each message's current attempt.
const APPEND_DELTAS = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS e("sessionId" text, "messageId" text, attempt int, delta text, ord int)
), locked AS MATERIALIZED (
  SELECT m.id, m.attempt, m.status FROM messages m WHERE m.id IN (SELECT "messageId" FROM input) ORDER BY m.id FOR UPDATE
), owned AS (
  SELECT i.* FROM input i JOIN locked m ON m.id = i."messageId" AND m.attempt = i.attempt AND m.status = 'streaming'
), locked_sessions AS MATERIALIZED (
  SELECT s.id FROM sessions s WHERE s.id IN (SELECT "sessionId" FROM owned) ORDER BY s.id FOR UPDATE
), counts AS (
  SELECT "sessionId", count(*)::bigint AS n FROM owned GROUP BY "sessionId"
), bumped AS (
  UPDATE sessions s SET last_seq = s.last_seq + c.n, updated_at = now()
    FROM counts c WHERE s.id = c."sessionId" AND s.id IN (SELECT id FROM locked_sessions)
  RETURNING s.id, s.last_seq, c.n
), inserted AS (
  INSERT INTO events (session_id, seq, type, data)
  SELECT o."sessionId", b.last_seq - b.n + row_number() OVER (PARTITION BY o."sessionId" ORDER BY o.ord),
         'message.part.delta', jsonb_build_object('messageId', o."messageId", 'delta', o.delta)
    FROM owned o JOIN bumped b ON b.id = o."sessionId"
  RETURNING session_id, seq, type, data
)
SELECT (SELECT coalesce(array_agg(DISTINCT "messageId" || ':' || attempt), '{}') FROM owned) AS written,
       -- The announcement is volatile: PostgreSQL evaluates it for every row even though only the count is read.
       (SELECT count(*) FROM (
          SELECT announce_session_events($2, session_id, max(seq), json_agg(json_build_array(seq, type, data) ORDER BY seq))
            FROM inserted GROUP BY session_id) n) AS sessions`;

/**
 * Appends one delta event per entry, in order within each session; answers which message attempts
 * (`<messageId>:<attempt>`) were written: all of an attempt's entries, or none of them.
 */
export async function appendDeltaBatch(db: Db, entries: readonly DeltaEntry[]): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const { rows } = await db.query<{ written: string[] }>({
    name: 'append-delta-batch',
    text: APPEND_DELTAS,
    values: [JSON.stringify(entries.map((entry, index) => ({ ...entry, ord: index }))), EVENTS_CHANNEL],
  });
  return new Set(rows[0]!.written);
}
