// Metrics and traces are off until an operator turns them on: no metrics port is opened and nothing
// is traced or sent by default; the settings that turn them on are checked like every other.
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { startTracing, temporalClientTracing } from '../../lib/tracing.ts';

describe('metrics and tracing settings', () => {
  test('by default no process serves metrics and nothing is traced', () => {
    const config = loadConfig({});
    expect(config.metrics).toEqual({ host: '127.0.0.1', apiPort: undefined, workerPort: undefined });
    expect(config.tracing.endpoint).toBeUndefined();
    expect(startTracing(config, 'api')).toBeUndefined();
    expect(temporalClientTracing(config)).toEqual({});
  });

  test('ports and the collector address are read and checked', () => {
    const config = loadConfig({
      METRICS_PORT: '9464',
      WORKER_METRICS_PORT: '9465',
      METRICS_HOST: '10.0.0.5',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(config.metrics).toEqual({ host: '10.0.0.5', apiPort: 9464, workerPort: 9465 });
    expect(temporalClientTracing(config).interceptors?.workflow).toHaveLength(1);
    expect(() => loadConfig({ METRICS_PORT: 'metrics' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKER_METRICS_PORT: '70000' })).toThrow(/WORKER_METRICS_PORT must be a port number/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
  });
});
