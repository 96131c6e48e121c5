// What the API process records about the requests it serves. Routes are labelled by their template
// ('/session/:id'), never the raw path: paths carry ids (one series each) and some carry secrets
// (signed approval tokens, trigger suffixes).
import { Counter, Gauge, Histogram } from 'prom-client';

export const httpRequests = new Counter({
  name: 'agent_service_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
});

export const httpRequestDuration = new Histogram({
  name: 'agent_service_http_request_duration_seconds',
  help: 'Time from a request arriving to its response ending (an SSE stream: until it closes), by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
});

export const sseConnectionsOpen = new Gauge({
  name: 'agent_service_sse_connections_open',
  help: 'SSE streams (event streams, streamed sends and regenerates) this API process holds open.',
});
