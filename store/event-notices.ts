// Reads what the session_events channel carries (written by the SQL function announce_session_events,
// schema/migrations/0018_event_notices.sql): `<id>:<lastSeq>`, and for an append whose events fit in
// the notice, a newline and {"at", "events": [[seq, type, data], ...]} in base64. The events are built exactly
// as a read of their rows builds them (store/events.ts sessionEvent), so a reader cannot tell a
// pushed event from a read one.
import { sessionEvent } from './events.ts';
import type { SessionEvent } from '../contract/events.ts';

export interface EventNotice {
  /** The session (or approval) announced. */
  id: string;
  /** The session's last seq after the append; NaN when the notice names none. */
  lastSeq: number;
  /** The appended events in seq order, when the notice carries them. */
  events?: SessionEvent[];
}

interface NoticeBody {
  at: string;
  events: Array<[number, string, Record<string, unknown>]>;
}

/** Undefined for a payload this version cannot read (from a newer writer, say): then it is only a wake. */
export function parseEventNotice(payload: string): EventNotice | undefined {
  const newline = payload.indexOf('\n');
  const head = newline === -1 ? payload : payload.slice(0, newline);
  const colon = head.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const id = head.slice(0, colon);
  const lastSeq = Number(head.slice(colon + 1));
  if (newline === -1) return { id, lastSeq };
  let body: NoticeBody;
  try {
    body = JSON.parse(Buffer.from(payload.slice(newline + 1), 'base64').toString('utf8')) as NoticeBody;
  } catch {
    return { id, lastSeq };
  }
  if (typeof body?.at !== 'string' || !Array.isArray(body.events)) return { id, lastSeq };
  return { id, lastSeq, events: body.events.map(([seq, type, data]) => sessionEvent(id, seq, type, body.at, data)) };
}
