// A fake OpenAI Chat Completions server for tests and benchmarks. It speaks real HTTP and SSE, so the
// real provider code (`@ai-sdk/openai-compatible`) parses exactly what it would parse from a live
// model, and aborts travel as real socket closes that the fake can observe.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FakeToolCall {
  /** Defaults to a unique `call_fake_N`. */
  id?: string;
  name: string;
  /** Sent as JSON; a string is sent verbatim, so malformed arguments can be tested too. */
  arguments: unknown;
}

export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
  /** Sent as `usage.cost`, the way OpenRouter reports it. */
  cost?: number;
}

export interface FakeScript {
  /** The reply. A string is streamed word by word; an array gives the exact streamed chunks. */
  text?: string | string[];
  /** Streamed as `delta.reasoning_content` before the text. */
  reasoning?: string | string[];
  /** Delay before each streamed chunk but the first. */
  chunkDelayMs?: number;
  /** Delay before anything is answered (headers included). */
  delayMs?: number;
  /** Answer nothing (headers included) until this settles: a test decides when the reply comes. */
  holdUntil?: Promise<unknown>;
  /** Streamed as `tool_calls` deltas: the name first, then the arguments in a few fragments. */
  toolCalls?: FakeToolCall[];
  /** Defaults to an estimate from the lengths of the messages and the reply. */
  usage?: FakeUsage;
  /** Defaults to 'tool_calls' when there are tool calls, else 'stop'. */
  finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  /** 400 or more answers with an error instead of a completion. */
  status?: number;
  /** Defaults to OpenAI's error shape; a string is sent verbatim as text/plain. */
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
  /** Extra response headers, e.g. `retry-after`. */
  headers?: Record<string, string>;
  /**
   * Called just after each streamed content chunk is handed to the socket, with its 0-based
   * position (counted like `stallAfterChunks`) and `performance.now()`, so a benchmark can time
   * each chunk from the moment it left the fake.
   */
  onChunk?: (index: number, at: number) => void;
}

export interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string; [key: string]: unknown }> | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The parsed request body; the fields the AI SDK sends, loosely typed. */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  [key: string]: unknown;
}

export interface FakeRequest {
  /** 0-based position in `requests`. */
  index: number;
  method: string;
  /** As requested, query string included. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: ChatRequestBody;
  receivedAt: number;
  /** The script that answered, once chosen. */
  script?: FakeScript;
  /** The connection closed before the response was complete (client abort, or close() while stalled). */
  aborted: boolean;
  /** The response was written to the end. */
  completed: boolean;
}

export type FakeHandler = (request: FakeRequest) => FakeScript | Promise<FakeScript>;

export interface FakeModelOptions {
  /** Defaults to a free port. */
  port?: number;
  /** Ids listed by `GET /v1/models`. */
  models?: string[];
  /** The reply when neither the queue nor a handler gives one. Defaults to `{ text: 'ok' }`. */
  defaultScript?: FakeScript;
}

export interface FakeModel {
  /** `http://127.0.0.1:PORT/v1`, the `baseURL` for `createOpenAICompatible`. */
  readonly baseUrl: string;
  readonly port: number;
  /** Chat completion requests, in arrival order (other paths are not recorded). */
  readonly requests: readonly FakeRequest[];
  /** How many chat completion responses were cut off by a closed connection. */
  readonly disconnects: number;
  /** Queue scripts for the next requests, first in first out. The queue wins over the handler. */
  enqueue(...scripts: FakeScript[]): void;
  /** Decide the reply per request when the queue is empty; `undefined` removes the handler. */
  setHandler(handler: FakeHandler | undefined): void;
  /** Resolves with the first `count` requests once that many have arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<FakeRequest[]>;
  /** Resolves once `count` responses have been cut off by a closed connection. */
  waitForDisconnects(count: number, timeoutMs?: number): Promise<void>;
  /** Forget the queue, the handler and the recorded requests, for a fake shared between tests. */
  reset(): void;
  /** Stops listening and destroys every open socket, stalled streams included. */
  close(): Promise<void>;
}

/** The text of a message, its text parts joined. */
export function messageText(message: ChatMessage | undefined): string | undefined {
  const content = message?.content;
  if (content === undefined || content === null) return undefined;
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

/** The text of the last user message of a request: what a handler usually branches on. */
export function lastUserText(request: FakeRequest): string | undefined {
  return messageText(request.body.messages.findLast((message) => message.role === 'user'));
}

export async function startFakeModel(options: FakeModelOptions = {}): Promise<FakeModel> {
  const models = options.models ?? ['fake-model', 'fake-model-large'];
  const defaultScript = options.defaultScript ?? { text: 'ok' };
  const queue: FakeScript[] = [];
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  let handler: FakeHandler | undefined;
  let sequence = 0;
  let closed: Promise<void> | undefined;

  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/^\/v1(?=\/)/, '');
    if (path === '/models' && req.method === 'GET') {
      const created = Math.floor(Date.now() / 1000);
      return sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created, owned_by: 'fake' })) });
    }
    if (path !== '/chat/completions') return sendJson(res, 404, errorJson(404, `No route for ${req.method} ${req.url}`));
    if (req.method !== 'POST') return sendJson(res, 405, errorJson(405, `${req.method} is not allowed here`));

    let body: ChatRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as ChatRequestBody;
    } catch {
      return sendJson(res, 400, errorJson(400, 'The request body is not valid JSON'));
    }
    const record: FakeRequest = {
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

    const script = queue.shift() ?? (handler ? await handler(record) : defaultScript);
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
      const errorBody = script.errorBody ?? errorJson(script.status, `Fake error ${script.status}`);
      return sendJson(res, script.status, errorBody, script.headers);
    }
    const reply = compose(script, body, () => `call_fake_${++sequence}`);
    const id = `chatcmpl-fake-${++sequence}`;
    if (body.stream === true) return stream(res, body, script, reply, id, gone.signal);
    if (script.stallAfterChunks !== undefined) return hang(gone.signal);
    sendJson(
      res,
      200,
      {
        id,
        object: 'chat.completion',
        created: Math.floor(record.receivedAt / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text.length > 0 || reply.toolCalls.length === 0 ? reply.text.join('') : null,
              ...(reply.reasoning.length > 0 ? { reasoning_content: reply.reasoning.join('') } : {}),
              ...(reply.toolCalls.length > 0
                ? {
                    tool_calls: reply.toolCalls.map((call) => ({
                      id: call.id,
                      type: 'function',
                      function: { name: call.name, arguments: call.arguments },
                    })),
                  }
                : {}),
            },
            finish_reason: reply.finishReason,
            logprobs: null,
          },
        ],
        usage: reply.usage,
      },
      script.headers,
    );
  }

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, errorJson(500, `Fake model failed: ${String(error)}`));
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
    waitForRequests(count, timeoutMs = 5000) {
      return waitFor(
        () => (requests.length >= count ? requests.slice(0, count) : undefined),
        timeoutMs,
        () => `Fake model: expected ${count} request(s) within ${timeoutMs} ms, got ${requests.length}`,
      );
    },
    waitForDisconnects(count, timeoutMs = 5000) {
      return waitFor(
        () => (countDisconnects() >= count ? true : undefined),
        timeoutMs,
        () => `Fake model: expected ${count} disconnect(s) within ${timeoutMs} ms, got ${countDisconnects()}`,
      ).then(() => undefined);
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      handler = undefined;
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

interface Reply {
  text: string[];
  reasoning: string[];
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost?: number };
}

function compose(script: FakeScript, body: ChatRequestBody, nextCallId: () => string): Reply {
  const toolCalls = (script.toolCalls ?? []).map((call) => ({
    id: call.id ?? nextCallId(),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
  // With nothing scripted at all, answer like the default rather than with an empty message.
  const text = pieces(script.text ?? (toolCalls.length === 0 && script.reasoning === undefined ? 'ok' : ''));
  const reasoning = pieces(script.reasoning ?? '');
  const estimate = (chars: number) => Math.max(1, Math.ceil(chars / 4));
  const promptTokens = script.usage?.promptTokens ?? estimate(JSON.stringify(body.messages ?? []).length);
  const completionTokens =
    script.usage?.completionTokens ??
    estimate([...text, ...reasoning, ...toolCalls.map((call) => call.name + call.arguments)].join('').length);
  return {
    text,
    reasoning,
    toolCalls,
    finishReason: script.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(script.usage?.cost !== undefined ? { cost: script.usage.cost } : {}),
    },
  };
}

function pieces(value: string | string[]): string[] {
  if (Array.isArray(value)) return value;
  return value.match(/\s*\S+\s*/g) ?? (value.length > 0 ? [value] : []);
}

async function stream(res: ServerResponse, body: ChatRequestBody, script: FakeScript, reply: Reply, id: string, gone: AbortSignal) {
  if (gone.aborted) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...script.headers });
  // Headers now, so a client waiting for its fetch to resolve sees the stream start even if it stalls.
  res.flushHeaders();
  const created = Math.floor(Date.now() / 1000);
  const send = (data: object) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, ...data })}\n\n`);

  const deltas: object[] = [
    ...reply.reasoning.map((piece) => ({ reasoning_content: piece })),
    ...reply.text.map((piece) => ({ content: piece })),
    ...reply.toolCalls.flatMap((call, index) => [
      { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] },
      ...fragments(call.arguments, 3).map((part) => ({ tool_calls: [{ index, function: { arguments: part } }] })),
    ]),
  ];
  if (script.endless) {
    const pieces = reply.text.length > 0 ? reply.text : ['more '];
    for (let position = 0; !gone.aborted; position++) {
      const piece = pieces[position % pieces.length]!;
      send({
        choices: [{ index: 0, delta: position === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }],
      });
      script.onChunk?.(position, performance.now());
      if (!(await pause(script.chunkDelayMs ?? 0, gone))) return;
    }
    return;
  }
  for (const [position, delta] of deltas.entries()) {
    if (script.stallAfterChunks !== undefined && position >= script.stallAfterChunks) return hang(gone);
    if (position > 0 && script.chunkDelayMs && !(await pause(script.chunkDelayMs, gone))) return;
    if (gone.aborted) return;
    send({ choices: [{ index: 0, delta: position === 0 ? { role: 'assistant', ...delta } : delta, finish_reason: null }] });
    script.onChunk?.(position, performance.now());
  }
  if (script.stallAfterChunks !== undefined) return hang(gone);
  if (gone.aborted) return;
  send({ choices: [{ index: 0, delta: {}, finish_reason: reply.finishReason }] });
  // As OpenAI and OpenRouter do: usage comes in a last chunk of its own, with no choices.
  if (body.stream_options?.include_usage === true) send({ choices: [], usage: reply.usage });
  res.end('data: [DONE]\n\n');
}

function fragments(value: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(value.length / count));
  const parts: string[] = [];
  for (let start = 0; start < value.length; start += size) parts.push(value.slice(start, start + size));
  return parts;
}

/** Resolves true after `ms`, or false as soon as the connection is gone. */
async function pause(ms: number, gone: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: gone });
    return true;
  } catch {
    return false;
  }
}

function hang(gone: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (gone.aborted) resolve();
    else gone.addEventListener('abort', () => resolve(), { once: true });
  });
}

const ERROR_TYPES: Record<number, string> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

function errorJson(status: number, message: string) {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
  return { error: { message, type, param: null, code: null } };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
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
