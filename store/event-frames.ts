// A page of a session's events read as finished SSE text: PostgreSQL writes each frame and joins the
// page into one string, so a replay costs Node no JSON.parse, object, Date or JSON.stringify per
// event, only one string per page. This is the SQL twin of api/streaming/sse-frame.ts: a client must not be
// able to tell a replayed frame from a live one except by JSON whitespace.
//
// What each frame's data holds, and why it equals what toSessionEvent + JSON.stringify give:
// - data's own members in jsonb's order: the order JSON.parse of jsonb text yields today. jsonb
//   prints them with a space after ':' and ',' (valid JSON, the same members and values);
// - then seq, type, at, sessionId, as toSessionEvent appends them. A data member of one of those
//   names is dropped first, so the appended value wins as the spread lets it win today;
// - `at` as Date.prototype.toISOString prints it: UTC, milliseconds truncated from the stored
//   microseconds (pg's date parser hands Date fractional milliseconds, which Date truncates), for the
//   years 0 to 9999 that now() gives; to_char of a UTC timestamp ignores TimeZone and DateStyle;
// - type escaped by to_json, which escapes what JSON.stringify escapes; sessionId, the same in every
//   frame, escaped once per page by JSON.stringify itself.
// data is an object (NewEvent's types say so); anything else would add no members, as spreading a
// number, boolean or null does.
import type { Db, DbClient } from './db.ts';

export interface EventFramesPage {
  /** The frames of the page's events, in seq order; '' for an empty page. */
  text: string;
  /** Events in the page. */
  count: number;
  /** The seq of the page's last event; the `afterSeq` asked for when the page is empty. */
  lastSeq: number;
}

/** Members toSessionEvent sets over data's. */
const OWN_MEMBERS = `ARRAY['seq', 'type', 'at', 'sessionId']`;

const DATA_TEXT = `(CASE WHEN jsonb_typeof(data) <> 'object' THEN '{}'::jsonb
                         WHEN data ?| ${OWN_MEMBERS} THEN data - ${OWN_MEMBERS}
                         ELSE data END)::text`;

const FRAME = `'id: ' || seq || E'\\nevent: ' || type || E'\\ndata: '
  || CASE WHEN data_text = '{}' THEN '{' ELSE left(data_text, -1) || ', ' END
  || '"seq": ' || seq
  || ', "type": ' || to_json(type)::text
  || ', "at": "' || to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  || '", "sessionId": ' || $4 || E'}\\n\\n'`;

// The upper bound `seq <= $2 + $3` names the page's rows exactly, because a session's seqs have no gap
// (appendEvents and appendDeltaBatch number them under the session row's lock; the session tail relies
// on the same). It keeps the plan cheap whatever the statistics say: without it, a freshly written big
// session is estimated at a few rows, and PostgreSQL fetches and sorts every row after $2 for each page.
const PAGE_QUERY = `
SELECT count(*)::int AS count, max(seq) AS last_seq, coalesce(string_agg(${FRAME}, '' ORDER BY seq), '') AS text
  FROM (SELECT seq, type, at, ${DATA_TEXT} AS data_text
          FROM events WHERE session_id = $1 AND seq > $2 AND seq <= $2 + $3
         ORDER BY seq LIMIT $3) page`;

/** The SSE frames of the events of `sessionId` with a seq above `afterSeq`, in order, at most `limit`. */
export async function readEventFrames(db: Db | DbClient, sessionId: string, afterSeq: number, limit: number): Promise<EventFramesPage> {
  const { rows } = await db.query<{ count: number; last_seq: number | null; text: string }>({
    // Prepared once per connection: a replay runs this once per page.
    name: 'read-event-frames',
    text: PAGE_QUERY,
    values: [sessionId, afterSeq, limit, JSON.stringify(sessionId)],
  });
  const row = rows[0]!;
  return { text: row.text, count: row.count, lastSeq: row.last_seq ?? afterSeq };
}
