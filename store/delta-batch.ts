// Streamed text of many messages, appended as `message.part.delta` events in ONE transaction and
// ONE round trip: what lets a worker streaming fifty replies at once commit a few times per window
// instead of once per reply per window (each commit a file sync, and NOTIFY serialises commits).
//
// The query is a multi-statement simple query, which PostgreSQL runs as one implicit transaction:
// it locks the messages, then the sessions, each in id order (so two batches, or a batch and a
// single-row writer such as finishAssistantMessage, which locks a message before its session, never
// wait on each other in a cycle), then appends, numbers and announces the events. A message no
// longer written by the entry's attempt (its step was taken over by a retry, or finished) gets no
// event: the caller learns which messages were written and fails the others.
import { escapeLiteral } from 'pg';
import type { Db } from './db.ts';
import { EVENTS_CHANNEL } from '../lib/events.ts';

export interface DeltaEntry {
  sessionId: string;
  messageId: string;
  attempt: number;
  /** Storable text (no NUL, no unpaired surrogate): one unstorable entry would fail the whole batch. */
  delta: string;
}

const idList = (ids: Iterable<string>) => `ARRAY[${[...new Set(ids)].map(escapeLiteral).join(',')}]::text[]`;

/**
 * Appends one delta event per entry, in order within each session; answers which message attempts
 * (`<messageId>:<attempt>`) were written: all of an attempt's entries, or none of them.
 */
export async function appendDeltaBatch(db: Db, entries: readonly DeltaEntry[]): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const input = escapeLiteral(JSON.stringify(entries.map((entry, index) => ({ ...entry, ord: index }))));
  const text = `
SELECT 1 FROM messages WHERE id = ANY(${idList(entries.map((entry) => entry.messageId))}) ORDER BY id FOR UPDATE;
SELECT 1 FROM sessions WHERE id = ANY(${idList(entries.map((entry) => entry.sessionId))}) ORDER BY id FOR UPDATE;
WITH input AS (
  SELECT * FROM jsonb_to_recordset(${input}::jsonb) AS e("sessionId" text, "messageId" text, attempt int, delta text, ord int)
), owned AS (
  SELECT i.* FROM input i JOIN messages m ON m.id = i."messageId" AND m.attempt = i.attempt AND m.status = 'streaming'
), counts AS (
  SELECT "sessionId", count(*)::bigint AS n FROM owned GROUP BY "sessionId"
), bumped AS (
  UPDATE sessions s SET last_seq = s.last_seq + c.n, updated_at = now() FROM counts c WHERE s.id = c."sessionId"
  RETURNING s.id, s.last_seq, c.n
), inserted AS (
  INSERT INTO events (session_id, seq, type, data)
  SELECT o."sessionId", b.last_seq - b.n + row_number() OVER (PARTITION BY o."sessionId" ORDER BY o.ord),
         'message.part.delta', jsonb_build_object('messageId', o."messageId", 'delta', o.delta)
    FROM owned o JOIN bumped b ON b.id = o."sessionId"
  RETURNING session_id, seq
)
SELECT (SELECT coalesce(array_agg(DISTINCT "messageId" || ':' || attempt), '{}') FROM owned) AS written,
       -- pg_notify is volatile: PostgreSQL evaluates it for every row even though only the count is read.
       (SELECT count(*) FROM (SELECT pg_notify(${escapeLiteral(EVENTS_CHANNEL)}, session_id || ':' || max(seq)) FROM inserted GROUP BY session_id) n)
         AS sessions;`;
  // Several statements answer several results; the last one holds the written messages.
  const results = (await db.query(text)) as unknown as Array<{ rows: Array<{ written: string[] }> }>;
  return new Set(results[results.length - 1]!.rows[0]!.written);
}
