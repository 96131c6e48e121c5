// Turns every error into application/problem+json with the request's trace id. Unknown errors are
// logged with their stack and answered with a bare 500: a stack never reaches the client.
import { PROBLEM_CONTENT_TYPE, PROBLEMS, problemType } from '../../contract/problems.ts';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import {
  DependencyUnavailableError,
  MalformedBodyError,
  NotFoundError,
  PayloadTooLargeError,
  QueueFullError,
  RateLimitedError,
  ServiceError,
  StreamLimitError,
  UnsupportedMediaTypeError,
} from '../../lib/workflow-safe/errors.ts';
import { isDatabaseUnavailable } from '../../store/db.ts';
import { isTemporalUnavailable, TEMPORAL_UNAVAILABLE } from '../temporal-call.ts';

export function sendProblem(res: Response, error: ServiceError, traceId: string): void {
  if (
    error instanceof RateLimitedError ||
    error instanceof StreamLimitError ||
    error instanceof QueueFullError ||
    error instanceof DependencyUnavailableError
  )
    res.setHeader('Retry-After', String(error.retryAfterSeconds));
  res
    .status(error.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(
      JSON.stringify({
        type: error.type,
        title: error.title,
        status: error.status,
        detail: error.message,
        traceId,
        ...error.extra(),
      }),
    );
}

/** body-parser reports its failures as errors with a `type`; map them onto ours. */
function fromBodyParser(error: { type?: unknown; status?: unknown; limit?: unknown }): ServiceError | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return new PayloadTooLargeError(`The body is larger than the limit of ${String(error.limit)} bytes`);
    case 'entity.parse.failed':
      return new MalformedBodyError('The body is not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError('The body uses an unsupported encoding or charset');
    case 'request.aborted':
    case 'request.size.invalid':
      return new MalformedBodyError('The body ended early or did not match its Content-Length');
    default:
      return undefined;
  }
}

/**
 * A dependency that is down or stalled is 503, not 500. The raw error (pg's or gRPC's text, which
 * may name an internal host:port) is logged; the client reads only which part is unavailable.
 */
function fromDependency(error: unknown): ServiceError | undefined {
  if (isDatabaseUnavailable(error)) return new DependencyUnavailableError('The database did not answer in time; try again shortly');
  if (isTemporalUnavailable(error)) return new DependencyUnavailableError(TEMPORAL_UNAVAILABLE);
  return undefined;
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`No route for ${req.method} ${req.path}`));
};

export const problemHandler: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  const known =
    error instanceof ServiceError
      ? error
      : typeof error === 'object' && error !== null
        ? fromBodyParser(error as Record<string, unknown>)
        : undefined;
  if (res.headersSent) {
    req.log.warn({ err: error }, 'error after the response started');
    res.destroy();
    return;
  }
  if (known) {
    sendProblem(res, known, req.traceId);
    return;
  }
  const unavailable = fromDependency(error);
  if (unavailable) {
    req.log.warn({ err: error }, 'a dependency did not answer');
    sendProblem(res, unavailable, req.traceId);
    return;
  }
  req.log.error({ err: error }, 'unhandled error');
  res
    .status(500)
    .type(PROBLEM_CONTENT_TYPE)
    .send(
      JSON.stringify({
        type: problemType('internal'),
        title: PROBLEMS.internal.title,
        status: PROBLEMS.internal.status,
        detail: 'Something went wrong on our side. Quote the trace id when reporting it.',
        traceId: req.traceId,
      }),
    );
};
