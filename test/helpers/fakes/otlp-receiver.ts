// An OpenTelemetry collector for tests: a real HTTP server on 127.0.0.1 taking OTLP/HTTP traces in
// their JSON encoding (what @opentelemetry/exporter-trace-otlp-http sends), keeping every span with
// the service that sent it, its attributes (decoded from OTLP's typed values), times and status.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './recorded.ts';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  startMs: number;
  endMs: number;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (spans arrive at /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Every export request's body as it arrived, to look for a text anywhere in what was sent. */
  bodies: string[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: Array<{ key: string; value: AnyValue }>;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  status?: { code?: number };
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: ExportedSpan[] }>;
  }>;
}

/** A value as the exporter typed it: int64s arrive as strings and become numbers here. */
function decoded(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decoded);
  return undefined;
}

const nanosToMs = (nanos: string | undefined) => (nanos ? Number(BigInt(nanos) / 1_000_000n) : 0);

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.startsWith('application/json')) {
        res.writeHead(404).end();
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      const body = JSON.parse(text) as ExportRequest;
      for (const resource of body.resourceSpans ?? []) {
        const service = resource.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '';
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind ?? 0,
              attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, decoded(value)])),
              startMs: nanosToMs(span.startTimeUnixNano),
              endMs: nanosToMs(span.endTimeUnixNano),
              statusCode: span.status?.code ?? 0,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, bodies, close: () => closeServer(server) };
}
