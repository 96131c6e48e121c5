// Parsing a Server-Sent Events body from a fetch Response, as a client would, following the
// WHATWG parsing rules (any line ending, `:` comments, multi-line data, one optional space after `:`).

export interface SseEvent {
  /** The `id` field of this event, when it had one (not carried over from earlier events). */
  id?: string;
  /** The `event` field; absent means the default `message`. */
  event?: string;
  /** The `data` lines, joined with '\n'. */
  data: string;
  /** The `retry` field, when it was a number. */
  retry?: number;
}

type ByteReader = ReadableStreamDefaultReader<Uint8Array>;

/**
 * The events of an SSE body, in order. Breaking out of the loop cancels the body, which closes the
 * connection: never-ending streams can be read this way. As in browsers, a block without `data` lines
 * is not an event (its `id` and `retry` are not reported), and an unterminated last event is dropped.
 */
export function readSse(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) throw new Error('readSse: the response has no body');
  return eventsOf(response.body.getReader());
}

/**
 * Reads events until one satisfies `until` (included) and returns them all, cancelling the rest of
 * the body. Without `until`, reads to the end. Fails if the body ends before `until` matched, or after
 * `timeoutMs` (default 10 s); both errors list what did arrive.
 */
export async function collectSse(
  response: Response,
  until?: (event: SseEvent) => boolean,
  options: { timeoutMs?: number } = {},
): Promise<SseEvent[]> {
  if (!response.body) throw new Error('collectSse: the response has no body');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const reader = response.body.getReader();
  const events: SseEvent[] = [];
  let timedOut = false;
  // Cancelling the reader ends a pending read, so the loop below stops instead of hanging.
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => undefined);
  }, timeoutMs);
  try {
    for await (const event of eventsOf(reader)) {
      events.push(event);
      if (until?.(event)) return events;
    }
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) throw new Error(`collectSse: timed out after ${timeoutMs} ms; got ${JSON.stringify(events)}`);
  if (until) throw new Error(`collectSse: the stream ended before the awaited event; got ${JSON.stringify(events)}`);
  return events;
}

async function* eventsOf(reader: ByteReader): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: { id?: string; event?: string; retry?: number; data: string[] } = { data: [] };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (!match) break;
        // A '\r' at the very end may be the first half of a '\r\n' that the next chunk completes.
        if (match[0] === '\r' && match.index === buffer.length - 1 && !done) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          const { data, ...fields } = event;
          if (data.length > 0) yield { ...fields, data: data.join('\n') };
          event = { data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let text = colon === -1 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) text = text.slice(1);
        if (field === 'data') event.data.push(text);
        else if (field === 'event') event.event = text;
        else if (field === 'id' && !text.includes('\0')) event.id = text;
        else if (field === 'retry' && /^\d+$/.test(text)) event.retry = Number(text);
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
