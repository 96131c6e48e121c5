// Every HTTP exchange of the SDK goes through here: the key, the base URL, the timeout, the retries
// and the mapping of error answers to error classes. Resources describe a call; this sends it.
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError } from './errors.ts';
import { isRetryableStatus, retryDelayMs, sleep } from './retry.ts';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  maxRetries: number;
  timeoutMs: number;
  fetch: FetchLike;
  defaultHeaders?: Record<string, string>;
}

/** What every method of the SDK accepts last. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** This call's deadline for an answer (headers, for a stream); the client's `timeoutMs` by default. */
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
}

export type QueryValue = string | number | boolean | undefined | null;

export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Already encoded, e.g. `/session/ses_1/events`. */
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON body. */
  json?: unknown;
  /** Any other body, sent as it is (a JSONC bundle, a multipart form). */
  body?: RequestInit['body'];
  contentType?: string;
  accept?: string;
  /**
   * Safe to send twice: GET, PUT, DELETE, and a POST carrying an Idempotency-Key. Only these are
   * retried after a broken connection or a 500; 429 and 503 are retried for every call (the server
   * refused before acting, or a 503 with an Idempotency-Key acts once).
   */
  idempotent: boolean;
  idempotencyKey?: string;
  /** Extra headers of this call (Last-Event-ID). */
  headers?: Record<string, string>;
}

/** Encodes each path parameter: ids come from callers and must not reach another route. */
export function path(strings: TemplateStringsArray, ...params: Array<string | number>): string {
  return strings.reduce((out, piece, index) => out + piece + (index < params.length ? encodeURIComponent(String(params[index])) : ''), '');
}

export class Transport {
  constructor(readonly options: TransportOptions) {}

  /** Sends a call and parses its JSON answer (undefined for 204). */
  async json<T>(call: Call, options: RequestOptions = {}): Promise<T> {
    const { response, done } = await this.send(call, options);
    try {
      if (response.status === 204) return undefined as T;
      const text = await response.text();
      return (text === '' ? undefined : JSON.parse(text)) as T;
    } catch (error) {
      throw toConnectionError(error, options.signal);
    } finally {
      done();
    }
  }

  /**
   * Sends a call and hands back the successful response unread (a stream, a download). The timeout
   * covers only the wait for its headers: a stream may then last as long as it likes.
   */
  async raw(call: Call, options: RequestOptions = {}): Promise<Response> {
    const { response, done } = await this.send(call, options);
    done();
    return response;
  }

  private async send(call: Call, options: RequestOptions): Promise<{ response: Response; done: () => void }> {
    const maxRetries = options.maxRetries ?? this.options.maxRetries;
    for (let attempt = 0; ; attempt++) {
      const deadline = new AbortController();
      const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
      const timer = setTimeout(() => deadline.abort(new APITimeoutError(`No answer within ${timeoutMs} ms`)), timeoutMs);
      const done = () => clearTimeout(timer);
      const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
      let response: Response;
      try {
        response = await this.options.fetch(this.url(call), {
          method: call.method,
          headers: this.headers(call, options),
          body: bodyOf(call),
          signal,
        });
      } catch (error) {
        done();
        const failure = toConnectionError(error, options.signal, deadline.signal);
        if (failure instanceof APIUserAbortError || !call.idempotent || attempt >= maxRetries) throw failure;
        await sleep(retryDelayMs(attempt + 1)!, options.signal);
        continue;
      }
      if (response.ok) return { response, done };
      const error = await errorOf(response).finally(done);
      const wait = retryDelayMs(attempt + 1, response.headers);
      if (attempt < maxRetries && isRetryableStatus(response.status, call.idempotent) && wait !== undefined) {
        await sleep(wait, options.signal);
        continue;
      }
      throw error;
    }
  }

  private url(call: Call): string {
    const url = new URL(this.options.baseUrl.replace(/\/+$/, '') + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  private headers(call: Call, options: RequestOptions): Headers {
    const headers = new Headers(this.options.defaultHeaders);
    if (this.options.apiKey) headers.set('authorization', `Bearer ${this.options.apiKey}`);
    headers.set('accept', call.accept ?? 'application/json');
    if (call.json !== undefined) headers.set('content-type', 'application/json');
    else if (call.contentType) headers.set('content-type', call.contentType);
    if (call.idempotencyKey) headers.set('idempotency-key', call.idempotencyKey);
    for (const [name, value] of Object.entries({ ...call.headers, ...options.headers })) headers.set(name, value);
    return headers;
  }
}

function bodyOf(call: Call): RequestInit['body'] {
  if (call.json !== undefined) return JSON.stringify(call.json);
  return call.body;
}

async function errorOf(response: Response): Promise<APIError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const problem = body && typeof body === 'object' ? (body as Record<string, never>) : undefined;
  return APIError.from({ status: response.status, problem, headers: response.headers, text, body });
}

/** What a failed fetch or body read means to the caller: their abort, our deadline, or the network. */
export function toConnectionError(error: unknown, userSignal?: AbortSignal, deadline?: AbortSignal): Error {
  if (userSignal?.aborted) return new APIUserAbortError(undefined, { cause: userSignal.reason });
  if (deadline?.aborted) return deadline.reason instanceof Error ? deadline.reason : new APITimeoutError();
  if (error instanceof APITimeoutError || error instanceof APIUserAbortError) return error;
  return new APIConnectionError(error instanceof Error ? `Connection error: ${error.message}` : 'Connection error', { cause: error });
}
