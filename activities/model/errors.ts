// What went wrong with a model call, in two answers: may another attempt succeed (Temporal retries
// the step), and what should the agent's owner read if the turn fails. Rejected keys and bad
// requests fail at once, and so does an answer past its size limit (lib/response-limits.ts); rate
// limits, provider outages and lost connections are retried.
//
// The message is built from the status and the provider's own error text only: never request
// headers, the request body or the URL's query, and known secrets and key-like strings are masked,
// because it ends up in a `turn.failed` event that the user (and any webhook) reads.
import { APICallError, RetryError } from 'ai';
import { ModelConfigError } from './config-errors.ts';
import { isRecord } from '../../lib/workflow-safe/is-record.ts';
import { responseTooLarge } from '../../lib/response-limits.ts';

export interface ModelErrorClassification {
  retryable: boolean;
  message: string;
  /**
   * How long the provider asked to be left alone (`retry-after-ms`, `retry-after` in seconds or as a
   * date), at most MAX_RETRY_AFTER_MS: the next attempt waits that long rather than the step's backoff.
   */
  retryAfterMs?: number;
  /**
   * The provider refused the request as longer than the model's context window (the window in tokens
   * when the provider's own message names one where its refusal does, never from text it quotes): the
   * step compacts the conversation and tries once more.
   */
  contextLength?: { windowTokens?: number };
}

/** The longest wait a provider's retry-after is taken for: one asking for more gets this, then the attempts go on. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

export interface ModelErrorContext {
  /** Named in messages ("The openai provider rejected the API key"). */
  providerId?: string;
  /** Values to mask wherever they appear (the key in use, say). */
  secrets?: Iterable<string>;
}

const MAX_DETAIL_CHARS = 300;
const RETRYABLE_STATUS = new Set([408, 409, 425, 429]);
/** Error `type`s of stream error events (OpenAI, Anthropic and OpenRouter shapes) that another attempt may fix. */
const RETRYABLE_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'server_error', 'timeout_error']);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
/** AI SDK errors that mean our request was unusable: the same request would fail again. */
const REQUEST_ERRORS = new Set([
  'AI_InvalidPromptError',
  'AI_InvalidArgumentError',
  'AI_UnsupportedFunctionalityError',
  'AI_NoSuchModelError',
  'AI_LoadAPIKeyError',
  'AI_LoadSettingError',
  'AI_InvalidDataContentError',
]);

export function classifyModelError(error: unknown, context: ModelErrorContext = {}): ModelErrorClassification {
  const provider = context.providerId ? `The ${context.providerId} provider` : 'The model provider';
  const classified = classify(unwrap(error), provider);
  return { ...classified, message: redact(classified.message, context.secrets) };
}

function classify(error: unknown, provider: string): ModelErrorClassification {
  // The SDK wraps what ended a body's stream (a stream error part, "Failed to process error response").
  const tooLarge = responseTooLarge(error);
  if (tooLarge) return { retryable: false, message: tooLarge.message };
  if (error instanceof ModelConfigError) return { retryable: false, message: error.message };
  if (APICallError.isInstance(error)) return classifyApiCall(error, provider);
  if (error instanceof Error) {
    if (error.name === 'AbortError') return { retryable: false, message: 'The model call was aborted.' };
    if (error.name === 'TimeoutError') return { retryable: true, message: `${provider} did not answer in time.` };
    if (REQUEST_ERRORS.has(error.name)) return { retryable: false, message: `The model request could not be made: ${clip(error.message)}` };
    const code = networkCode(error);
    if (code !== undefined) return { retryable: true, message: `Lost the connection to ${lower(provider)} (${code}).` };
    if (error.name.startsWith('AI_')) {
      // Unreadable or empty responses (JSONParseError, TypeValidationError, ...) are usually a hiccup upstream.
      return { retryable: true, message: `${provider} sent a response that could not be read: ${clip(error.message)}` };
    }
    return { retryable: true, message: `The model call failed: ${clip(error.message || error.name)}` };
  }
  if (isRecord(error)) return classifyStreamError(error, provider);
  return { retryable: true, message: `The model call failed: ${clip(String(error))}` };
}

function classifyApiCall(error: APICallError, provider: string): ModelErrorClassification {
  const status = error.statusCode;
  if (status === undefined) {
    // No response at all: connection refused, DNS, TLS. The SDK marks these retryable.
    const code = networkCode(error);
    const detail = code === undefined || error.message.includes(code) ? clip(error.message) : `${clip(error.message)} (${code})`;
    return { retryable: error.isRetryable, message: `Could not reach ${lower(provider)}: ${detail}` };
  }
  const detail = providerDetail(error);
  if (status === 401 || status === 403) {
    return { retryable: false, message: `${provider} rejected the API key (${status}): ${detail}` };
  }
  if (status === 429) {
    return { retryable: true, message: `${provider} is rate limiting requests (429): ${detail}`, ...retryAfter(error.responseHeaders) };
  }
  if (status >= 500 || RETRYABLE_STATUS.has(status)) {
    return { retryable: true, message: `${provider} failed to answer (${status}): ${detail}`, ...retryAfter(error.responseHeaders) };
  }
  const tooLong = contextLengthOf(status, `${error.message} ${error.responseBody ?? ''}`, [error.message, bodyMessage(error.responseBody)]);
  return { retryable: false, message: `${provider} rejected the request (${status}): ${detail}`, ...tooLong };
}

/** The phrases of OpenAI, Anthropic, OpenRouter and the common gateways (vLLM, LiteLLM) for a request past the window. */
const CONTEXT_LENGTH_TEXT = /context[_ ]length|context window|prompt is too long|maximum context|too many (input )?tokens/i;
/**
 * Where each provider names the window in its own refusal: at the very start of its error's message
 * (OpenAI's and vLLM's "This model's maximum context length is 8192 tokens. However, ...", OpenRouter's
 * "This endpoint's ...", Anthropic's whole "prompt is too long: 210000 tokens > 200000 maximum"). A number
 * anywhere else may be text the error quotes, a tenant's own input echoed back, and is not believed.
 */
const WINDOW_FORMATS = [
  /^This (?:model|endpoint)'s maximum context length is (\d+) tokens\b/,
  /^prompt is too long: \d+ tokens > (\d+) maximum$/,
];

/**
 * `text` (everything the provider sent) says whether the request was refused as too long; only the
 * provider's own `messages` (its error's message field) are read for the window.
 */
function contextLengthOf(
  status: number | undefined,
  text: string,
  messages: ReadonlyArray<string | undefined>,
): Pick<ModelErrorClassification, 'contextLength'> {
  if ((status !== undefined && status !== 400 && status !== 413) || !CONTEXT_LENGTH_TEXT.test(text)) return {};
  for (const message of messages) {
    for (const format of WINDOW_FORMATS) {
      const match = message === undefined ? null : format.exec(message.trim());
      if (match) return { contextLength: { windowTokens: Number(match[1]) } };
    }
  }
  return { contextLength: {} };
}

/** The `error.message` of a JSON error body (OpenAI's, OpenRouter's and Anthropic's shape), when the SDK could not read it. */
function bodyMessage(body: string | undefined): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body ?? '');
    return isRecord(parsed) && isRecord(parsed.error) && typeof parsed.error.message === 'string' ? parsed.error.message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The wait a response asks for (RFC 9110 `retry-after`: seconds or an HTTP date; `retry-after-ms`, which
 * OpenAI and Anthropic also send), within MAX_RETRY_AFTER_MS; nothing when it asks for none or is unreadable.
 */
export function retryAfter(headers: Record<string, string> | undefined, now = Date.now()): { retryAfterMs?: number } {
  const within = (ms: number) => ({ retryAfterMs: Math.min(Math.max(0, Math.round(ms)), MAX_RETRY_AFTER_MS) });
  const milliseconds = headers?.['retry-after-ms']?.trim();
  if (milliseconds && Number.isFinite(Number(milliseconds))) return within(Number(milliseconds));
  const value = headers?.['retry-after']?.trim();
  if (!value) return {};
  if (/^\d+(\.\d+)?$/.test(value)) return within(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? {} : within(date - now);
}

/** An error event inside a stream: `{type, message}` (Anthropic) or `{code, message}` (OpenAI, OpenRouter). */
function classifyStreamError(error: Record<string, unknown>, provider: string): ModelErrorClassification {
  const inner = isRecord(error.error) ? error.error : error;
  const message = typeof inner.message === 'string' ? inner.message : JSON.stringify(inner);
  const code = typeof inner.code === 'number' ? inner.code : Number(inner.code);
  const type = typeof inner.type === 'string' ? inner.type : undefined;
  let retryable = true;
  if (Number.isInteger(code) && code >= 400 && code < 500) retryable = code === 429 || RETRYABLE_STATUS.has(code);
  else if (type !== undefined && type.endsWith('_error')) retryable = RETRYABLE_TYPES.has(type);
  // A stream's error event names a refusal by its code (400, 413, OpenAI's context_length_exceeded) or type.
  const refusal =
    (Number.isInteger(code) && (code === 400 || code === 413)) ||
    type === 'invalid_request_error' ||
    inner.code === 'context_length_exceeded';
  const tooLong = refusal ? contextLengthOf(Number.isInteger(code) ? code : undefined, message, [message]) : {};
  return { retryable: tooLong.contextLength ? false : retryable, message: `${provider} reported an error: ${clip(message)}`, ...tooLong };
}

/** The provider's own words: its parsed error message, else a short plain-text body, else the status text. */
function providerDetail(error: APICallError): string {
  const body = error.responseBody?.trim();
  if (error.data === undefined && body && body.length <= MAX_DETAIL_CHARS && !body.startsWith('<')) return clip(body);
  return clip(error.message || `HTTP ${error.statusCode}`);
}

function unwrap(error: unknown): unknown {
  let current = error;
  // maxRetries > 0 wraps the attempts; the last one says what finally happened.
  while (RetryError.isInstance(current)) current = current.lastError;
  return current;
}

function networkCode(error: Error): string | undefined {
  for (let cause: unknown = error, depth = 0; isRecord(cause) && depth < 5; cause = cause.cause, depth++) {
    if (typeof cause.code === 'string' && NETWORK_CODES.has(cause.code)) return cause.code;
  }
  // undici: a body cut off mid-stream is a TypeError 'terminated' whose cause is a socket error.
  if (error.name === 'TypeError' && (error.message === 'terminated' || error.message === 'fetch failed')) return 'connection closed';
  return undefined;
}

function redact(message: string, secrets: Iterable<string> | undefined): string {
  let result = message;
  for (const secret of secrets ?? []) {
    if (secret.length >= 4) result = result.split(secret).join('[redacted]');
  }
  return result
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]')
    .replace(/\b(sk|rk|pk)-[A-Za-z0-9_-]{8,}/g, '$1-[redacted]')
    .replace(/([?&](?:key|api_key|apikey|token|access_token)=)[^&\s]+/gi, '$1[redacted]');
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL_CHARS ? `${flat.slice(0, MAX_DETAIL_CHARS - 1)}…` : flat;
}

function lower(provider: string): string {
  return provider.charAt(0).toLowerCase() + provider.slice(1);
}
