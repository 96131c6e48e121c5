// What the global setup started, for test files.
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../../lib/config.ts';

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    // A fixed test key: a master key file under .data must not be created by tests.
    SERVICE_MASTER_KEY: 'test-master-key-0123456789abcdefghijklmnopqrstuvwxyz',
    LOG_LEVEL: 'silent',
    // Every test speaks from 127.0.0.1 to one shared database: per-address budgets would make test
    // files interfere. Tests of the limits set their own.
    RATE_LIMIT_POINTS: '1000000',
    AUTH_FAILURE_LIMIT_POINTS: '1000000',
    DEVICE_CODE_RATE_LIMIT_POINTS: '1000000',
    // Sweeping uploads against the test database could remove files of a DATA_DIR it does not own
    // (tests without their own DATA_DIR share .data): tests of the sweep set their own.
    HOUSEKEEPING_INTERVAL_MS: '0',
    ...overrides,
  });
}
