// A fake Anthropic Messages API (`POST /v1/messages`), written from the provider's documentation, so
// `providerId: anthropic` runs the real provider code (`@ai-sdk/anthropic`) against the wire format it
// parses in production: `message_start` with the input usage and its cache fields, one content block
// per text, thinking and tool use (`text_delta`, `thinking_delta`, `input_json_delta`), `message_delta`
// with the stop reason and output usage, `message_stop`; errors as `{type: 'error', error: {type,
// message}}` with the documented statuses (429 `rate_limit_error`, 529 `overloaded_error`, ...), also as
// an `error` event in the middle of a stream. Scripts are the same as the Chat Completions fake's.
import type { ServerResponse } from 'node:http';
import {
  composeReply,
  fragments,
  hang,
  pause,
  sendJson,
  startEventStream,
  startScriptedServer,
  type ComposedReply,
  type FakeScript,
  type ScriptedHandler,
  type ScriptedRequest,
  type ScriptedServer,
  type ScriptedServerOptions,
  type Wire,
} from './scripted-server.ts';

/** Where a prompt cache breakpoint is set (`cache_control`). */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface AnthropicBlock {
  type: string;
  text?: string;
  cache_control?: CacheControl;
  [key: string]: unknown;
}

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
}

/** The parsed request body; the fields the AI SDK sends, loosely typed. */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  stream?: boolean;
  system?: string | AnthropicBlock[];
  messages: AnthropicMessage[];
  tools?: Array<{ name: string; description?: string; input_schema?: unknown; cache_control?: CacheControl; [key: string]: unknown }>;
  tool_choice?: unknown;
  [key: string]: unknown;
}

export type FakeAnthropicRequest = ScriptedRequest<AnthropicRequestBody>;
export type FakeAnthropicHandler = ScriptedHandler<AnthropicRequestBody>;
/** `baseUrl` is the `baseURL` for `createAnthropic` (ANTHROPIC_BASE_URL). */
export type FakeAnthropic = ScriptedServer<AnthropicRequestBody>;

/** The documented error types by status. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function anthropicError(status: number, message: string) {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message } };
}

/** What the Messages API answers a prompt longer than the model's window. */
export function promptTooLong(tokens: number, maximum: number): FakeScript {
  return { status: 400, errorBody: anthropicError(400, `prompt is too long: ${tokens} tokens > ${maximum} maximum`) };
}

const STOP_REASONS: Record<ComposedReply['finishReason'], string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

export interface FakeAnthropicOptions extends ScriptedServerOptions {
  /**
   * Serve prompt caching as the provider documents it, for scripts that name no usage: a request's
   * prefix up to a block marked `cache_control` is written to the cache; a later request reads the
   * longest cached prefix that ends at one of its marks or up to 20 blocks before one; prefixes under
   * MIN_CACHEABLE_TOKENS are not cached. Usage then splits the input into read, written and the rest.
   */
  cache?: boolean;
}

/** The smallest prefix the fake caches (the Messages API's minimum for its Sonnet models). */
export const MIN_CACHEABLE_TOKENS = 1024;
/** How far before a mark the provider looks for a cached prefix, in blocks. */
const LOOKBACK_BLOCKS = 20;

export function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const cache = options.cache ? new PromptCache() : undefined;
  const wire: Wire<AnthropicRequestBody> = {
    name: 'Fake Anthropic',
    other(req, res, path) {
      if (path === '/messages') return false;
      sendJson(res, 404, anthropicError(404, `No route for ${req.method} ${req.url}`));
      return true;
    },
    errorBody: anthropicError,
    promptOf: (body) => ({ system: body.system, messages: body.messages, tools: body.tools }),
    tooLong: promptTooLong,
    async answer(res, record, script, gone, nextId) {
      const { body } = record;
      const served = cache && !script.usage ? { ...script, usage: cache.usageOf(body, script) } : script;
      const reply = composeReply(served, wire.promptOf(body), () => `toolu_fake_${nextId()}`);
      const id = `msg_fake_${nextId()}`;
      if (body.stream === true) return stream(res, body, served, reply, id, gone);
      if (script.stallAfterChunks !== undefined) return hang(gone);
      sendJson(
        res,
        200,
        {
          id,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [
            ...(reply.reasoning.length > 0 ? [{ type: 'thinking', thinking: reply.reasoning.join(''), signature: 'fake-signature' }] : []),
            ...(reply.text.length > 0 ? [{ type: 'text', text: reply.text.join('') }] : []),
            ...reply.toolCalls.map((call) => ({
              type: 'tool_use',
              id: call.id,
              name: call.name,
              input: JSON.parse(call.arguments) as unknown,
            })),
          ],
          stop_reason: STOP_REASONS[reply.finishReason],
          stop_sequence: null,
          usage: { ...inputUsage(reply), output_tokens: reply.usage.completionTokens },
        },
        script.headers,
      );
    },
  };
  return startScriptedServer(wire, options);
}

/**
 * The input side of the usage as the Messages API reports it: `input_tokens` counts only what was
 * neither read from nor written to the cache; those two have fields of their own.
 */
function inputUsage({ usage }: ComposedReply) {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.promptTokens - cacheRead - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

async function stream(
  res: ServerResponse,
  body: AnthropicRequestBody,
  script: FakeScript,
  reply: ComposedReply,
  id: string,
  gone: AbortSignal,
) {
  if (gone.aborted) return;
  startEventStream(res, script.headers);
  const send = (data: { type: string; [key: string]: unknown }) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  send({
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...inputUsage(reply), output_tokens: 1 },
    },
  });
  send({ type: 'ping' });

  // Each block: its start, its deltas (the chunks a script counts), its stop.
  type Block = { start: object; deltas: object[] };
  const blocks: Block[] = [
    ...(reply.reasoning.length > 0
      ? [
          {
            start: { type: 'thinking', thinking: '' },
            deltas: [
              ...reply.reasoning.map((piece) => ({ type: 'thinking_delta', thinking: piece })),
              { type: 'signature_delta', signature: 'fake-signature' },
            ],
          },
        ]
      : []),
    ...(reply.text.length > 0
      ? [{ start: { type: 'text', text: '' }, deltas: reply.text.map((piece) => ({ type: 'text_delta', text: piece })) }]
      : []),
    ...reply.toolCalls.map((call) => ({
      start: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      deltas: fragments(call.arguments, 3).map((part) => ({ type: 'input_json_delta', partial_json: part })),
    })),
  ];
  if (script.endless) {
    send({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const pieces = reply.text.length > 0 ? reply.text : ['more '];
    for (let position = 0; !gone.aborted; position++) {
      send({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: pieces[position % pieces.length]! } });
      script.onChunk?.(position, performance.now());
      if (!(await pause(script.chunkDelayMs ?? 0, gone))) return;
    }
    return;
  }
  let position = 0;
  for (const [index, block] of blocks.entries()) {
    send({ type: 'content_block_start', index, content_block: block.start });
    for (const delta of block.deltas) {
      if (script.stallAfterChunks !== undefined && position >= script.stallAfterChunks) return hang(gone);
      if (script.streamError && position >= script.streamError.afterChunks) return endWithError(res, script.streamError);
      if (position > 0 && script.chunkDelayMs && !(await pause(script.chunkDelayMs, gone))) return;
      if (gone.aborted) return;
      send({ type: 'content_block_delta', index, delta });
      script.onChunk?.(position, performance.now());
      position++;
    }
    send({ type: 'content_block_stop', index });
  }
  if (script.stallAfterChunks !== undefined) return hang(gone);
  if (script.streamError) return endWithError(res, script.streamError);
  if (gone.aborted) return;
  send({
    type: 'message_delta',
    delta: { stop_reason: STOP_REASONS[reply.finishReason], stop_sequence: null },
    usage: { output_tokens: reply.usage.completionTokens },
  });
  send({ type: 'message_stop' });
  res.end();
}

/** An `error` event where the stream stopped (an overload in the middle of a reply), then the end. */
function endWithError(res: ServerResponse, error: NonNullable<FakeScript['streamError']>): void {
  const body = anthropicError(error.status, error.message ?? `Fake error ${error.status}`);
  res.end(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
}

/** A request as the cache sees it: its blocks in the order the provider reads them, and which are marked. */
function blocksOf(body: AnthropicRequestBody): Array<{ key: string; tokens: number; marked: boolean }> {
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  const content = (message: AnthropicMessage): AnthropicBlock[] =>
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  const raw: Array<{ cache_control?: unknown }> = [
    ...(body.tools ?? []),
    ...system,
    ...body.messages.flatMap((message) => content(message).map((block) => ({ role: message.role, ...block }))),
  ];
  return raw.map(({ cache_control, ...block }) => {
    const text = JSON.stringify(block);
    return { key: text, tokens: Math.max(1, Math.ceil(text.length / 4)), marked: cache_control !== undefined };
  });
}

/** Prefixes written by earlier requests, each by its content up to its last block. */
class PromptCache {
  private readonly prefixes = new Set<string>();

  /** The usage of a request: what of its input the cache served, what it wrote, and the rest. */
  usageOf(body: AnthropicRequestBody, script: FakeScript) {
    const blocks = blocksOf(body);
    const prefixKeys: string[] = [];
    const prefixTokens: number[] = [];
    for (const [index, block] of blocks.entries()) {
      prefixKeys.push(`${prefixKeys[index - 1] ?? ''}\u0000${block.key}`);
      prefixTokens.push((prefixTokens[index - 1] ?? 0) + block.tokens);
    }
    const marks = blocks.flatMap((block, index) => (block.marked ? [index] : []));
    // The longest cached prefix ending at a mark or up to LOOKBACK_BLOCKS before one.
    let readEnd = -1;
    for (const mark of marks) {
      for (let end = mark; end >= Math.max(0, mark - LOOKBACK_BLOCKS); end--) {
        if (this.prefixes.has(prefixKeys[end]!)) {
          readEnd = Math.max(readEnd, end);
          break;
        }
      }
    }
    const read = readEnd >= 0 ? prefixTokens[readEnd]! : 0;
    // Each mark past what was read writes its prefix, when it is long enough to be cached.
    let written = read;
    for (const mark of marks) {
      if (mark <= readEnd || prefixTokens[mark]! < MIN_CACHEABLE_TOKENS) continue;
      this.prefixes.add(prefixKeys[mark]!);
      written = Math.max(written, prefixTokens[mark]!);
    }
    const output = Math.max(1, Math.ceil(JSON.stringify(script.text ?? 'ok').length / 4));
    return { promptTokens: prefixTokens.at(-1) ?? 0, completionTokens: output, cacheReadTokens: read, cacheWriteTokens: written - read };
  }
}
