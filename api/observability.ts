// The API process's metrics server and tracer, both off unless configured (METRICS_PORT,
// OTEL_EXPORTER_OTLP_ENDPOINT). Tracing starts before anything else runs, so every request's
// context is carried through its awaits.
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import type { Db } from '../store/db.ts';
import { startTracing } from '../lib/tracing.ts';
import { serveMetrics, type MetricsServer } from '../lib/metrics/serve-metrics.ts';
import { watchPool } from '../lib/metrics/pool-metrics.ts';

export interface ApiObservability {
  /** Serves /metrics on METRICS_PORT, if set, with this pool's usage. */
  serve(db: Db): Promise<void>;
  close(): Promise<void>;
}

export function startApiObservability(config: Config, logger: Logger): ApiObservability {
  const tracing = startTracing(config, 'api');
  let server: MetricsServer | undefined;
  return {
    async serve(db) {
      watchPool(db);
      const port = config.metrics.apiPort;
      if (port !== undefined) server = await serveMetrics({ host: config.metrics.host, port, logger });
    },
    async close() {
      await server?.close();
      await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'the last spans could not be sent'));
    },
  };
}
