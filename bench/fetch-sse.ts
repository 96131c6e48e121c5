// The raw `fetch` SSE reader the SDK's streams are measured against: the body's bytes decoded and
// split into frames by hand, each event parsed and stamped as the read that completed it returns.
// No reconnection, no filtering, no typing: the least a program reading the service's SSE can do.
import type { SessionEvent } from '../contract/events.ts';

/** Reads `body` to its end (or until `onEvent` answers true, then cancels it); resolves with the count. */
export async function readFetchSse(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: SessionEvent, at: number) => boolean | void,
): Promise<number> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let count = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return count;
      const at = performance.now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        // Keep-alive comments have no data line; the service's data is one line of JSON.
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        if (!data) continue;
        count++;
        if (onEvent(JSON.parse(data.slice('data: '.length)) as SessionEvent, at) === true) {
          await reader.cancel();
          return count;
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}
