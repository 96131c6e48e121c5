// One error class per condition a caller may want to branch on. Every answer of the API that is an
// error is a problem document (contract/problems.ts); its members are copied onto the error so
// `catch (e) { if (e instanceof NotFoundError) ... }` and `e.traceId` work without parsing.
import type { FieldError, Problem } from './contract.ts';

/** Anything the SDK throws on purpose. */
export class AgentServiceError extends Error {
  override name = 'AgentServiceError';
}

export interface APIErrorInit {
  status: number;
  problem: Partial<Problem> | undefined;
  headers: Headers;
  /** The body as text when it was not a problem document. */
  text?: string;
}

/** The API answered with an error status. */
export class APIError extends AgentServiceError {
  override name = 'APIError';
  readonly status: number;
  /** The problem type URI, e.g. `https://agent-service.dev/problems/not-found`. */
  readonly type: string | undefined;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  /** Names the request in the service's logs (the `x-trace-id` header when the body has none). */
  readonly traceId: string | undefined;
  /** Fields at fault, as JSON pointers into the request body (validation problems). */
  readonly errors: FieldError[];
  readonly headers: Headers;
  /** The whole body: a problem document, or another JSON answer (a failed deploy's `{ok: false, errors}`). */
  readonly body: unknown;

  constructor(init: APIErrorInit & { body?: unknown }) {
    const problem = init.problem ?? {};
    super(
      `${init.status} ${problem.title ?? 'error'}${problem.detail ? `: ${problem.detail}` : init.text ? `: ${init.text.slice(0, 200)}` : ''}`,
    );
    this.status = init.status;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.traceId = problem.traceId ?? init.headers.get('x-trace-id') ?? undefined;
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
    this.headers = init.headers;
    this.body = init.body ?? init.problem ?? init.text;
  }

  /** The error class for a status: what the client throws for an answer that is not 2xx. */
  static from(init: APIErrorInit & { body?: unknown }): APIError {
    const Class = ERROR_BY_STATUS[init.status] ?? (init.status >= 500 ? InternalServerError : APIError);
    return new Class(init);
  }
}

export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
/** The thing existed and is gone: an expired approval, a deleted agent's session. */
export class GoneError extends APIError {
  override name = 'GoneError';
}
export class PayloadTooLargeError extends APIError {
  override name = 'PayloadTooLargeError';
}
/** Also the answer to an `Idempotency-Key` reused for another request. */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}

/** Seconds from a `Retry-After` header (integer seconds or an HTTP date); undefined when absent. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /** Seconds the server asked to wait before trying again. */
  readonly retryAfter: number | undefined;
  constructor(init: APIErrorInit & { body?: unknown }) {
    super(init);
    this.retryAfter = retryAfterSeconds(init.headers);
  }
}
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}
/** A part of the service is down; an action may or may not have happened (retry with the same Idempotency-Key). */
export class ServiceUnavailableError extends InternalServerError {
  override name = 'ServiceUnavailableError';
  readonly retryAfter: number | undefined;
  constructor(init: APIErrorInit & { body?: unknown }) {
    super(init);
    this.retryAfter = retryAfterSeconds(init.headers);
  }
}

const ERROR_BY_STATUS: Record<number, new (init: APIErrorInit & { body?: unknown }) => APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  503: ServiceUnavailableError,
};

/** No answer: the connection failed or broke before a status arrived. */
export class APIConnectionError extends AgentServiceError {
  override name = 'APIConnectionError';
  constructor(message = 'Connection error', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within `timeoutMs`. */
export class APITimeoutError extends APIConnectionError {
  override name = 'APITimeoutError';
  constructor(message = 'Request timed out', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The caller's AbortSignal fired. */
export class APIUserAbortError extends AgentServiceError {
  override name = 'APIUserAbortError';
  constructor(message = 'Request was aborted', options?: { cause?: unknown }) {
    super(message, options);
  }
}
