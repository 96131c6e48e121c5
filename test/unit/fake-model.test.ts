// The fake model is driven through the real AI SDK and the real openai-compatible provider, so these
// tests prove that what later tests script is what the service's model code will actually see.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APICallError, generateText, jsonSchema, streamText, tool } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { lastUserText, startFakeModel, type FakeModel } from '../helpers/fakes/fake-model.ts';
import { collectSse } from '../helpers/client/sse-parse.ts';

let fake: FakeModel;
let model: ReturnType<ReturnType<typeof createOpenAICompatible>['chatModel']>;

beforeAll(async () => {
  fake = await startFakeModel();
  const provider = createOpenAICompatible({ name: 'fake', baseURL: fake.baseUrl, apiKey: 'test-key', includeUsage: true });
  model = provider.chatModel('fake-model');
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const weather = tool({
  description: 'Current weather in a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  }),
});

describe('fake model through the AI SDK', () => {
  it('streams text in exactly the scripted chunks', async () => {
    fake.enqueue({ text: ['Hel', 'lo', ', world'], chunkDelayMs: 5 });
    const result = streamText({ model, prompt: 'hi', maxRetries: 0 });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'text-delta') deltas.push(part.text);
    expect(deltas).toEqual(['Hel', 'lo', ', world']);
    expect(await result.text).toBe('Hello, world');
    expect(await result.finishReason).toBe('stop');
    expect(fake.requests[0]!.completed).toBe(true);
  });

  it('answers "ok" when nothing is queued, and splits a string reply into words', async () => {
    expect(await streamText({ model, prompt: 'hi', maxRetries: 0 }).text).toBe('ok');
    fake.enqueue({ text: 'one two three' });
    const result = streamText({ model, prompt: 'hi', maxRetries: 0 });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'text-delta') deltas.push(part.text);
    expect(deltas).toEqual(['one ', 'two ', 'three']);
  });

  it('streams tool calls that arrive as tool-call parts with parsed input', async () => {
    fake.enqueue({
      text: 'Checking.',
      toolCalls: [
        { name: 'weather', arguments: { city: 'Paris' } },
        { id: 'call_given', name: 'weather', arguments: '{"city":"Oslo"}' },
      ],
    });
    const result = streamText({ model, prompt: 'Weather in Paris and Oslo?', tools: { weather }, maxRetries: 0 });
    const calls: Array<{ toolCallId: string; toolName: string; input: unknown }> = [];
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
    expect(calls).toEqual([
      { toolCallId: expect.stringMatching(/^call_fake_/), toolName: 'weather', input: { city: 'Paris' } },
      { toolCallId: 'call_given', toolName: 'weather', input: { city: 'Oslo' } },
    ]);
    expect(await result.finishReason).toBe('tool-calls');
    expect(await result.text).toBe('Checking.');
    const declared = fake.requests[0]!.body.tools!;
    expect(declared.map((entry) => entry.function.name)).toEqual(['weather']);
    expect(declared[0]!.function.parameters).toMatchObject({ required: ['city'] });
  });

  it('reports scripted usage, cost included, and estimates it otherwise', async () => {
    fake.enqueue({ text: 'hi', usage: { promptTokens: 120, completionTokens: 7, cost: 0.0042 } });
    const result = streamText({ model, prompt: 'hi', maxRetries: 0 });
    const usage = await result.usage;
    expect(usage.inputTokens).toBe(120);
    expect(usage.outputTokens).toBe(7);
    expect(usage.totalTokens).toBe(127);
    expect(usage.raw).toMatchObject({ cost: 0.0042 });
    expect(fake.requests[0]!.body.stream_options).toEqual({ include_usage: true });

    const estimated = await streamText({ model, prompt: 'a longer prompt than that', maxRetries: 0 }).usage;
    expect(estimated.inputTokens).toBeGreaterThan(0);
    expect(estimated.outputTokens).toBeGreaterThan(0);
  });

  it('surfaces an error status as an APICallError with that status and headers', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '7' } });
    const failure: unknown = await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch((error: unknown) => error);
    expect(APICallError.isInstance(failure)).toBe(true);
    const apiError = failure as APICallError;
    expect(apiError.statusCode).toBe(429);
    expect(apiError.responseHeaders?.['retry-after']).toBe('7');
    expect(apiError.message).toContain('Fake error 429');

    fake.enqueue({ status: 500, errorBody: { error: { message: 'upstream exploded', type: 'server_error' } } });
    const errors: unknown[] = [];
    const result = streamText({ model, prompt: 'hi', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    for await (const part of result.fullStream) if (part.type === 'error') errors.push(part.error);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((error) => APICallError.isInstance(error) && error.statusCode === 500)).toBe(true);
    expect((errors[0] as APICallError).message).toBe('upstream exploded');
  });

  it('records the system prompt, the messages, the model id and the headers', async () => {
    await generateText({
      model,
      instructions: 'You are terse.',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'reply' },
        { role: 'user', content: 'second' },
      ],
      maxRetries: 0,
    });
    const [request] = await fake.waitForRequests(1);
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer test-key');
    expect(request!.body.model).toBe('fake-model');
    expect(request!.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: 'second' },
    ]);
    expect(lastUserText(request!)).toBe('second');
  });

  it('lets a handler decide per request, with queued scripts taking precedence', async () => {
    fake.setHandler((request) => ({ text: `echo: ${lastUserText(request)}` }));
    fake.enqueue({ text: 'queued' });
    const ask = async (prompt: string) => (await generateText({ model, prompt, maxRetries: 0 })).text;
    expect(await ask('one')).toBe('queued');
    expect(await ask('two')).toBe('echo: two');
    expect(fake.requests.map((request) => request.script?.text)).toEqual(['queued', 'echo: two']);
  });

  it('sees an abort during a stalled stream as a disconnect', async () => {
    fake.enqueue({ text: ['first', 'never'], stallAfterChunks: 1 });
    const controller = new AbortController();
    const result = streamText({ model, prompt: 'hi', maxRetries: 0, abortSignal: controller.signal });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type === 'text-delta' ? part.text : part.type);
      if (part.type === 'text-delta') controller.abort();
    }
    expect(seen).toContain('first');
    expect(seen).not.toContain('never');
    expect(seen).toContain('abort');
    await fake.waitForDisconnects(1);
    expect(fake.disconnects).toBe(1);
    expect(fake.requests[0]).toMatchObject({ aborted: true, completed: false });
  });

  it('answers a non-streaming call', async () => {
    fake.enqueue({ text: 'Hello there', usage: { promptTokens: 3, completionTokens: 2 } });
    const result = await generateText({ model, prompt: 'hi', maxRetries: 0 });
    expect(result.text).toBe('Hello there');
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ inputTokens: 3, outputTokens: 2 });
    expect(fake.requests[0]!.body.stream).toBeFalsy();

    fake.enqueue({ toolCalls: [{ id: 'call_1', name: 'weather', arguments: { city: 'Rome' } }] });
    const called = await generateText({ model, prompt: 'Rome?', tools: { weather }, maxRetries: 0 });
    expect(called.toolCalls.map((call) => [call.toolCallId, call.input])).toEqual([['call_1', { city: 'Rome' }]]);
  });
});

describe('fake model over plain HTTP', () => {
  it('streams OpenAI-format chunks ending in [DONE], also without /v1', async () => {
    fake.enqueue({ text: ['a', 'b'], usage: { promptTokens: 1, completionTokens: 2 } });
    const response = await fetch(fake.baseUrl.replace(/\/v1$/, '/chat/completions'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm-1',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = await collectSse(response, (event) => event.data === '[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as Record<string, unknown>);
    expect(chunks.map((chunk) => chunk.object)).toEqual(Array(4).fill('chat.completion.chunk'));
    expect(chunks.every((chunk) => chunk.model === 'm-1' && chunk.id === chunks[0]!.id)).toBe(true);
    expect(chunks.map((chunk) => chunk.choices)).toEqual([
      [{ index: 0, delta: { role: 'assistant', content: 'a' }, finish_reason: null }],
      [{ index: 0, delta: { content: 'b' }, finish_reason: null }],
      [{ index: 0, delta: {}, finish_reason: 'stop' }],
      [],
    ]);
    expect(chunks[3]!.usage).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
  });

  it('lists models, 404s unknown paths, and closes with a stalled stream open', async () => {
    const models = (await (await fetch(`${fake.baseUrl}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((entry) => entry.id)).toContain('fake-model');
    expect((await fetch(`${fake.baseUrl}/embeddings`, { method: 'POST' })).status).toBe(404);

    const other = await startFakeModel();
    other.enqueue({ stallAfterChunks: 0 });
    const response = await fetch(`${other.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [], stream: true }),
    });
    expect(response.status).toBe(200);
    const reading = response.text();
    await other.close();
    await expect(reading).rejects.toThrow();
    expect(other.requests[0]!.aborted).toBe(true);
  });
});
