// A minimal SSE client that timestamps each event as its bytes arrive: the frames of one network
// read all get the time of that read, which is when a browser's EventSource could have seen them.
import http from 'node:http';
import type { SessionEvent } from '../contract/events.ts';

export interface SseReader {
  /** Resolves once the answer's headers are in: the stream is subscribed from here on. */
  opened: Promise<void>;
  /** Resolves after the first event for which `until` holds (then the reader disconnects). */
  done: Promise<void>;
  close(): void;
}

export function readSse(
  url: string,
  headers: http.OutgoingHttpHeaders,
  options: { onEvent(event: SessionEvent, at: number): void; until(event: SessionEvent): boolean; timeoutMs: number },
): SseReader {
  let request: http.ClientRequest | undefined;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(timer);
    request?.destroy();
  };
  let markOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (markOpened = resolve));
  const done = new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      close();
      reject(error);
    };
    timer = setTimeout(
      () => fail(new Error(`GET ${url}: the awaited event did not arrive within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    request = http.get(url, { headers: { ...headers, accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        fail(new Error(`GET ${url} answered ${response.statusCode}`));
        return;
      }
      markOpened();
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          // Comments (keep-alives) have no data line; the service's data is always one line of JSON.
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (!data) continue;
          const event = JSON.parse(data.slice('data: '.length)) as SessionEvent;
          options.onEvent(event, at);
          if (options.until(event)) {
            close();
            resolve();
            return;
          }
        }
      });
      response.on('end', () => fail(new Error(`GET ${url}: the stream ended before the awaited event`)));
      response.on('error', fail);
    });
    // After a resolve, the errors of our own disconnect land on a settled promise and change nothing.
    request.on('error', fail);
  });
  // Rejections are delivered to whoever awaits `done`; `opened` must not hang if the stream fails.
  done.catch(() => markOpened());
  return { opened, done, close };
}
