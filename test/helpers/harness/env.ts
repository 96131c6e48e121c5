// What the global setup started, for test files: the settings every process of a test runs with, in
// the test process (testConfig) or as a child process (the environment testProcessEnv gives).
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../../lib/config.ts';

/** The test database, Temporal and master key, in a given log level. */
function testEnvironment(logLevel: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    // A fixed test key: a master key file under .data must not be created by tests, and secrets and
    // links read the same in every process of a test.
    SERVICE_MASTER_KEY: 'test-master-key-0123456789abcdefghijklmnopqrstuvwxyz',
    LOG_LEVEL: logLevel,
  };
}

/** A child process's environment: this process's, with the test settings and then `env` over it. */
export function testProcessEnv(logLevel: string, env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { ...process.env, ...testEnvironment(logLevel), ...env };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    ...testEnvironment('silent'),
    // Every test speaks from 127.0.0.1 to one shared database: per-address budgets would make test
    // files interfere. Tests of the limits set their own.
    RATE_LIMIT_POINTS: '1000000',
    AUTH_FAILURE_LIMIT_POINTS: '1000000',
    DEVICE_CODE_RATE_LIMIT_POINTS: '1000000',
    // Sweeping uploads against the test database could remove files of a DATA_DIR it does not own
    // (tests without their own DATA_DIR share .data): tests of the sweep set their own.
    HOUSEKEEPING_INTERVAL_MS: '0',
    // Likewise the sweep of hand-overs: it would wake other tests' sessions onto this test's task queue.
    SEND_SWEEP_INTERVAL_MS: '0',
    ...overrides,
  });
}
