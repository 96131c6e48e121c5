// The worker process's metrics and traces, each off unless configured. With WORKER_METRICS_PORT, the
// worker serves /metrics there: our metrics, then the Temporal SDK's own worker metrics (its Core
// exports them in the Prometheus format on a loopback port of its own, read at each scrape), so one
// scrape target per worker has both. With OTEL_EXPORTER_OTLP_ENDPOINT, the Temporal SDK's
// OpenTelemetry plugin traces workflows and activities, continuing the trace of whoever started them.
import net from 'node:net';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { MetricsExporterConfig } from '@temporalio/worker';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import type { Db } from '../store/db.ts';
import { startTracing } from '../lib/tracing.ts';
import { serveMetrics, type MetricsServer } from '../lib/metrics/serve-metrics.ts';
import { watchPool } from '../lib/metrics/pool-metrics.ts';
import { registerWorkerGauges } from './metric-gauges.ts';
import type { WorkflowPlugin } from './workflow-code.ts';

export interface WorkerObservability {
  /** For Runtime.install's telemetryOptions: where Core exports its metrics (undefined: nowhere). */
  temporalMetrics: MetricsExporterConfig | undefined;
  /** For the worker: the tracing plugin, when tracing is on. */
  plugins: WorkflowPlugin[];
  /** Serves /metrics, when configured; after the runtime is installed. */
  serve(db: Db): Promise<void>;
  close(): Promise<void>;
}

export async function startWorkerObservability(config: Config, logger: Logger): Promise<WorkerObservability> {
  const tracing = startTracing(config, 'worker');
  const port = config.metrics.workerPort;
  const corePort = port === undefined ? undefined : await freeLoopbackPort();
  let server: MetricsServer | undefined;
  return {
    temporalMetrics: corePort === undefined ? undefined : { prometheus: { bindAddress: `127.0.0.1:${corePort}` } },
    plugins: tracing ? [new OpenTelemetryPlugin({ resource: tracing.resource, spanProcessor: tracing.spanProcessor })] : [],
    async serve(db) {
      watchPool(db);
      if (port === undefined) return;
      registerWorkerGauges(db, logger);
      server = await serveMetrics({ host: config.metrics.host, port, logger, more: () => temporalSdkMetrics(corePort!) });
    },
    async close() {
      await server?.close();
      await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'the last spans could not be sent'));
    },
  };
}

async function temporalSdkMetrics(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`the Temporal SDK's metrics answered ${response.status}`);
  return response.text();
}

/** A loopback port free now, for Core's exporter (which takes an address, not a listening socket). */
async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
