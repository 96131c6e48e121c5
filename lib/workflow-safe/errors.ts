// The one error model. Code inside the service throws these typed errors; the API turns any of them
// into application/problem+json (see api/middleware/problem.ts). Each class has a stable `name` and a
// stable problem `type` (contract/problems.ts lists them), so clients can branch on either.
import { PROBLEMS, problemType, type FieldError, type ProblemName } from '../../contract/problems.ts';
import type { DeviceTokenErrorCode } from '../../contract/operations/device.ts';

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

/** The base of an error of one of the contract's problem types: its status, type and title come from there. */
function problemClass(problem: ProblemName, errorName: string) {
  return class extends ServiceError {
    override name = errorName;
    readonly status: number = PROBLEMS[problem].status;
    readonly type = problemType(problem);
    readonly title: string = PROBLEMS[problem].title;
  };
}

export class ValidationError extends problemClass('validation', 'ValidationError') {
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

export class MalformedBodyError extends problemClass('malformed-body', 'MalformedBodyError') {}

/**
 * A device login's poll that gives no key: `error` is RFC 8628's code (authorization_pending, slow_down,
 * ...), and slow_down also says the `interval` to keep from now on.
 */
export class DeviceGrantError extends problemClass('device-grant', 'DeviceGrantError') {
  constructor(
    readonly error: DeviceTokenErrorCode,
    message: string,
    readonly interval?: number,
  ) {
    super(message);
  }
  override extra(): Record<string, unknown> {
    return this.interval === undefined ? { error: this.error } : { error: this.error, interval: this.interval };
  }
}

export class UnauthorizedError extends problemClass('unauthorized', 'UnauthorizedError') {}

export class ForbiddenError extends problemClass('forbidden', 'ForbiddenError') {}

export class NotFoundError extends problemClass('not-found', 'NotFoundError') {}

export class ConflictError extends problemClass('conflict', 'ConflictError') {}

export class GoneError extends problemClass('gone', 'GoneError') {}

/** 403: a model call the request needs is stopped by a monthly budget (store/budgets.ts). */
export class BudgetSpentError extends problemClass('budget-spent', 'BudgetSpentError') {}

/** 502: a model call the request waited for failed (refused, misconfigured, or out of attempts). */
export class ModelCallFailedError extends problemClass('model-failed', 'ModelCallFailedError') {}

/** An Idempotency-Key already used (within its 24 h) by a request with another body or target. */
export class IdempotencyKeyReusedError extends problemClass('idempotency-key-reused', 'IdempotencyKeyReusedError') {}

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

export class PayloadTooLargeError extends problemClass('payload-too-large', 'PayloadTooLargeError') {}

export class UnsupportedMediaTypeError extends problemClass('unsupported-media-type', 'UnsupportedMediaTypeError') {}

export class RateLimitedError extends problemClass('rate-limited', 'RateLimitedError') {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A user holds as many open streams and waiting requests as it may: 429 with Retry-After. */
export class StreamLimitError extends problemClass('stream-limit', 'StreamLimitError') {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A user has as many sends waiting for their turns as it may (QUEUED_SENDS_PER_USER): 429 with Retry-After. */
export class QueueFullError extends problemClass('queue-full', 'QueueFullError') {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A user holds as many API keys as it may (KEYS_PER_USER). */
export class KeyLimitError extends problemClass('key-limit', 'KeyLimitError') {}

/** A deploy would take the user's cron schedules past SCHEDULES_PER_USER. */
export class ScheduleLimitError extends problemClass('schedule-limit', 'ScheduleLimitError') {}

/** A remote MCP server did not connect or list its tools. */
export class McpUnreachableError extends problemClass('mcp-unreachable', 'McpUnreachableError') {}

/** A user has as many remote MCP servers registered as it may (MCP_SERVERS_PER_USER). */
export class McpServerLimitError extends problemClass('mcp-server-limit', 'McpServerLimitError') {}

/** A user has as many unanswered approvals as it may (OPEN_APPROVALS_PER_USER). */
export class ApprovalLimitError extends problemClass('approval-limit', 'ApprovalLimitError') {}

/** An upload would take the user's stored bytes past STORED_BYTES_PER_USER. */
export class StorageLimitError extends problemClass('storage-limit', 'StorageLimitError') {}

/** Seconds a client is asked to wait before trying again when a dependency is down (`Retry-After`). */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * 503: PostgreSQL or Temporal did not answer in time, or no worker took the work. The message is
 * written for the client and names no internal address; the cause goes to the server's log only.
 */
export class DependencyUnavailableError extends problemClass('unavailable', 'DependencyUnavailableError') {
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
