// Counts every request and times it, labelled by method, route template and status
// (lib/metrics/http-metrics.ts). Recorded when the response ends, or when its connection closes
// first (a client leaving an SSE stream): each request is counted once.
import type { RequestHandler } from 'express';
import { httpRequestDuration, httpRequests } from '../../lib/metrics/http-metrics.ts';

export function requestMetrics(): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      // Known once routing ran; anything no route matched (unknown paths, the dashboard's files) is one series.
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      httpRequests.inc(labels);
      httpRequestDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}
