// The one error model. Code inside the service throws these typed errors; the API turns any of them
// into application/problem+json (see api/middleware/problem.ts). Each class has a stable `name` and a
// stable problem `type` (contract/problems.ts lists them), so clients can branch on either.
import { PROBLEMS, problemType, type FieldError } from '../contract/problems.ts';

export type { FieldError };

export abstract class ServiceError extends Error {
  abstract readonly status: number;
  abstract readonly type: string;
  abstract readonly title: string;
  /** Extra members merged into the problem body (e.g. `errors`). */
  extra(): Record<string, unknown> {
    return {};
  }
}

export class ValidationError extends ServiceError {
  override name = 'ValidationError';
  readonly status = PROBLEMS['validation'].status;
  readonly type = problemType('validation');
  readonly title = PROBLEMS['validation'].title;
  constructor(
    message: string,
    readonly errors: FieldError[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
  override extra(): Record<string, unknown> {
    return this.errors.length ? { errors: this.errors } : {};
  }
}

export class MalformedBodyError extends ServiceError {
  override name = 'MalformedBodyError';
  readonly status = PROBLEMS['malformed-body'].status;
  readonly type = problemType('malformed-body');
  readonly title = PROBLEMS['malformed-body'].title;
}

export class UnauthorizedError extends ServiceError {
  override name = 'UnauthorizedError';
  readonly status = PROBLEMS['unauthorized'].status;
  readonly type = problemType('unauthorized');
  readonly title = PROBLEMS['unauthorized'].title;
}

export class ForbiddenError extends ServiceError {
  override name = 'ForbiddenError';
  readonly status = PROBLEMS['forbidden'].status;
  readonly type = problemType('forbidden');
  readonly title = PROBLEMS['forbidden'].title;
}

export class NotFoundError extends ServiceError {
  override name = 'NotFoundError';
  readonly status = PROBLEMS['not-found'].status;
  readonly type = problemType('not-found');
  readonly title = PROBLEMS['not-found'].title;
}

export class ConflictError extends ServiceError {
  override name = 'ConflictError';
  readonly status = PROBLEMS['conflict'].status;
  readonly type = problemType('conflict');
  readonly title = PROBLEMS['conflict'].title;
}

export class GoneError extends ServiceError {
  override name = 'GoneError';
  readonly status = PROBLEMS['gone'].status;
  readonly type = problemType('gone');
  readonly title = PROBLEMS['gone'].title;
}

/** An Idempotency-Key already used (within its 24 h) by a request with another body or target. */
export class IdempotencyKeyReusedError extends ServiceError {
  override name = 'IdempotencyKeyReusedError';
  readonly status = PROBLEMS['idempotency-key-reused'].status;
  readonly type = problemType('idempotency-key-reused');
  readonly title = PROBLEMS['idempotency-key-reused'].title;
}

/**
 * The definitive refusal (a 4xx, e.g. 409 for ifBusy=reject) that the first request with an
 * Idempotency-Key got, answered again, as it was, to a retry with the key: the retry does nothing else.
 */
export class RepeatedRefusalError extends ServiceError {
  override name = 'RepeatedRefusalError';
  readonly status: number;
  readonly type: string;
  readonly title: string;
  constructor(private readonly problem: { status: number; type: string; title: string; detail: string; extra?: Record<string, unknown> }) {
    super(problem.detail);
    this.status = problem.status;
    this.type = problem.type;
    this.title = problem.title;
  }
  override extra(): Record<string, unknown> {
    return this.problem.extra ?? {};
  }
}

export class PayloadTooLargeError extends ServiceError {
  override name = 'PayloadTooLargeError';
  readonly status = PROBLEMS['payload-too-large'].status;
  readonly type = problemType('payload-too-large');
  readonly title = PROBLEMS['payload-too-large'].title;
}

export class UnsupportedMediaTypeError extends ServiceError {
  override name = 'UnsupportedMediaTypeError';
  readonly status = PROBLEMS['unsupported-media-type'].status;
  readonly type = problemType('unsupported-media-type');
  readonly title = PROBLEMS['unsupported-media-type'].title;
}

export class RateLimitedError extends ServiceError {
  override name = 'RateLimitedError';
  readonly status = PROBLEMS['rate-limited'].status;
  readonly type = problemType('rate-limited');
  readonly title = PROBLEMS['rate-limited'].title;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Seconds a client is asked to wait before trying again when a dependency is down (`Retry-After`). */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * 503: PostgreSQL or Temporal did not answer in time, or no worker took the work. The message is
 * written for the client and names no internal address; the cause goes to the server's log only.
 */
export class DependencyUnavailableError extends ServiceError {
  override name = 'DependencyUnavailableError';
  readonly status = PROBLEMS['unavailable'].status;
  readonly type = problemType('unavailable');
  readonly title = PROBLEMS['unavailable'].title;
  readonly retryAfterSeconds: number;
  constructor(message: string, options: ErrorOptions & { retryAfterSeconds?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  }
}

/** How deep a cause chain is followed: an Update's failure wraps the workflow's, a child's its activity's. */
const MAX_CAUSE_DEPTH = 8;

/** An error and its causes, outermost first: what every "is this, somewhere inside, a ..." check walks. */
export function causeChain(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let current: unknown = error; current instanceof Error && chain.length < MAX_CAUSE_DEPTH; current = current.cause)
    chain.push(current);
  return chain;
}
