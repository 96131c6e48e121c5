// The newest events of many sessions in one query: what the API's session tails read when the events
// of one moment wake them together (one worker transaction commits the deltas of many streams and
// NOTIFYs each session at once). Each session's page is its readEvents page: the seqs after its
// position, in order, at most its limit, exactly the seqs up to position + limit since they have no gap.
import type { Db } from './db.ts';
import { toSessionEvent, type EventRow } from './events.ts';
import type { SessionEvent } from '../contract/events.ts';

export interface TailRead {
  sessionId: string;
  afterSeq: number;
  limit: number;
}

/** One page per request, in the order asked. A session may be asked for more than once. */
export async function readTails(db: Db, reads: readonly TailRead[]): Promise<SessionEvent[][]> {
  if (reads.length === 0) return [];
  const { rows } = await db.query<EventRow & { request: number }>(
    `SELECT w.request, e.*
       FROM unnest($1::text[], $2::bigint[], $3::int[]) WITH ORDINALITY AS w(session_id, after_seq, max_rows, request)
       CROSS JOIN LATERAL (
         SELECT * FROM events
          WHERE session_id = w.session_id AND seq > w.after_seq AND seq <= w.after_seq + w.max_rows
          ORDER BY seq LIMIT w.max_rows
       ) e
      ORDER BY w.request, e.seq`,
    [reads.map((read) => read.sessionId), reads.map((read) => read.afterSeq), reads.map((read) => read.limit)],
  );
  const pages = reads.map((): SessionEvent[] => []);
  for (const { request, ...row } of rows) pages[Number(request) - 1]!.push(toSessionEvent(row));
  return pages;
}
