import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The Temporal native bridge is not safe across worker threads; each test file gets a process.
    pool: 'forks',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/harness/global-setup.ts'],
    // Fails a test whose API responses disagree with the OpenAPI document; lets Temporal require TypeScript.
    setupFiles: ['test/helpers/harness/contract-setup.ts', 'test/helpers/harness/require-typescript.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Files share one PostgreSQL and one Temporal server; two cores do not gain from more forks.
    maxWorkers: 2,
    env: { NODE_ENV: 'test' },
    // The JSON report is what .ci/run reads for its "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: '.data/test-results.json' }]],
  },
});
