import { defineConfig } from 'vitest/config';

/**
 * The durability scenarios, run a second time on a Temporal server backed by PostgreSQL (what
 * production runs; dev/temporal-postgres.ts) instead of the dev server's SQLite: a worker killed
 * mid-stream, client tools and approvals across worker restarts, aborts, two APIs and two workers.
 */
export const ON_POSTGRES_TEMPORAL = [
  'test/integration/crash.test.ts',
  'test/integration/client-tools.test.ts',
  'test/integration/workflow-graphs.test.ts',
  'test/integration/turn-approval-answers.test.ts',
  'test/integration/abort-by-notice.test.ts',
  'test/integration/webhook-events.test.ts',
  'test/e2e/scale-out.test.ts',
];

export default defineConfig({
  test: {
    // The Temporal native bridge is not safe across worker threads; each test file gets a process.
    pool: 'forks',
    // Fails a test whose API responses disagree with the OpenAPI document; lets Temporal require TypeScript.
    setupFiles: ['test/helpers/harness/contract-setup.ts', 'test/helpers/harness/require-typescript.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Files share one PostgreSQL and one Temporal server; two cores do not gain from more forks.
    maxWorkers: 2,
    env: { NODE_ENV: 'test' },
    // The JSON report is what .ci/run reads for its "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: '.data/test-results.json' }]],
    projects: [
      {
        extends: true,
        test: { name: 'dev-server', include: ['test/**/*.test.ts'], globalSetup: ['test/helpers/harness/global-setup.ts'] },
      },
      // Its global setup (the same file) starts the Temporal server on PostgreSQL for this project.
      {
        extends: true,
        test: { name: 'temporal-on-postgres', include: ON_POSTGRES_TEMPORAL, globalSetup: ['test/helpers/harness/global-setup.ts'] },
      },
    ],
  },
});
