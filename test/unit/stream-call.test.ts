// The model step's call (activities/model/stream-call.ts) against the fake Chat Completions server:
// what the step reads from it, failures included, since the step decides retries from these parts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APICallError, jsonSchema, tool } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { startFakeModel, type FakeModel } from '../helpers/fakes/fake-model.ts';
import { streamModelCall, type ModelCallOptions, type ModelCallPart } from '../../activities/model/stream-call.ts';

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function options(overrides: Partial<ModelCallOptions> = {}): ModelCallOptions {
  const model = createOpenAICompatible({ name: 'openai-compatible', baseURL: fake.baseUrl, apiKey: 'k', includeUsage: true }).chatModel(
    'fake-model',
  );
  return {
    model,
    instructions: 'Be brief.',
    messages: [{ role: 'user', content: 'hi' }],
    tools: {},
    abortSignal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(parts: AsyncIterable<ModelCallPart>, onPart?: (part: ModelCallPart) => void): Promise<ModelCallPart[]> {
  const seen: ModelCallPart[] = [];
  for await (const part of parts) {
    seen.push(part);
    onPart?.(part);
  }
  return seen;
}

const weather = tool({
  description: 'Weather in a city',
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
});

describe('streamModelCall', () => {
  it('streams the text in order, then the usage and finish reason', async () => {
    fake.enqueue({ text: ['Hello', ' there', '!'], usage: { promptTokens: 7, completionTokens: 3 } });
    const parts = await collect(streamModelCall(options()));
    expect(parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : []))).toEqual(['Hello', ' there', '!']);
    const end = parts.find((part) => part.type === 'model-call-end');
    expect(end).toMatchObject({ finishReason: 'stop', usage: { inputTokens: 7, outputTokens: 3 } });
    expect(parts.some((part) => part.type === 'error')).toBe(false);
    expect(fake.requests[0]!.body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it('parses tool calls, flagging one whose arguments are not JSON (the step validates inputs itself)', async () => {
    fake.enqueue({
      toolCalls: [
        { id: 'call_a', name: 'weather', arguments: { city: 'Oslo' } },
        { id: 'call_b', name: 'weather', arguments: '{"city": ' },
      ],
    });
    const parts = await collect(streamModelCall(options({ tools: { weather } })));
    const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part] : []));
    expect(calls.map((call) => [call.toolCallId, call.input, Boolean(call.invalid)])).toEqual([
      ['call_a', { city: 'Oslo' }, false],
      ['call_b', '{"city": ', true],
    ]);
    expect(parts.find((part) => part.type === 'model-call-end')).toMatchObject({ finishReason: 'tool-calls' });
    expect(fake.requests[0]!.body.tools!.map((declared) => declared.function.name)).toEqual(['weather']);
  });

  it('answers a refused request with one error part carrying the status', async () => {
    fake.enqueue({ status: 401, errorBody: { error: { message: 'bad key', type: 'invalid_request_error' } } });
    const parts = await collect(streamModelCall(options()));
    expect(parts).toHaveLength(1);
    const error = (parts[0] as Extract<ModelCallPart, { type: 'error' }>).error;
    expect(APICallError.isInstance(error) && error.statusCode).toBe(401);
  });

  it('ends with an error part when the call is aborted mid-stream, and the connection is closed', async () => {
    fake.enqueue({ text: ['first', 'never'], stallAfterChunks: 1 });
    const controller = new AbortController();
    const parts = await collect(streamModelCall(options({ abortSignal: controller.signal })), (part) => {
      if (part.type === 'text-delta') controller.abort();
    });
    const texts = parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : []));
    expect(texts).toEqual(['first']);
    expect(parts.at(-1)!.type).toBe('error');
    await fake.waitForDisconnects(1);
  });

  it('closes the connection when the reader stops early', async () => {
    fake.enqueue({ text: ['a', 'b', 'c'], endless: true, chunkDelayMs: 1 });
    let count = 0;
    for await (const part of streamModelCall(options())) {
      if (part.type === 'text-delta' && ++count === 5) break;
    }
    await fake.waitForDisconnects(1);
    expect(fake.requests[0]).toMatchObject({ aborted: true, completed: false });
  });
});
