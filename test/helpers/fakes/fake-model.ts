// A fake OpenAI Chat Completions server for tests and benchmarks. It speaks real HTTP and SSE, so the
// real provider code (`@ai-sdk/openai-compatible`) parses exactly what it would parse from a live
// model, and aborts travel as real socket closes that the fake can observe.
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

export type { FakeScript, FakeToolCall, FakeUsage } from './scripted-server.ts';

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

export type FakeRequest = ScriptedRequest<ChatRequestBody>;

export type FakeHandler = ScriptedHandler<ChatRequestBody>;

export interface FakeModelOptions extends ScriptedServerOptions {
  /** Ids listed by `GET /v1/models`. */
  models?: string[];
  /** Listed with a `context_length`, as OpenRouter's model list gives it (these ids are listed too). */
  contextLengths?: Record<string, number>;
}

/** A Chat Completions server: `baseUrl` is the `baseURL` for `createOpenAICompatible`. */
export type FakeModel = ScriptedServer<ChatRequestBody>;

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

export function startFakeModel(options: FakeModelOptions = {}): Promise<FakeModel> {
  const models = [...(options.models ?? ['fake-model', 'fake-model-large']), ...Object.keys(options.contextLengths ?? {})];
  const wire: Wire<ChatRequestBody> = {
    name: 'Fake model',
    other(req, res, path) {
      if (path === '/models' && req.method === 'GET') {
        const created = Math.floor(Date.now() / 1000);
        const contextLength = (id: string) => (options.contextLengths?.[id] ? { context_length: options.contextLengths[id] } : {});
        sendJson(res, 200, {
          object: 'list',
          data: models.map((id) => ({ id, object: 'model', created, owned_by: 'fake', ...contextLength(id) })),
        });
        return true;
      }
      if (path === '/chat/completions') return false;
      sendJson(res, 404, errorJson(404, `No route for ${req.method} ${req.url}`));
      return true;
    },
    errorBody: errorJson,
    promptOf: (body) => body.messages,
    tooLong: contextLengthExceeded,
    async answer(res, record, script, gone, nextId) {
      const { body } = record;
      const reply = composeReply(script, wire.promptOf(body), () => `call_fake_${nextId()}`);
      const id = `chatcmpl-fake-${nextId()}`;
      if (body.stream === true) return stream(res, body, script, reply, id, gone);
      if (script.stallAfterChunks !== undefined) return hang(gone);
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
          usage: usageJson(reply),
        },
        script.headers,
      );
    },
  };
  return startScriptedServer(wire, options);
}

/** Usage as Chat Completions reports it: cached input in `prompt_tokens_details`, OpenRouter's `cost`. */
function usageJson({ usage }: ComposedReply) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cacheReadTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cacheReadTokens } } : {}),
    ...(usage.cost !== undefined ? { cost: usage.cost } : {}),
  };
}

async function stream(res: ServerResponse, body: ChatRequestBody, script: FakeScript, reply: ComposedReply, id: string, gone: AbortSignal) {
  if (gone.aborted) return;
  startEventStream(res, script.headers);
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
  // OpenRouter's way: an error once the model is streaming comes as a data event of its own, the status already 200.
  const endWithError = ({ status, message }: NonNullable<FakeScript['streamError']>): void =>
    void res.end(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, error: { code: status, message: message ?? `Fake error ${status}` } })}\n\n`,
    );
  for (const [position, delta] of deltas.entries()) {
    if (script.stallAfterChunks !== undefined && position >= script.stallAfterChunks) return hang(gone);
    if (script.streamError && position >= script.streamError.afterChunks) return endWithError(script.streamError);
    if (position > 0 && script.chunkDelayMs && !(await pause(script.chunkDelayMs, gone))) return;
    if (gone.aborted) return;
    send({ choices: [{ index: 0, delta: position === 0 ? { role: 'assistant', ...delta } : delta, finish_reason: null }] });
    script.onChunk?.(position, performance.now());
  }
  if (script.stallAfterChunks !== undefined) return hang(gone);
  if (script.streamError) return endWithError(script.streamError);
  if (gone.aborted) return;
  send({ choices: [{ index: 0, delta: {}, finish_reason: reply.finishReason }] });
  // As OpenAI and OpenRouter do: usage comes in a last chunk of its own, with no choices.
  if (body.stream_options?.include_usage === true) send({ choices: [], usage: usageJson(reply) });
  res.end('data: [DONE]\n\n');
}

/** What OpenAI answers a prompt longer than the model's window (OpenRouter's words are the same, but for "endpoint"). */
export function contextLengthExceeded(tokens: number, maximum: number): FakeScript {
  const message =
    `This model's maximum context length is ${maximum} tokens. However, your messages resulted in ${tokens} tokens. ` +
    'Please reduce the length of the messages.';
  return {
    status: 400,
    errorBody: { error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } },
  };
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
