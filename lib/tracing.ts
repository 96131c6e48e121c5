// OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: the API's request spans, the
// Temporal client's spans (its calls carry the trace to workflows in their headers), then the
// workflow and activity spans of the Temporal SDK's interceptors, all exported over OTLP/HTTP to
// `<endpoint>/v1/traces`. While tracing is off nothing is registered, wrapped or sent.
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Config } from './config.ts';
import { contentFreeExporter } from './content-free-spans.ts';

export interface Tracing {
  resource: Resource;
  /** Where the worker's workflow spans go too (through the interceptors' sink). */
  spanProcessor: SpanProcessor;
  /** Sends the spans still buffered. */
  shutdown(): Promise<void>;
}

/**
 * Registers the process's tracer provider (with the async context that carries a span through
 * awaits, and W3C `traceparent` propagation); undefined while tracing is off.
 */
export function startTracing(config: Config, processName: 'api' | 'worker'): Tracing | undefined {
  const { endpoint, serviceName } = config.tracing;
  if (!endpoint) return undefined;
  const resource = new Resource({ 'service.name': serviceName ?? `agent-service-${processName}` });
  const url = `${endpoint.replace(/\/+$/, '')}/v1/traces`;
  // Without the operator's opt-in to content, no error text leaves the process either (content-free-spans.ts).
  const exporter = contentFreeExporter(new OTLPTraceExporter({ url }), config.tracing.captureContent);
  const spanProcessor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  return { resource, spanProcessor, shutdown: () => provider.shutdown() };
}

/** The Temporal client's interceptors: a span per call, its context sent in the workflow's headers. */
export function temporalClientTracing(config: Config): { interceptors?: { workflow: OpenTelemetryWorkflowClientInterceptor[] } } {
  return config.tracing.endpoint ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {};
}
