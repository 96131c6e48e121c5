// The idle SSE readers of bench/idle-streams.bench.ts: thousands of `GET /session/<id>/events`
// streams held open from one process, each reading and discarding what comes (replayed events,
// `: keep-alive` comments) and counting it. One http.Agent with no socket limit carries them all,
// so opening is paced here (a fixed number in flight), not by the agent's queue. A stream that ends
// or fails while held is counted, by error code: an EMFILE on either side shows up here.
import http from 'node:http';

interface Reader {
  sessionId: string;
  request: http.ClientRequest;
  /** Bytes after the last complete frame. */
  pending: string;
  heartbeats: number;
  events: number;
  closedByUs: boolean;
}

export interface OpenResult {
  opened: number;
  /** Streams that did not open, by error code or HTTP status. */
  failures: Record<string, number>;
  ms: number;
}

export interface IdleReaders {
  /** Opens one stream per url, `concurrency` at a time; resolves once each has its headers or has failed. */
  open(targets: ReadonlyArray<{ sessionId: string; url: string }>, concurrency: number): Promise<OpenResult>;
  /** Streams open now. */
  count(): number;
  heartbeats(): { total: number; readersWithNone: number };
  /** Events read so far (a fresh session's replay included). */
  events(): number;
  /** Streams that ended or failed after they opened, without our closing them, by cause. */
  dropped(): Record<string, number>;
  /** Resolves when every reader of `sessionId` has seen an event of type `type`; rejects after `timeoutMs`. */
  allSee(sessionId: string, type: string, timeoutMs: number): Promise<number>;
  /** Destroys every stream's socket. */
  close(): void;
}

const OPEN_TIMEOUT_MS = 60_000;

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

export function idleReaders(headers: http.OutgoingHttpHeaders): IdleReaders {
  // Streams never end on their own, so keep-alive never reuses a socket; no limit on sockets is what matters.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const readers = new Set<Reader>();
  const dropped: Record<string, number> = {};
  /** Per session, the readers that have seen each event type, for allSee. */
  const seen = new Map<string, Map<string, Set<Reader>>>();
  const watchers = new Set<() => void>();

  const note = (reader: Reader, frame: string) => {
    if (frame.startsWith(':')) {
      reader.heartbeats++;
      return;
    }
    const type = frame
      .split('\n')
      .find((line) => line.startsWith('event: '))
      ?.slice('event: '.length);
    if (type === undefined) return;
    reader.events++;
    let byType = seen.get(reader.sessionId);
    if (!byType) seen.set(reader.sessionId, (byType = new Map()));
    let who = byType.get(type);
    if (!who) byType.set(type, (who = new Set()));
    who.add(reader);
    for (const watcher of [...watchers]) watcher();
  };

  const openOne = (sessionId: string, url: string) =>
    new Promise<string | undefined>((resolve) => {
      let settled = false;
      const settle = (failure: string | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(failure);
      };
      const request = http.get(url, { agent, headers: { ...headers, accept: 'text/event-stream' } });
      const reader: Reader = { sessionId, request, pending: '', heartbeats: 0, events: 0, closedByUs: false };
      const timer = setTimeout(() => {
        request.destroy();
        settle('open-timeout');
      }, OPEN_TIMEOUT_MS);
      const lost = (cause: string) => {
        if (!readers.delete(reader) || reader.closedByUs) return;
        bump(dropped, cause);
      };
      request.on('error', (error: NodeJS.ErrnoException) => {
        settle(error.code ?? error.message);
        lost(error.code ?? error.message);
      });
      request.on('response', (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          request.destroy();
          settle(`HTTP ${response.statusCode}`);
          return;
        }
        readers.add(reader);
        settle(undefined);
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          reader.pending += chunk;
          for (let end = reader.pending.indexOf('\n\n'); end !== -1; end = reader.pending.indexOf('\n\n')) {
            note(reader, reader.pending.slice(0, end));
            reader.pending = reader.pending.slice(end + 2);
          }
        });
        response.on('end', () => lost('ended'));
        response.on('error', (error: NodeJS.ErrnoException) => lost(error.code ?? error.message));
      });
    });

  return {
    async open(targets, concurrency) {
      const started = performance.now();
      const failures: Record<string, number> = {};
      let next = 0;
      let opened = 0;
      const lane = async () => {
        while (next < targets.length) {
          const { sessionId, url } = targets[next++]!;
          const failure = await openOne(sessionId, url);
          if (failure === undefined) opened++;
          else bump(failures, failure);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, lane));
      return { opened, failures, ms: Math.round(performance.now() - started) };
    },
    count: () => readers.size,
    heartbeats() {
      let total = 0;
      let readersWithNone = 0;
      for (const reader of readers) {
        total += reader.heartbeats;
        if (reader.heartbeats === 0) readersWithNone++;
      }
      return { total, readersWithNone };
    },
    events() {
      let total = 0;
      for (const reader of readers) total += reader.events;
      return total;
    },
    dropped: () => ({ ...dropped }),
    allSee(sessionId, type, timeoutMs) {
      const started = performance.now();
      const readersOf = () => [...readers].filter((reader) => reader.sessionId === sessionId);
      const done = () => {
        const who = seen.get(sessionId)?.get(type);
        return readersOf().every((reader) => who?.has(reader));
      };
      return new Promise<number>((resolve, reject) => {
        const check = () => {
          if (!done()) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve(readersOf().length);
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          const count = seen.get(sessionId)?.get(type)?.size ?? 0;
          reject(
            new Error(
              `${count} of ${readersOf().length} readers of ${sessionId} saw ${type} within ${Math.round(performance.now() - started)} ms`,
            ),
          );
        }, timeoutMs);
        watchers.add(check);
        check();
      });
    },
    close() {
      for (const reader of readers) {
        reader.closedByUs = true;
        reader.request.destroy();
      }
      readers.clear();
      agent.destroy();
    },
  };
}
