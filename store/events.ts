// Appending and reading session events. An append runs inside the caller's transaction, so an
// event commits (and is announced) together with the change it describes, or not at all.
import type pg from 'pg';
import type { Db, DbClient } from './db.ts';
import { TERMINAL_TURN_EVENTS, type NewEvent, type SessionEvent } from '../contract/events.ts';
import type { SessionStatus } from './sessions.ts';

import { EVENTS_CHANNEL } from './event-channel.ts';

export { EVENTS_CHANNEL };

export interface EventRow {
  session_id: string;
  seq: number;
  type: string;
  at: Date;
  data: Record<string, unknown>;
}

export function toSessionEvent(row: EventRow): SessionEvent {
  return sessionEvent(row.session_id, row.seq, row.type, row.at.toISOString(), row.data);
}

/** An event as readers get it: its data's members, then its own (which win over a data member of the same name). */
export function sessionEvent(sessionId: string, seq: number, type: string, at: string, data: Record<string, unknown>): SessionEvent {
  return { ...data, seq, type, at, sessionId } as SessionEvent;
}

/**
 * Appends events with the session's next seq values and announces them. Must run in a transaction:
 * the UPDATE locks the session row, so concurrent appenders take turns and seq has no gap and no
 * repeat. `status` moves the session's status in the same statement.
 *
 * One statement, one round trip: the UPDATE, the INSERT and the NOTIFY were three, and a turn makes
 * five or six appends. The UPDATE waits for the row lock and then works on the newest row, so the seqs
 * it hands the INSERT are the same as the separate statements made (the NOTIFY is delivered at commit).
 */
export async function appendEvents(
  client: DbClient,
  sessionId: string,
  events: readonly NewEvent[],
  options: { status?: SessionStatus } = {},
): Promise<SessionEvent[]> {
  if (events.length === 0) return [];
  // A turn's end takes its sends (and the steering messages that joined it) out of the inbox
  // (store/session-inbox.ts); a session with other sends still waiting is not made idle. Client tool
  // answers of its steps it never wrote (it ended first) are no longer handed to the session's workflow.
  const ended = events
    .filter((event) => TERMINAL_TURN_EVENTS.includes(event.type))
    .map((event) => (event.data as { turnId: string }).turnId);
  // `announced` makes the NOTIFY run: PostgreSQL skips a SELECT in WITH that nothing reads.
  const { rows } = await client.query<EventRow & { announced: unknown }>(
    `WITH left_inbox AS (
       DELETE FROM session_inbox WHERE session_id = $1 AND turn_id = ANY($6::text[]) AND cardinality($6::text[]) > 0
     ), left_answers AS (
       UPDATE client_tool_answers SET settled = true
        WHERE session_id = $1 AND NOT settled AND cardinality($6::text[]) > 0
          AND message_id IN (SELECT id FROM messages WHERE session_id = $1 AND turn_id = ANY($6::text[]))
     ), session AS (
       UPDATE sessions SET last_seq = last_seq + $2::int, updated_at = now(),
              status = CASE WHEN $5::text = 'idle' AND EXISTS (
                              SELECT 1 FROM session_inbox WHERE session_id = $1 AND NOT (turn_id = ANY($6::text[])))
                            THEN 'running' ELSE COALESCE($5::text, status) END
        WHERE id = $1 RETURNING last_seq
     ), inserted AS (
       INSERT INTO events (session_id, seq, type, data)
       SELECT $1, session.last_seq - $2::int + e.ordinality, e.type, e.data
         FROM session, ROWS FROM (jsonb_to_recordset($3::jsonb) AS (type text, data jsonb)) WITH ORDINALITY AS e(type, data, ordinality)
       RETURNING *
     ), notice AS (
       SELECT announce_session_events($4, $1, session.last_seq,
                (SELECT json_agg(json_build_array(i.seq, i.type, i.data) ORDER BY i.seq) FROM inserted i)) FROM session
     )
     SELECT inserted.*, (SELECT count(*) FROM notice) AS announced FROM inserted`,
    [sessionId, events.length, JSON.stringify(events), EVENTS_CHANNEL, options.status ?? null, ended],
  );
  if (rows.length === 0) throw new Error(`Session ${sessionId} does not exist`);
  return rows.sort((a, b) => a.seq - b.seq).map(({ announced: _announced, ...row }) => toSessionEvent(row));
}

/**
 * The events after `afterSeq`, in order, at most `limit`. A session's seqs have no gap, so the page is
 * exactly the seqs up to `afterSeq + limit`: saying so keeps the plan an index range scan even when the
 * statistics of a freshly written session would have PostgreSQL read and sort every row after `afterSeq`.
 */
export async function readEvents(db: Db | DbClient, sessionId: string, afterSeq: number, limit: number): Promise<SessionEvent[]> {
  const { rows } = await db.query<EventRow>(
    'SELECT * FROM events WHERE session_id = $1 AND seq > $2 AND seq <= $2 + $3 ORDER BY seq LIMIT $3',
    [sessionId, afterSeq, limit],
  );
  return rows.map(toSessionEvent);
}

/** The seq of the session's newest event (0 for a session that does not exist). */
export async function lastSeqOf(db: Db | DbClient, sessionId: string): Promise<number> {
  const { rows } = await db.query<{ last_seq: string | number }>('SELECT last_seq FROM sessions WHERE id = $1', [sessionId]);
  return rows[0] ? Number(rows[0].last_seq) : 0;
}

/** The seq of the session's first event of one of `types` whose data holds `match` (null when there is none). */
export async function seqOfEvent(
  db: Db | DbClient,
  sessionId: string,
  types: readonly string[],
  match: Readonly<Record<string, string | number>>,
): Promise<number | null> {
  const { rows } = await db.query<{ seq: string | number }>(
    'SELECT seq FROM events WHERE session_id = $1 AND type = ANY($2) AND data @> $3::jsonb ORDER BY seq LIMIT 1',
    [sessionId, types, JSON.stringify(match)],
  );
  return rows[0] ? Number(rows[0].seq) : null;
}

/**
 * Locks the session row for the rest of the transaction (as an append would) and tells whether the
 * session already has an event of one of `types` whose data holds `match` (e.g. `{ turnId }`, or
 * `{ runId, visit }`). Checking under the lock makes a retried or racing writer see what the other
 * committed: this is how every "write this event once" in the service is made, so a turn never gets
 * two terminal events and a retried activity never writes its event twice.
 * `goneAnswers` is the answer for a session that no longer exists (deleted with its user while a turn
 * ran): a writer with nothing left to record there says true, rather than failing on every retry.
 */
export async function lockedSessionHasEvent(
  client: DbClient,
  sessionId: string,
  types: readonly string[],
  match: Readonly<Record<string, string | number>>,
  goneAnswers = false,
): Promise<boolean> {
  const session = await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [sessionId]);
  if (!session.rowCount) return goneAnswers;
  return sessionHasEvent(client, sessionId, types, match);
}

/** Whether the session has an event of one of `types` whose data holds `match`, without a lock (see above). */
export async function sessionHasEvent(
  db: Db | DbClient,
  sessionId: string,
  types: readonly string[],
  match: Readonly<Record<string, string | number>>,
): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM events WHERE session_id = $1 AND type = ANY($2) AND data @> $3::jsonb LIMIT 1', [
    sessionId,
    types,
    JSON.stringify(match),
  ]);
  return (rowCount ?? 0) > 0;
}

/** Appends `event` unless the session already has one of its type whose data holds `match`; true if it did. */
export async function appendEventOnce(
  client: DbClient,
  sessionId: string,
  event: NewEvent,
  match: Readonly<Record<string, string | number>>,
): Promise<boolean> {
  if (await lockedSessionHasEvent(client, sessionId, [event.type], match)) return false;
  await appendEvents(client, sessionId, [event]);
  return true;
}

/** The last seq of each of these sessions: the event hub's safety poll, in one query for all of them. */
export async function lastSeqsOf(client: pg.ClientBase, sessionIds: readonly string[]): Promise<{ sessionId: string; lastSeq: number }[]> {
  const { rows } = await client.query<{ id: string; last_seq: string | number }>(
    'SELECT id, last_seq FROM sessions WHERE id = ANY($1::text[])',
    [sessionIds],
  );
  return rows.map((row) => ({ sessionId: row.id, lastSeq: Number(row.last_seq) }));
}
