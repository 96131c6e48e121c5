// One SSE frame per event. Frames are cached per event object: an event a session's tail hands to
// every reader of that session is serialized once, however many streams write it. A replay's pages
// are framed by PostgreSQL instead (store/event-frames.ts): a change to the frame belongs in both.
import type { SessionEvent } from '../../contract/events.ts';

const frames = new WeakMap<SessionEvent, string>();

export function sseFrame(event: SessionEvent): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    // JSON.stringify escapes line breaks inside strings, so the data is always one line.
    frame = `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}
