// With tracing on (lib/tracing.ts), one server span per request, continuing the caller's W3C
// `traceparent`; everything the request does (Temporal calls included) runs inside it, so the
// workflows it starts join its trace. Named by route template, as the metrics are.
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';

export function requestSpan(): RequestHandler {
  const tracer = trace.getTracer('agent-service-api');
  return (req, res, next) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } }, parent);
    const active = trace.setSpan(parent, span);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    // Listeners added later (the body parsers' among them) run inside the span too.
    context.bind(active, req);
    context.bind(active, res);
    context.with(active, next);
  };
}
