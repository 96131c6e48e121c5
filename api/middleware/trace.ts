// Gives every request a trace id (reusing a W3C `traceparent` when the caller sends one, or the
// request's span when tracing is on), returns it in `x-trace-id`, and logs one line per request. The
// log names the matched route pattern, not the raw path, because some paths carry secrets (signed
// approval tokens, trigger suffixes).
import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { trace } from '@opentelemetry/api';
import type { Logger } from '../../lib/logger.ts';

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

export function traceMiddleware(options: { logger: Logger }): RequestHandler {
  return (req, res, next) => {
    // With tracing on, the request's span (api/middleware/request-span.ts) already holds the trace: logs name its id.
    const incoming = trace.getActiveSpan()?.spanContext().traceId ?? TRACEPARENT.exec(req.get('traceparent') ?? '')?.[1];
    const traceId = incoming && !/^0+$/.test(incoming) ? incoming : randomBytes(16).toString('hex');
    req.traceId = traceId;
    req.log = options.logger.child({ traceId });
    res.setHeader('x-trace-id', traceId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      req.log.info(
        {
          method: req.method,
          route,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          userId: req.principal?.userId,
        },
        'request',
      );
    });
    next();
  };
}
