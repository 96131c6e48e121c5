// One round of bench/concurrent-streams.bench.ts against either server (the service, or the
// in-memory relay): N streams, readers opened first, then all N sends at once; the fake model
// streams each stream's own tokens and notes when it wrote each one, the readers note when each
// delta arrived. Both clocks are performance.now() of this process. The same code measures both
// servers, so the only difference between the two figures is the server.
import http from 'node:http';
import { TERMINAL_TURN_EVENTS, type SessionEvent } from '../contract/events.ts';
import type { FakeScript } from '../test/helpers/fakes/fake-model.ts';
import { cpuSnapshot, cpuSpent } from './cpu-meter.ts';
import { readSse, type SseReader } from './sse-reader.ts';

/** A server the round streams through. */
export interface StreamTarget {
  /** Fresh stream ids (sessions), one per stream of a round; not part of the measurement. */
  open(count: number): Promise<string[]>;
  /** Where a reader of `id` subscribes to what happens from now on. */
  eventsUrl(id: string): Promise<string>;
  headers: http.OutgoingHttpHeaders;
  /** Starts the stream of `id`; answers the turn id its terminal event will name. */
  send(agent: http.Agent, id: string, text: string): Promise<string>;
  /** The server's processes, whose CPU use over the round is reported. */
  pids: Record<string, number>;
}

export interface RoundOptions {
  streams: number;
  tokens: number;
  chunkDelayMs: number;
  /** Makes the round's texts unique, so no script answers another round's request. */
  tag: string;
  /** Scripts by user text: the fake's handler answers each request with the one its text names. */
  scripts: Map<string, FakeScript>;
  /** Also time each token to its event's stored `at` (transaction start): needs the database's clock to be this machine's. */
  storedAt: boolean;
  timeoutMs: number;
}

export interface RoundResult {
  /** Per token, every stream: reader's receipt of the delta completing it minus the fake's write. */
  lags: number[];
  /**
   * The lags of the tokens written once every stream had begun (after the last stream's first token):
   * the streaming path alone, with no turn being started meanwhile. Starting N turns at once costs
   * the machine far more than streaming them (Temporal's workflow and activity tasks), and the tokens
   * of the streams already running during that burst make the tail of `lags`.
   */
  steadyLags: number[];
  /** Per stream: terminal event at the reader minus the fake's write of the last token. */
  endLags: number[];
  deltaEvents: number[];
  /** Between the first stream's first token and the last stream's first token: how far the streams really overlapped. */
  startSpreadMs: number;
  /** From the first send to the last terminal event. */
  wallMs: number;
  /** Most streams whose fake was streaming at one moment (first to last token). */
  peakConcurrentStreams: number;
  /** CPU time over wall time during the round, per process and for the whole machine (1 = one core busy throughout). */
  cores: Record<string, number | undefined>;
  /** Per token, when `storedAt`: until its event's write transaction began, and from then to the reader. */
  untilWriteTransaction?: number[];
  fromWriteTransactionToReader?: number[];
}

interface Stream {
  id: string;
  tokens: string[];
  sentAt: number[];
  arrivals: Array<{ delta: string; at: number; storedAt: string }>;
  end?: SessionEvent;
  endAt?: number;
  retried: boolean;
  reader?: SseReader;
}

/** The most intervals that hold one moment: starts +1, ends -1, in time order (an end before a start at the same time). */
function peakOverlap(intervals: Array<[number, number]>): number {
  const edges = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]);
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (open += step!));
  return peak;
}

/** Token i is complete once the deltas so far reach its last character. */
function tokenArrivals(stream: Stream): Array<{ at: number; storedAt: string }> {
  const completed: Array<{ at: number; storedAt: string }> = [];
  let received = 0;
  let tokenEnd = 0;
  for (const arrival of stream.arrivals) {
    received += arrival.delta.length;
    while (completed.length < stream.tokens.length && tokenEnd + stream.tokens[completed.length]!.length <= received) {
      tokenEnd += stream.tokens[completed.length]!.length;
      completed.push(arrival);
    }
  }
  return completed;
}

export async function streamRound(target: StreamTarget, options: RoundOptions): Promise<RoundResult> {
  const ids = await target.open(options.streams);
  const urls = await Promise.all(ids.map((id) => target.eventsUrl(id)));
  const streams: Stream[] = ids.map((id, index) => {
    const stream: Stream = {
      id,
      tokens: Array.from({ length: options.tokens }, (_, token) => `${options.tag}s${index}t${token} `),
      sentAt: [],
      arrivals: [],
      retried: false,
    };
    options.scripts.set(`stream ${options.tag} ${index}`, {
      text: stream.tokens,
      chunkDelayMs: options.chunkDelayMs,
      onChunk: (position, at) => (stream.sentAt[position] = at),
    });
    return stream;
  });
  // One socket per stream, so that no send queues behind another's.
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.streams });
  try {
    for (const [index, stream] of streams.entries()) {
      stream.reader = readSse(urls[index]!, target.headers, {
        onEvent(event, at) {
          if (event.type === 'message.part.delta') stream.arrivals.push({ delta: event.delta, at, storedAt: event.at });
          if (event.type === 'step.retry') stream.retried = true;
          if (TERMINAL_TURN_EVENTS.includes(event.type)) {
            stream.end = event;
            stream.endAt = at;
          }
        },
        until: (event) => TERMINAL_TURN_EVENTS.includes(event.type),
        timeoutMs: options.timeoutMs,
      });
    }
    await Promise.all(streams.map((stream) => stream.reader!.opened));

    // Wall clock minus this process's clock: the stored `at` is wall-clock time.
    const wallOffset = Date.now() - performance.now();
    const cpuBefore = cpuSnapshot(target.pids);
    const started = performance.now();
    const turnIds = await Promise.all(streams.map((stream, index) => target.send(agent, stream.id, `stream ${options.tag} ${index}`)));
    await Promise.all(streams.map((stream) => stream.reader!.done));
    const wallMs = performance.now() - started;
    const cpuAfter = cpuSnapshot(target.pids);
    const cores: Record<string, number | undefined> = {};
    for (const [name, spent] of Object.entries(cpuSpent(cpuBefore, cpuAfter, wallMs))) {
      cores[name] = spent === undefined ? undefined : Math.round(spent * 100) / 100;
    }

    const result: RoundResult = {
      lags: [],
      steadyLags: [],
      endLags: [],
      deltaEvents: [],
      startSpreadMs: 0,
      peakConcurrentStreams: 0,
      wallMs,
      cores,
    };
    if (options.storedAt) {
      result.untilWriteTransaction = [];
      result.fromWriteTransactionToReader = [];
    }
    const allStreaming = Math.max(...streams.map((stream) => stream.sentAt[0] ?? Infinity));
    for (const [index, stream] of streams.entries()) {
      const end = stream.end;
      if (end?.type !== 'turn.completed' || end.turnId !== turnIds[index])
        throw new Error(`stream ${index} ended with ${JSON.stringify(end)}`);
      // A retried step streams its text again: its timings would not be of one stream.
      if (stream.retried) throw new Error(`stream ${index}: the model step was retried`);
      const text = stream.arrivals.map((arrival) => arrival.delta).join('');
      if (text !== stream.tokens.join(''))
        throw new Error(`stream ${index}: the deltas do not add up to the streamed text (${text.length} characters)`);
      if (stream.sentAt.length !== options.tokens) throw new Error(`stream ${index}: the fake reported ${stream.sentAt.length} chunks`);
      const arrivals = tokenArrivals(stream);
      for (const [token, arrival] of arrivals.entries()) {
        const sentAt = stream.sentAt[token]!;
        result.lags.push(arrival.at - sentAt);
        if (sentAt > allStreaming) result.steadyLags.push(arrival.at - sentAt);
        if (options.storedAt) {
          const stored = Date.parse(arrival.storedAt) - wallOffset;
          result.untilWriteTransaction!.push(stored - sentAt);
          result.fromWriteTransactionToReader!.push(arrival.at - stored);
        }
      }
      result.endLags.push(stream.endAt! - stream.sentAt[options.tokens - 1]!);
      result.deltaEvents.push(stream.arrivals.length);
    }
    const firsts = streams.map((stream) => stream.sentAt[0]!);
    result.startSpreadMs = Math.max(...firsts) - Math.min(...firsts);
    result.peakConcurrentStreams = peakOverlap(streams.map((stream) => [stream.sentAt[0]!, stream.sentAt[options.tokens - 1]!]));
    return result;
  } finally {
    for (const stream of streams) stream.reader?.close();
    options.scripts.clear();
    agent.destroy();
  }
}
