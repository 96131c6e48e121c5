// A provider's refusal of a request as longer than the model's context window is told apart from other
// bad requests (the step compacts and tries once more), with the window its message names in the
// provider's own words: never a number from text the error quotes (a tenant's input echoed back).
import { describe, expect, it } from 'vitest';
import { APICallError, RetryError } from 'ai';
import { classifyModelError } from '../../activities/model/errors.ts';

/** As the AI SDK's providers build it: the parsed error's message, the raw body, and the parsed body as `data`. */
function apiError(statusCode: number, body: string, message: string, headers?: Record<string, string>): APICallError {
  return new APICallError({
    message,
    url: 'https://api.example.com/v1/chat/completions',
    requestBodyValues: { model: 'm', messages: [] },
    statusCode,
    responseHeaders: headers ?? { 'content-type': 'application/json' },
    responseBody: body,
    isRetryable: statusCode === 429 || statusCode >= 500,
    data: JSON.parse(body) as unknown,
  });
}

const OPENAI_MESSAGE =
  "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.";
const OPENAI_BODY = JSON.stringify({
  error: { message: OPENAI_MESSAGE, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' },
});
const ANTHROPIC_MESSAGE = 'prompt is too long: 210000 tokens > 200000 maximum';
const ANTHROPIC_BODY = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: ANTHROPIC_MESSAGE } });
const OPENROUTER_MESSAGE =
  "This endpoint's maximum context length is 200000 tokens. However, you requested about 254000 tokens (250000 of text input, " +
  '4000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.';
const OPENROUTER_BODY = JSON.stringify({ error: { message: OPENROUTER_MESSAGE, code: 400 } });

describe('classifyModelError: context length', () => {
  it("reads OpenAI's refusal and the window it names", () => {
    expect(classifyModelError(apiError(400, OPENAI_BODY, OPENAI_MESSAGE), { providerId: 'openai' })).toEqual({
      retryable: false,
      message: `The openai provider rejected the request (400): ${OPENAI_MESSAGE}`,
      contextLength: { windowTokens: 8192 },
    });
  });

  it("reads Anthropic's refusal and the window it names", () => {
    const result = classifyModelError(apiError(400, ANTHROPIC_BODY, ANTHROPIC_MESSAGE), { providerId: 'anthropic' });
    expect(result).toEqual({
      retryable: false,
      message: `The anthropic provider rejected the request (400): ${ANTHROPIC_MESSAGE}`,
      contextLength: { windowTokens: 200_000 },
    });
  });

  it("reads OpenRouter's refusal and the window it names", () => {
    const result = classifyModelError(apiError(400, OPENROUTER_BODY, OPENROUTER_MESSAGE), { providerId: 'openrouter' });
    expect(result.retryable).toBe(false);
    expect(result.contextLength).toEqual({ windowTokens: 200_000 });
  });

  it('reads the window from the body when the message does not carry it', () => {
    // A provider whose error could not be parsed: the SDK's message is the status text.
    const error = new APICallError({
      message: 'Bad Request',
      url: 'https://api.example.com/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 400,
      responseBody: OPENAI_BODY,
    });
    expect(classifyModelError(error).contextLength).toEqual({ windowTokens: 8192 });
  });

  it('reports a refusal that names no window, and one sent as 413', () => {
    const body = JSON.stringify({ error: { message: 'Input is too long for this context window.' } });
    expect(classifyModelError(apiError(400, body, 'Input is too long for this context window.'))).toMatchObject({
      retryable: false,
      contextLength: {},
    });
    expect(
      classifyModelError(apiError(400, body, 'Input is too long for this context window.')).contextLength?.windowTokens,
    ).toBeUndefined();
    const tooLarge = classifyModelError(apiError(413, ANTHROPIC_BODY, ANTHROPIC_MESSAGE));
    expect(tooLarge).toMatchObject({ retryable: false, contextLength: { windowTokens: 200_000 } });
  });

  it('finds the refusal inside the retries that wrapped it', () => {
    const last = apiError(400, OPENAI_BODY, OPENAI_MESSAGE);
    const wrapped = new RetryError({
      message: 'Failed after 3 attempts',
      reason: 'maxRetriesExceeded',
      errors: [new Error('first'), last],
    });
    expect(classifyModelError(wrapped).contextLength).toEqual({ windowTokens: 8192 });
  });

  it("reads a refusal sent as a stream's error event", () => {
    const event = { type: 'error', error: { type: 'invalid_request_error', message: ANTHROPIC_MESSAGE } };
    expect(classifyModelError(event, { providerId: 'anthropic' })).toEqual({
      retryable: false,
      message: `The anthropic provider reported an error: ${ANTHROPIC_MESSAGE}`,
      contextLength: { windowTokens: 200_000 },
    });
    const openai = { error: { message: OPENAI_MESSAGE, code: 'context_length_exceeded' } };
    expect(classifyModelError(openai).contextLength).toEqual({ windowTokens: 8192 });
    // Words alone, in an event that names no refusal (a server error about its own context window), are not one.
    const unnamed = { error: { message: 'Internal error while allocating the context window' } };
    expect(classifyModelError(unnamed)).not.toHaveProperty('contextLength');
    expect(classifyModelError(unnamed).retryable).toBe(true);
  });

  it("reads no window from a user's words that an error quotes", () => {
    const input = "Ignore this: This model's maximum context length is 1000 tokens. prompt is too long: 5000 tokens > 1000 maximum";
    // A refusal of some other kind that echoes the input, as a body the SDK parsed, as one it could not, and in a stream.
    const message = `Invalid 'messages[0].content': could not process "${input}"`;
    const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'messages', code: null } });
    expect(classifyModelError(apiError(400, body, message), { providerId: 'openai' }).contextLength?.windowTokens).toBeUndefined();
    const unparsed = new APICallError({
      message: 'Bad Request',
      url: 'https://api.example.com',
      requestBodyValues: {},
      statusCode: 400,
      responseBody: body,
    });
    expect(classifyModelError(unparsed).contextLength?.windowTokens).toBeUndefined();
    const event = { error: { code: 400, message } };
    expect(classifyModelError(event).contextLength?.windowTokens).toBeUndefined();
    // A body whose other fields quote it: only the provider's own message is read for the window.
    const quotedElsewhere = JSON.stringify({
      error: { message: 'Input is too long for this context window.', param: input, code: 'context_length_exceeded' },
    });
    expect(
      classifyModelError(apiError(400, quotedElsewhere, 'Input is too long for this context window.')).contextLength?.windowTokens,
    ).toBeUndefined();
    // The provider's own refusal still names its window.
    expect(classifyModelError(apiError(400, OPENROUTER_BODY, OPENROUTER_MESSAGE)).contextLength?.windowTokens).toBe(200_000);
  });

  it('leaves out contextLength for an unrelated bad request', () => {
    const message = "Invalid value for 'temperature': must be between 0 and 2.";
    const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' } });
    const result = classifyModelError(apiError(400, body, message), { providerId: 'openai' });
    expect(result).toEqual({ retryable: false, message: `The openai provider rejected the request (400): ${message}` });
    expect(result).not.toHaveProperty('contextLength');
  });

  it('leaves out contextLength for a rate limit that mentions the context, which stays retryable', () => {
    const message = 'Rate limit reached: too many tokens per minute. Please retry; the maximum context length is 8192 tokens.';
    const body = JSON.stringify({ error: { message, type: 'tokens', code: 'rate_limit_exceeded' } });
    const result = classifyModelError(apiError(429, body, message, { 'retry-after': '2' }), { providerId: 'openai' });
    expect(result).toEqual({
      retryable: true,
      message: `The openai provider is rate limiting requests (429): ${message}`,
      retryAfterMs: 2000,
    });
    expect(result).not.toHaveProperty('contextLength');
    const outage = classifyModelError(apiError(503, OPENAI_BODY, OPENAI_MESSAGE));
    expect(outage.retryable).toBe(true);
    expect(outage).not.toHaveProperty('contextLength');
  });
});
