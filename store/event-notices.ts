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

/**
 * What a notice says. Its events are dropped, and it is only a wake, when they cannot be read (a newer
 * writer's form, or anything else a NOTIFY on the channel may carry); without a colon its id is the payload.
 */
export function parseEventNotice(payload: string): EventNotice {
  const newline = payload.indexOf('\n');
  const head = newline === -1 ? payload : payload.slice(0, newline);
  const colon = head.lastIndexOf(':');
  const id = noticeId(payload);
  const lastSeq = colon === -1 ? NaN : Number(head.slice(colon + 1));
  if (newline === -1) return { id, lastSeq };
  const events = readEvents(id, payload.slice(newline + 1));
  return events ? { id, lastSeq, events } : { id, lastSeq };
}

/** The session (or approval) a notice names, read alone: what a listener checks before reading more of it. */
export function noticeId(payload: string): string {
  const newline = payload.indexOf('\n');
  const head = newline === -1 ? payload : payload.slice(0, newline);
  const colon = head.lastIndexOf(':');
  return colon === -1 ? head : head.slice(0, colon);
}

function readEvents(id: string, base64: string): SessionEvent[] | undefined {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  const { at, events } = (body ?? {}) as Partial<NoticeBody>;
  if (typeof at !== 'string' || !Array.isArray(events) || events.length === 0) return undefined;
  const read: SessionEvent[] = [];
  for (const entry of events as unknown[]) {
    if (!Array.isArray(entry)) return undefined;
    const [seq, type, data] = entry as unknown[];
    if (!Number.isSafeInteger(seq) || typeof type !== 'string' || typeof data !== 'object' || data === null) return undefined;
    read.push(sessionEvent(id, seq as number, type, at, data as Record<string, unknown>));
  }
  return read;
}
