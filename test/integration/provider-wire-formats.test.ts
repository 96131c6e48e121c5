// Every provider an agent may name, on its own wire format: the turns that matter run through the real
// provider code against a fake written from that provider's documentation. Chat Completions for
// `openai-compatible`, `openai` and `openrouter` (with OpenRouter's `usage.cost`); the Messages API for
// `anthropic` (content blocks, `input_json_delta`, `overloaded_error` 529, `rate_limit_error` 429 with
// `retry-after`, an error event in the middle of a stream). A streamed reply, a tool call and its result,
// an approval, a client tool, a structured reply, an abort mid-stream, a retried step, a refused request.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { collectSse } from '../helpers/client/sse-parse.ts';
import type { ScriptedServer, FakeScript, ScriptedRequest } from '../helpers/fakes/scripted-server.ts';
import { startFakeModel, type ChatRequestBody } from '../helpers/fakes/fake-model.ts';
import { anthropicError, startFakeAnthropic, type AnthropicRequestBody } from '../helpers/fakes/fake-anthropic.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { filler, isSummarising } from '../helpers/fakes/compaction-requests.ts';

interface Provider<Body> {
  providerId: string;
  modelId: string;
  /** Starts the fake it talks to; `settings` point the service at it. */
  start(): Promise<ScriptedServer<Body>>;
  settings(baseUrl: string): Record<string, string>;
  /** The tool results a request carried, by tool call id, as text. */
  toolResults(body: Body): Record<string, string>;
  /** A failure another attempt may fix, as this provider sends it. */
  transient: FakeScript;
  /** A request refused for good, as this provider says it. */
  refused: { script: FakeScript; says: RegExp };
}

const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('')
      : JSON.stringify(content);

function chatProvider(
  providerId: string,
  modelId: string,
  prefix: string,
  own: Partial<Pick<Provider<ChatRequestBody>, 'transient' | 'refused'>> = {},
): Provider<ChatRequestBody> {
  return {
    providerId,
    modelId,
    start: () => startFakeModel(),
    settings: (baseUrl) => ({ [`${prefix}_BASE_URL`]: baseUrl, [`${prefix}_API_KEY`]: 'test-key' }),
    toolResults: (body) =>
      Object.fromEntries(
        body.messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, text(message.content)]),
      ),
    transient: { status: 503, errorBody: { error: { message: 'The server is busy', type: 'server_error', code: null, param: null } } },
    refused: {
      script: {
        status: 400,
        errorBody: { error: { message: 'Unsupported parameter: temperature', type: 'invalid_request_error', param: null, code: null } },
      },
      says: /Unsupported parameter: temperature/,
    },
    ...own,
  };
}

/** OpenRouter's error shape: `{error: {code, message, metadata?}}`, the status the same as `code`. */
const openRouterError = (code: number, message: string, metadata?: Record<string, unknown>) => ({
  error: { code, message, ...(metadata ? { metadata } : {}) },
});

const anthropic: Provider<AnthropicRequestBody> = {
  providerId: 'anthropic',
  modelId: 'claude-fake-4',
  start: () => startFakeAnthropic(),
  settings: (baseUrl) => ({ ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: 'test-key' }),
  toolResults: (body) =>
    Object.fromEntries(
      body.messages.flatMap((message) =>
        Array.isArray(message.content)
          ? message.content
              .filter((block) => block.type === 'tool_result')
              .map((block) => [block.tool_use_id as string, text(block.content)])
          : [],
      ),
    ),
  transient: { status: 529, errorBody: anthropicError(529, 'Overloaded') },
  refused: {
    script: { status: 400, errorBody: anthropicError(400, 'messages.0.content: Input should be a valid list') },
    says: /Input should be a valid list/,
  },
};

const PROVIDERS: Provider<never>[] = [
  chatProvider('openai-compatible', 'fake-model', 'OPENAI_COMPATIBLE'),
  chatProvider('openai', 'gpt-fake', 'OPENAI'),
  chatProvider('openrouter', 'anthropic/claude-fake', 'OPENROUTER', {
    transient: {
      status: 502,
      errorBody: openRouterError(502, 'Provider returned error', { provider_name: 'Fake', raw: 'upstream overloaded' }),
    },
    refused: {
      script: { status: 402, errorBody: openRouterError(402, 'Insufficient credits. Add more using https://openrouter.ai/credits') },
      says: /Insufficient credits/,
    },
  }),
  anthropic,
] as unknown as Provider<never>[];

type Answer = { messageId: string; status: string; reply?: string; json?: unknown; waitingFor?: Record<string, unknown>; error?: string };

const LOOKUP = {
  id: 'lookup_order',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
};

for (const provider of PROVIDERS) {
  describe(`providerId ${provider.providerId}`, () => {
    let env: AgentEnv;
    let fake: ScriptedServer<unknown>;

    beforeAll(async () => {
      fake = (await provider.start()) as ScriptedServer<unknown>;
      env = await startAgentEnv(provider.settings(fake.baseUrl), { model: { providerId: provider.providerId, modelId: provider.modelId } });
    });
    afterAll(async () => {
      await env?.close();
      await fake?.close();
    });

    const send = (sessionId: string, body: string, query = '') =>
      call<Answer>(`${env.api.url}/session/${sessionId}${query}`, {
        headers: env.user.auth,
        json: { parts: [{ type: 'text', text: body }] },
      });
    const requestsSince = (before: number) => fake.requests.slice(before) as ScriptedRequest<never>[];

    test('a streamed reply: every piece as a delta, then the turn with the usage the provider reported', async () => {
      const sessionId = await env.newSession();
      fake.enqueue({ text: ['Hello', ' from', ' the', ' wire.'], usage: { promptTokens: 42, completionTokens: 4 } });
      const response = await fetch(`${env.api.url}/session/${sessionId}`, {
        method: 'POST',
        headers: { ...env.user.auth, accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ parts: [{ type: 'text', text: 'hi' }] }),
      });
      const events = (await collectSse(response)).map((frame) => JSON.parse(frame.data) as SessionEvent);
      const deltas = events.flatMap((event) => (event.type === 'message.part.delta' ? [event.delta] : []));
      expect(deltas.join('')).toBe('Hello from the wire.');
      expect(events.at(-1)).toMatchObject({ type: 'turn.completed', usage: { inputTokens: 42, outputTokens: 4 } });
    });

    test('a tool call with its arguments streamed in pieces, its result in the next request, then the answer', async () => {
      const sessionId = await env.newSession({ mcps: ['time'] });
      const before = fake.requests.length;
      fake.enqueue({ toolCalls: [{ id: 'call_now', name: 'current_time', arguments: { timezone: 'UTC' } }] }, { text: 'It is now.' });
      const answer = await send(sessionId, 'What time is it?');
      expect(answer.body).toMatchObject({ status: 'completed', reply: 'It is now.' });
      const [, second] = requestsSince(before);
      expect(provider.toolResults(second!.body)['call_now']).toMatch(/\d{4}-\d{2}-\d{2}T/);
    });

    test('an approval: the waiting send says what it waits for; the answer reaches the model as the tool result', async () => {
      const sessionId = await env.newSession();
      const before = fake.requests.length;
      fake.enqueue(
        { toolCalls: [{ id: 'call_ask', name: 'ask_my_user', arguments: { question: 'Ship it?', options: ['ship', 'wait'] } }] },
        { text: 'Shipped.' },
      );
      const waiting = await send(sessionId, 'Release v2');
      expect(waiting.body).toMatchObject({ status: 'waiting', waitingFor: { kind: 'approval', question: 'Ship it?' } });
      const approvalId = waiting.body.waitingFor!.approvalId as string;
      const answered = await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'ship' } });
      expect(answered.status).toBe(200);
      await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.completed'));
      const [, second] = requestsSince(before);
      expect(provider.toolResults(second!.body)['call_ask']).toContain('ship');
    });

    test("a client tool: the turn waits for the client's result, which the model then reads", async () => {
      const sessionId = await env.newSession({ customTools: [LOOKUP] });
      const before = fake.requests.length;
      fake.enqueue({ toolCalls: [{ id: 'call_order', name: 'lookup_order', arguments: { orderId: 'A-1' } }] }, { text: 'Shipped.' });
      const waiting = await send(sessionId, 'Where is A-1?');
      expect(waiting.body).toMatchObject({ status: 'waiting', waitingFor: { kind: 'tool' } });
      const result = await call(`${env.api.url}/session/${sessionId}/tool-result`, {
        headers: env.user.auth,
        json: { toolCallId: 'call_order', output: { status: 'in transit' } },
      });
      expect(result.status).toBe(200);
      await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.completed'));
      const [, second] = requestsSince(before);
      expect(provider.toolResults(second!.body)['call_order']).toContain('in transit');
    });

    test('a structured reply (jsonReply): the JSON the model wrote, checked against the schema', async () => {
      const schema = {
        type: 'object',
        properties: { priority: { enum: ['low', 'high'] } },
        required: ['priority'],
        additionalProperties: false,
      };
      const sessionId = await env.newSession({ jsonReply: { schema } });
      fake.enqueue({ text: '{"priority": "high"}' });
      const answer = await send(sessionId, 'The disk is full');
      expect(answer.body).toMatchObject({ status: 'completed', json: { priority: 'high' } });
    });

    test('an abort in the middle of a stream: the connection to the provider is cut and the turn ends aborted', async () => {
      const sessionId = await env.newSession();
      const cut = fake.disconnects;
      fake.enqueue({ text: ['partial ', 'text ', 'so ', 'far'], stallAfterChunks: 2 });
      expect((await send(sessionId, 'long story', '?async=1')).status).toBe(202);
      await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
      const aborted = await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth });
      expect(aborted.body).toEqual({ aborted: true });
      await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.aborted'));
      await fake.waitForDisconnects(cut + 1);
    });

    test('a failure another attempt may fix is retried, and the turn completes', async () => {
      const sessionId = await env.newSession();
      const before = fake.requests.length;
      fake.enqueue(provider.transient, { text: 'Second time lucky.' });
      const answer = await send(sessionId, 'hi');
      expect(answer.body).toMatchObject({ status: 'completed', reply: 'Second time lucky.' });
      expect(requestsSince(before)).toHaveLength(2);
    });

    test('a request the provider refuses fails the turn at once with its own words', async () => {
      const sessionId = await env.newSession();
      const before = fake.requests.length;
      fake.enqueue(provider.refused.script);
      const answer = await send(sessionId, 'hi');
      expect(answer.body.status).toBe('failed');
      expect(answer.body.error).toMatch(provider.refused.says);
      expect(requestsSince(before)).toHaveLength(1);
    });

    // Last: the worker keeps the window it learns here for this model.
    test('a conversation past the window: refused as too long on this wire, compacted, and answered', async () => {
      const sessionId = await env.newSession();
      const before = fake.requests.length;
      fake.setHandler((request) => (isSummarising(request) ? { text: 'SUMMARY on the wire.' } : { text: filler('answer', 40) }));
      fake.setContextWindow(2_000);
      try {
        for (let index = 1; index <= 6; index++) {
          expect((await send(sessionId, `question-${index} ${filler(`q${index}`, 40)}`)).body.status).toBe('completed');
        }
        const compacted = (await env.events(sessionId)).filter((event) => event.type === 'session.compacted');
        expect(compacted[0]).toMatchObject({ reason: 'context-length' });
        const requests = requestsSince(before);
        const refused = requests.filter((request) => request.script?.status === 400);
        expect(refused).toHaveLength(1);
        expect(requests.some((request) => isSummarising(request))).toBe(true);
        expect(JSON.stringify(requests.at(-1)!.body)).toContain('SUMMARY on the wire.');
      } finally {
        fake.setHandler(undefined);
        fake.setContextWindow(undefined);
      }
    });
  });
}

/** A provider's own environment for a describe block: its fake started, and a service pointed at it with `model`. */
function onItsOwnTerms<Fake extends { baseUrl: string; close(): Promise<void> }>(
  start: () => Promise<Fake>,
  settings: (baseUrl: string) => Record<string, string>,
  model: { providerId: string; modelId: string },
): { env: AgentEnv; fake: Fake } {
  const its = {} as { env: AgentEnv; fake: Fake };
  beforeAll(async () => {
    its.fake = await start();
    its.env = await startAgentEnv(settings(its.fake.baseUrl), { model });
  });
  afterAll(async () => {
    await its.env?.close();
    await its.fake?.close();
  });
  return its;
}

describe('providerId anthropic, on its own terms', () => {
  const its = onItsOwnTerms(startFakeAnthropic, anthropic.settings, { providerId: 'anthropic', modelId: anthropic.modelId });
  const send = (sessionId: string) =>
    call<Answer>(`${its.env.api.url}/session/${sessionId}`, {
      headers: its.env.user.auth,
      json: { parts: [{ type: 'text', text: 'hi' }] },
    });

  test('the request: the key in x-api-key, the system prompt apart from the messages, tools with input schemas', async () => {
    const sessionId = await its.env.newSession({ instructions: 'You are terse.', mcps: ['time'] });
    const before = its.fake.requests.length;
    its.fake.enqueue({ text: 'Ok.' });
    expect((await send(sessionId)).body.status).toBe('completed');
    const [request] = its.fake.requests.slice(before);
    expect(request!.headers['x-api-key']).toBe('test-key');
    expect(request!.headers['anthropic-version']).toBeDefined();
    expect(text(request!.body.system)).toContain('You are terse.');
    expect(request!.body.messages.every((message) => message.role === 'user' || message.role === 'assistant')).toBe(true);
    expect(request!.body.tools?.map((tool) => tool.name)).toContain('current_time');
    expect(request!.body.tools?.find((tool) => tool.name === 'current_time')?.input_schema).toMatchObject({ type: 'object' });
    expect(request!.body.stream).toBe(true);
  });

  test('429 rate_limit_error with retry-after: asked again once the wait it named is over (not after the step backoff), and the turn completes', async () => {
    const sessionId = await its.env.newSession();
    const before = its.fake.requests.length;
    its.fake.enqueue(
      {
        status: 429,
        errorBody: anthropicError(429, 'Number of request tokens has exceeded your rate limit'),
        headers: { 'retry-after': '3' },
      },
      { text: 'After the wait.' },
    );
    expect((await send(sessionId)).body).toMatchObject({ status: 'completed', reply: 'After the wait.' });
    const [limited, retried] = its.fake.requests.slice(before);
    expect(retried).toBeDefined();
    // The step's own backoff here is 100 ms (MODEL_STEP_RETRY_INITIAL_MS; Temporal takes about a second to
    // dispatch a retry): the second call waited the three seconds the provider named.
    expect(retried!.receivedAt - limited!.receivedAt).toBeGreaterThanOrEqual(2900);
  });

  test('an overloaded_error event in the middle of a stream: the step is tried again, readers drop the first attempt', async () => {
    const sessionId = await its.env.newSession();
    its.fake.enqueue(
      { text: ['Half ', 'an ', 'answer'], streamError: { afterChunks: 2, status: 529, message: 'Overloaded' } },
      { text: 'A whole answer.' },
    );
    expect((await send(sessionId)).body).toMatchObject({ status: 'completed', reply: 'A whole answer.' });
    const events = await its.env.events(sessionId);
    expect(events.some((event) => event.type === 'step.retry')).toBe(true);
  });

  test("a prompt longer than the model's window with nothing older to summarise: tried once more, then the turn fails with the provider's words", async () => {
    const sessionId = await its.env.newSession();
    const before = its.fake.requests.length;
    const tooLong = { status: 400, errorBody: anthropicError(400, 'prompt is too long: 210000 tokens > 200000 maximum') };
    its.fake.enqueue(tooLong, tooLong);
    const answer = await send(sessionId);
    expect(answer.body.status).toBe('failed');
    expect(answer.body.error).toMatch(/prompt is too long/);
    // The refused request and its one retry after the compaction found nothing to summarise; no summarising call.
    expect(its.fake.requests.length - before).toBe(2);
    expect((await its.env.events(sessionId)).some((event) => event.type === 'session.compacted')).toBe(false);
  });

  test("usage with cache fields: input counts what the cache served too, the cost prices them, the operator's shared cache's counts are not shown", async () => {
    // claude-sonnet-4-5: $3 in, $15 out, a cache read $0.30 and a cache write $3.75 per million tokens.
    const sessionId = await its.env.newSession({ model: { providerId: 'anthropic', modelId: 'claude-sonnet-4-5' } });
    its.fake.enqueue({ text: 'Cached.', usage: { promptTokens: 1000, completionTokens: 3, cacheReadTokens: 800, cacheWriteTokens: 150 } });
    expect((await send(sessionId)).body.status).toBe('completed');
    const events = await its.env.events(sessionId);
    // Behind the operator's key the cache is every tenant's: its counts are not shown (docs/models.md), but they are priced.
    const usage = { inputTokens: 1000, outputTokens: 3 };
    // 50 uncached × 3 + 800 × 0.30 + 150 × 3.75 + 3 × 15, per million.
    expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'turn.completed', usage, costUsd: 0.0009975 }));
    const reply = events.find((event) => event.type === 'message.completed' && event.message.role === 'assistant');
    expect(reply).toMatchObject({ message: { usage } });
  });

  test('cache marks: on the system prompt and on the last message, two in all; the next turn marks its own last message', async () => {
    const sessionId = await its.env.newSession({ instructions: 'You answer in one word.', mcps: ['time'] });
    const before = its.fake.requests.length;
    its.fake.enqueue({ text: 'One.' }, { text: 'Two.' });
    expect((await send(sessionId)).body.status).toBe('completed');
    expect((await send(sessionId)).body.status).toBe('completed');
    const [first, second] = its.fake.requests.slice(before);
    for (const request of [first!, second!]) {
      const system = request.body.system as Array<{ text: string; cache_control?: unknown }>;
      expect(system.at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } });
      const last = request.body.messages.at(-1)!;
      expect(last.role).toBe('user');
      expect((last.content as Array<{ cache_control?: unknown }>).at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } });
      // At most four marks per request (the Messages API's limit): these two.
      expect(JSON.stringify(request.body).match(/"cache_control"/g)).toHaveLength(2);
    }
    // The second turn's request begins with the first's, as sent (only the marks moved): the cache serves that prefix.
    expect(second!.body.messages.length).toBe(first!.body.messages.length + 2);
    expect(text(second!.body.messages[0]!.content)).toBe(text(first!.body.messages[0]!.content));
  });

  test('thinking before the text: the answer is the text', async () => {
    const sessionId = await its.env.newSession();
    its.fake.enqueue({ reasoning: 'Let me think.', text: 'Forty-two.' });
    expect((await send(sessionId)).body).toMatchObject({ status: 'completed', reply: 'Forty-two.' });
  });
});

describe('providerId openrouter, on its own terms', () => {
  /** The window OpenRouter's model list gives the agent's model. */
  const LISTED_WINDOW = 6_000;
  const its = onItsOwnTerms(
    () => startFakeModel({ contextLengths: { 'anthropic/claude-fake': LISTED_WINDOW } }),
    (baseUrl) => ({ OPENROUTER_BASE_URL: baseUrl, OPENROUTER_API_KEY: 'test-key' }),
    { providerId: 'openrouter', modelId: 'anthropic/claude-fake' },
  );
  const send = (sessionId: string) =>
    call<Answer>(`${its.env.api.url}/session/${sessionId}`, {
      headers: its.env.user.auth,
      json: { parts: [{ type: 'text', text: 'hi' }] },
    });

  test('an Anthropic model through OpenRouter: cache marks on the system prompt and the last message, as OpenRouter passes them on', async () => {
    const sessionId = await its.env.newSession({ instructions: 'You answer in one word.' });
    const before = its.fake.requests.length;
    its.fake.enqueue({ text: 'One.' });
    expect((await send(sessionId)).body.status).toBe('completed');
    const [request] = its.fake.requests.slice(before);
    const marked = (message: { content?: unknown }) =>
      Array.isArray(message.content) && message.content.some((part: { cache_control?: unknown }) => part.cache_control !== undefined);
    const { messages } = request!.body;
    expect(marked(messages[0]!)).toBe(true);
    expect(messages[0]!.role).toBe('system');
    expect(marked(messages.at(-1)!)).toBe(true);
    expect(messages.filter(marked)).toHaveLength(2);
  });

  test('a model of another vendor through OpenRouter gets no cache marks', async () => {
    const sessionId = await its.env.newSession({ model: { providerId: 'openrouter', modelId: 'openai/gpt-4o' } });
    const before = its.fake.requests.length;
    its.fake.enqueue({ text: 'One.' });
    expect((await send(sessionId)).body.status).toBe('completed');
    expect(JSON.stringify(its.fake.requests[before]!.body)).not.toContain('cache_control');
  });

  test("the cost OpenRouter reports (usage.cost) is the turn's cost", async () => {
    const sessionId = await its.env.newSession();
    its.fake.enqueue({ text: 'Priced.', usage: { promptTokens: 120, completionTokens: 3, cost: 0.00042 } });
    expect((await send(sessionId)).body.status).toBe('completed');
    const events = await its.env.events(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', usage: { inputTokens: 120, outputTokens: 3 }, costUsd: 0.00042 });
  });

  test('an error event once the model streams (the status already 200) retries the step, and the turn completes', async () => {
    const sessionId = await its.env.newSession();
    const before = its.fake.requests.length;
    its.fake.enqueue(
      { text: ['Half ', 'an ', 'answer'], streamError: { afterChunks: 2, status: 502, message: 'Provider returned error' } },
      { text: 'A whole answer.' },
    );
    expect((await send(sessionId)).body).toMatchObject({ status: 'completed', reply: 'A whole answer.' });
    expect(its.fake.requests.length - before).toBe(2);
    expect((await its.env.events(sessionId)).some((event) => event.type === 'step.retry')).toBe(true);
  });
  test("the model's window from OpenRouter's model list: the conversation is compacted before the provider would refuse it", async () => {
    const sessionId = await its.env.newSession();
    const before = its.fake.requests.length;
    its.fake.setHandler((request) => (isSummarising(request) ? { text: 'SUMMARY.' } : { text: filler('answer') }));
    its.fake.setContextWindow(LISTED_WINDOW);
    try {
      for (let index = 1; index <= 10; index++) {
        const answer = await call<Answer>(`${its.env.api.url}/session/${sessionId}`, {
          headers: its.env.user.auth,
          json: { parts: [{ type: 'text', text: `question-${index} ${filler(`q${index}`)}` }] },
        });
        expect(answer.body.status).toBe('completed');
      }
      const compacted = (await its.env.events(sessionId)).filter((event) => event.type === 'session.compacted');
      expect(compacted.length).toBeGreaterThanOrEqual(1);
      expect(compacted.every((event) => event.type === 'session.compacted' && event.reason === 'threshold')).toBe(true);
      expect(its.fake.requests.slice(before).filter((request) => request.script?.status === 400)).toHaveLength(0);
    } finally {
      its.fake.setHandler(undefined);
      its.fake.setContextWindow(undefined);
    }
  });
});

describe('providerId openai, on its own terms', () => {
  const its = onItsOwnTerms(startFakeModel, (baseUrl) => ({ OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'test-key' }), {
    providerId: 'openai',
    modelId: 'gpt-4o',
  });

  test('its own prompt cache: cached input reported in prompt_tokens_details is priced at the cached rate', async () => {
    // gpt-4o: $2.50 in, $1.25 cached in, $10 out per million tokens; OpenAI charges nothing to write its cache.
    const sessionId = await its.env.newSession({ instructions: 'You answer in one word.' });
    its.fake.enqueue({ text: 'Cached.', usage: { promptTokens: 2000, completionTokens: 100, cacheReadTokens: 1500 } });
    const answer = await call<Answer>(`${its.env.api.url}/session/${sessionId}`, {
      headers: its.env.user.auth,
      json: { parts: [{ type: 'text', text: 'hi' }] },
    });
    expect(answer.body.status).toBe('completed');
    const events = await its.env.events(sessionId);
    // Behind the operator's key the cache counts are not shown (docs/models.md); the cost still prices them.
    const usage = { inputTokens: 2000, outputTokens: 100 };
    // 500 uncached × 2.50 + 1500 × 1.25 + 100 × 10, per million.
    expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'turn.completed', usage, costUsd: 0.004125 }));
    // No cache marks: OpenAI caches prefixes by itself.
    expect(JSON.stringify(its.fake.requests.at(-1)!.body)).not.toContain('cache_control');
  });
});
