// A parser of server-sent events (the WHATWG event-stream format) over a stream of bytes: lines end
// with LF, CR or CRLF; `id:`, `event:` and `data:` fields; lines starting with ':' are comments (the
// server's keep-alives); a blank line ends an event. Written here so the SDK needs no dependency.

export interface ServerSentEvent {
  /** The `id:` of this event, if it had one (the session event's seq). */
  id: string | undefined;
  /** The `event:` field; `message` when absent. */
  event: string;
  /** The `data:` lines joined with '\n'. */
  data: string;
}

/** Yields each complete event of `body`; an event cut off by the end of the stream is dropped. */
export async function* parseServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = emptyEvent();
  // A CR at the very end of a chunk may be the first half of a CRLF split across chunks.
  let skipLeadingLF = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      if (skipLeadingLF && buffer.startsWith('\n')) buffer = buffer.slice(1);
      skipLeadingLF = false;
      let start = 0;
      for (;;) {
        const lineEnd = nextLineEnd(buffer, start);
        if (lineEnd === -1) break;
        const line = buffer.slice(start, lineEnd);
        if (buffer[lineEnd] === '\r') {
          if (lineEnd + 1 === buffer.length) skipLeadingLF = true;
          start = buffer[lineEnd + 1] === '\n' ? lineEnd + 2 : lineEnd + 1;
        } else {
          start = lineEnd + 1;
        }
        if (line === '') {
          if (event.data !== undefined) yield { id: event.id, event: event.event ?? 'message', data: event.data };
          event = emptyEvent();
        } else {
          applyField(event, line);
        }
      }
      buffer = buffer.slice(start);
    }
  } finally {
    // Stops the body when the consumer stops early, so the connection is released.
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

interface PendingEvent {
  id: string | undefined;
  event: string | undefined;
  data: string | undefined;
}

function emptyEvent(): PendingEvent {
  return { id: undefined, event: undefined, data: undefined };
}

function nextLineEnd(buffer: string, from: number): number {
  for (let index = from; index < buffer.length; index++) {
    const char = buffer[index];
    if (char === '\n' || char === '\r') return index;
  }
  return -1;
}

function applyField(event: PendingEvent, line: string): void {
  if (line.startsWith(':')) return; // a comment: keep-alive
  const colon = line.indexOf(':');
  const field = colon === -1 ? line : line.slice(0, colon);
  let value = colon === -1 ? '' : line.slice(colon + 1);
  if (value.startsWith(' ')) value = value.slice(1);
  if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`;
  else if (field === 'event') event.event = value;
  else if (field === 'id' && !value.includes('\0')) event.id = value;
  // `retry:` and unknown fields are ignored: the SDK reconnects on its own schedule.
}
