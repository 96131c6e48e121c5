// What every fake model server shares, whatever wire format it speaks: scripts queued by a test (or
// chosen by a handler), each request recorded with whether its connection was cut, and the script's
// delays, holds, stalls and error statuses. A wire (fake-model.ts for Chat Completions, fake-anthropic.ts
// for Anthropic's Messages API) routes requests and writes the answer in its own format, so the
// provider code under test parses exactly what it would parse from the real service.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FakeToolCall {
  /** Defaults to a unique id in the wire's own form (`call_fake_N`, `toolu_fake_N`). */
  id?: string;
  name: string;
  /** Sent as JSON; a string is sent verbatim, so malformed arguments can be tested too. */
  arguments: unknown;
}

export interface FakeUsage {
  /** Input tokens in all; those read from or written to a prompt cache are counted in it too. */
  promptTokens: number;
  completionTokens: number;
  /** Sent as `usage.cost`, the way OpenRouter reports it. */
  cost?: number;
  /** Input tokens read from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens?: number;
}

export interface FakeScript {
  /** The reply. A string is streamed word by word; an array gives the exact streamed chunks. */
  text?: string | string[];
  /** Streamed as reasoning (`delta.reasoning_content`, or a thinking block) before the text. */
  reasoning?: string | string[];
  /** Delay before each streamed chunk but the first. */
  chunkDelayMs?: number;
  /** Delay before anything is answered (headers included). */
  delayMs?: number;
  /** Answer nothing (headers included) until this settles: a test decides when the reply comes. */
  holdUntil?: Promise<unknown>;
  /** Streamed as tool calls: the name first, then the arguments in a few fragments. */
  toolCalls?: FakeToolCall[];
  /** Defaults to an estimate from the lengths of the messages and the reply. */
  usage?: FakeUsage;
  /** Defaults to 'tool_calls' when there are tool calls, else 'stop' (each wire says it its own way). */
  finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  /** 400 or more answers with an error instead of a completion. */
  status?: number;
  /** Defaults to the wire's error shape; a string is sent verbatim as text/plain. */
  errorBody?: unknown;
  /**
   * Stream that many content chunks (text, reasoning and tool-call fragments), then hang with the
   * socket open until the client disconnects or the server closes. The finish chunk is never sent.
   * On a non-streaming request, hang before answering at all.
   */
  stallAfterChunks?: number;
  /**
   * Stream the text chunks over and over, never finishing, until the client disconnects or the server
   * closes: a provider that streams without end. `chunkDelayMs` paces it (a macrotask at least).
   */
  endless?: boolean;
  /**
   * After that many content chunks, the stream ends with the provider's error event of this status
   * (an overload in the middle of a reply) instead of its finish. Wires that have no such event ignore it.
   */
  streamError?: { afterChunks: number; status: number; message?: string };
  /** Extra response headers, e.g. `retry-after`. */
  headers?: Record<string, string>;
  /**
   * Called just after each streamed content chunk is handed to the socket, with its 0-based
   * position (counted like `stallAfterChunks`) and `performance.now()`, so a benchmark can time
   * each chunk from the moment it left the fake.
   */
  onChunk?: (index: number, at: number) => void;
}

export interface ScriptedRequest<Body> {
  /** 0-based position in `requests`. */
  index: number;
  method: string;
  /** As requested, query string included. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Body;
  receivedAt: number;
  /** The script that answered, once chosen. */
  script?: FakeScript;
  /** The connection closed before the response was complete (client abort, or close() while stalled). */
  aborted: boolean;
  /** The response was written to the end. */
  completed: boolean;
}

export type ScriptedHandler<Body> = (request: ScriptedRequest<Body>) => FakeScript | Promise<FakeScript>;

export interface ScriptedServer<Body> {
  /** `http://127.0.0.1:PORT/v1`, the provider's `baseURL`. */
  readonly baseUrl: string;
  readonly port: number;
  /** Completion requests, in arrival order (other paths are not recorded). */
  readonly requests: readonly ScriptedRequest<Body>[];
  /** How many completion responses were cut off by a closed connection. */
  readonly disconnects: number;
  /** Queue scripts for the next requests, first in first out. The queue wins over the handler. */
  enqueue(...scripts: FakeScript[]): void;
  /** Decide the reply per request when the queue is empty; `undefined` removes the handler. */
  setHandler(handler: ScriptedHandler<Body> | undefined): void;
  /** Resolves with the first `count` requests once that many have arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ScriptedRequest<Body>[]>;
  /** Resolves once `count` responses have been cut off by a closed connection. */
  waitForDisconnects(count: number, timeoutMs?: number): Promise<void>;
  /**
   * Play a model with this context window: a request whose prompt is estimated past it (promptTokens) is
   * refused with the provider's own context-length error, before any script. `undefined`: no limit.
   */
  setContextWindow(tokens: number | undefined): void;
  /** Forget the queue, the handler and the recorded requests, for a fake shared between tests. */
  reset(): void;
  /** Stops listening and destroys every open socket, stalled streams included. */
  close(): Promise<void>;
}

/** How one wire format routes, refuses and answers. */
export interface Wire<Body> {
  /** Its name in messages ("Fake model", "Fake Anthropic"). */
  name: string;
  /**
   * Answers a request that is not a completion (e.g. a model list) and returns true; false for the
   * completion route, which the server then records and answers with a script.
   */
  other(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  /** The wire's error body for a status. */
  errorBody(status: number, message: string): unknown;
  /** What of a request its input tokens are estimated from (as composeReply sizes them). */
  promptOf(body: Body): unknown;
  /** The provider's refusal of a prompt of `tokens` past a window of `window`. */
  tooLong(tokens: number, window: number): FakeScript;
  /** Answers a completion with its script (no error status, no delay or hold left). `nextId` numbers ids. */
  answer(res: ServerResponse, request: ScriptedRequest<Body>, script: FakeScript, gone: AbortSignal, nextId: () => number): Promise<void>;
}

export interface ScriptedServerOptions {
  /** Defaults to a free port. */
  port?: number;
  /** The reply when neither the queue nor a handler gives one. Defaults to `{ text: 'ok' }`. */
  defaultScript?: FakeScript;
  /** See ScriptedServer.setContextWindow. */
  contextWindow?: number;
}

/** A prompt's input tokens as the fakes count them: four characters of its JSON to a token. */
export function promptTokens(prompt: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(prompt ?? []).length / 4));
}

export async function startScriptedServer<Body>(wire: Wire<Body>, options: ScriptedServerOptions = {}): Promise<ScriptedServer<Body>> {
  const defaultScript = options.defaultScript ?? { text: 'ok' };
  const queue: FakeScript[] = [];
  const requests: ScriptedRequest<Body>[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  let handler: ScriptedHandler<Body> | undefined;
  let contextWindow = options.contextWindow;
  let sequence = 0;
  let closed: Promise<void> | undefined;

  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/^\/v1(?=\/)/, '');
    if (wire.other(req, res, path)) return;
    if (req.method !== 'POST') return sendJson(res, 405, wire.errorBody(405, `${req.method} is not allowed here`));

    let body: Body;
    try {
      body = JSON.parse(await readBody(req)) as Body;
    } catch {
      return sendJson(res, 400, wire.errorBody(400, 'The request body is not valid JSON'));
    }
    const record: ScriptedRequest<Body> = {
      index: requests.length,
      method: req.method,
      path: req.url ?? '/',
      headers: flattenHeaders(req),
      body,
      receivedAt: Date.now(),
      aborted: false,
      completed: false,
    };
    requests.push(record);
    // 'close' also follows a complete response; only an unfinished one means the peer went away.
    const gone = new AbortController();
    res.on('close', () => {
      if (res.writableFinished) record.completed = true;
      else record.aborted = true;
      gone.abort();
      notify();
    });
    notify();

    const tokens = promptTokens(wire.promptOf(body));
    const script =
      contextWindow !== undefined && tokens > contextWindow
        ? wire.tooLong(tokens, contextWindow)
        : (queue.shift() ?? (handler ? await handler(record) : defaultScript));
    record.script = script;
    if (script.delayMs && !(await pause(script.delayMs, gone.signal))) return;
    if (
      script.holdUntil &&
      !(await Promise.race([
        script.holdUntil.then(
          () => true,
          () => true,
        ),
        hang(gone.signal).then(() => false),
      ]))
    )
      return;
    if (script.status !== undefined && script.status >= 400) {
      const errorBody = script.errorBody ?? wire.errorBody(script.status, `Fake error ${script.status}`);
      return sendJson(res, script.status, errorBody, script.headers);
    }
    return wire.answer(res, record, script, gone.signal, () => ++sequence);
  }

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, wire.errorBody(500, `${wire.name} failed: ${String(error)}`));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  function waitFor<T>(check: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(attempt);
        reject(new Error(describe()));
      }, timeoutMs);
      const attempt = () => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(attempt);
        resolve(value);
      };
      waiters.add(attempt);
      attempt();
    });
  }

  const countDisconnects = () => requests.filter((request) => request.aborted).length;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    get disconnects() {
      return countDisconnects();
    },
    enqueue(...scripts) {
      queue.push(...scripts);
    },
    setHandler(next) {
      handler = next;
    },
    setContextWindow(tokens) {
      contextWindow = tokens;
    },
    waitForRequests(count, timeoutMs = 5000) {
      return waitFor(
        () => (requests.length >= count ? requests.slice(0, count) : undefined),
        timeoutMs,
        () => `${wire.name}: expected ${count} request(s) within ${timeoutMs} ms, got ${requests.length}`,
      );
    },
    waitForDisconnects(count, timeoutMs = 5000) {
      return waitFor(
        () => (countDisconnects() >= count ? true : undefined),
        timeoutMs,
        () => `${wire.name}: expected ${count} disconnect(s) within ${timeoutMs} ms, got ${countDisconnects()}`,
      ).then(() => undefined);
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      handler = undefined;
      contextWindow = options.contextWindow;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}

/** A scripted reply as the wires stream it: text pieces, reasoning pieces, tool calls with ids, token counts. */
export interface ComposedReply {
  text: string[];
  reasoning: string[];
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: NonNullable<FakeScript['finishReason']>;
  usage: FakeUsage;
}

/** The reply a script asks for; `prompt` (the request's messages, as sent) sizes the estimated input tokens. */
export function composeReply(script: FakeScript, prompt: unknown, nextCallId: () => string): ComposedReply {
  const toolCalls = (script.toolCalls ?? []).map((call) => ({
    id: call.id ?? nextCallId(),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
  // With nothing scripted at all, answer like the default rather than with an empty message.
  const text = pieces(script.text ?? (toolCalls.length === 0 && script.reasoning === undefined ? 'ok' : ''));
  const reasoning = pieces(script.reasoning ?? '');
  const estimate = (chars: number) => Math.max(1, Math.ceil(chars / 4));
  const inputTokens = script.usage?.promptTokens ?? promptTokens(prompt);
  const completionTokens =
    script.usage?.completionTokens ??
    estimate([...text, ...reasoning, ...toolCalls.map((call) => call.name + call.arguments)].join('').length);
  return {
    text,
    reasoning,
    toolCalls,
    finishReason: script.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: { ...script.usage, promptTokens: inputTokens, completionTokens },
  };
}

function pieces(value: string | string[]): string[] {
  if (Array.isArray(value)) return value;
  return value.match(/\s*\S+\s*/g) ?? (value.length > 0 ? [value] : []);
}

/** `value` in about `count` pieces, as providers stream a tool call's arguments. */
export function fragments(value: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(value.length / count));
  const parts: string[] = [];
  for (let start = 0; start < value.length; start += size) parts.push(value.slice(start, start + size));
  return parts;
}

/** Resolves true after `ms`, or false as soon as the connection is gone. */
export async function pause(ms: number, gone: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: gone });
    return true;
  } catch {
    return false;
  }
}

/** Resolves once the connection is gone. */
export function hang(gone: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (gone.aborted) resolve();
    else gone.addEventListener('abort', () => resolve(), { once: true });
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Starts an SSE answer, headers flushed at once so a client waiting for them sees the stream begin even if it stalls. */
export function startEventStream(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  res.flushHeaders();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
