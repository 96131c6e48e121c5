import { defineConfig } from 'vitest/config';
import ServiceSequencer from './test/helpers/harness/sequencer.ts';

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

const UNIT = ['test/unit/**/*.test.ts'];
/** Lets a test's in-process worker require the payload converter from its TypeScript source, as Temporal does. */
const REQUIRE_TYPESCRIPT = 'test/helpers/harness/require-typescript.ts';
/** Fails a test whose in-process API answers disagree with the OpenAPI document. */
const CONTRACT_CHECK = 'test/helpers/harness/contract-setup.ts';
const WORKFLOWS = ['test/workflows/**/*.test.ts', 'test/replay/**/*.test.ts'];

export default defineConfig({
  test: {
    // The durability project's files start first rather than last (see the sequencer).
    sequence: { sequencer: ServiceSequencer },
    // The Temporal native bridge is not safe across worker threads; each test file gets a process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Two forks: a third barely shortened the service tier while slowing each of its files, as the two cores
    // were busy already, which leaves the tests that kill processes less margin (docs/development.md,
    // "Commands and tests", has the figures).
    maxWorkers: 2,
    env: { NODE_ENV: 'test' },
    // The JSON report is what .ci/run reads for its "N passed, N failed" line; `npm test` (dev/test.ts)
    // gives each tier a file of its own and merges them there.
    reporters: ['default', ['json', { outputFile: process.env.VITEST_JSON_REPORT ?? '.data/test-results.json' }]],
    // Three tiers, each with the setup it needs and no more (docs/development.md, "Tests"); `npm test`
    // runs them in this order (dev/test.ts) and stops at the first that fails.
    projects: [
      // Pure: no PostgreSQL, no Temporal, no global setup. Its files share each fork's process and
      // modules too (see the service below): that took the tier from about 68 s to 22 s on this machine.
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      // Workflow code on Temporal's test environments and the replay of recorded histories: the bundle and the CLI only.
      {
        extends: true,
        test: {
          name: 'workflows',
          include: WORKFLOWS,
          setupFiles: [REQUIRE_TYPESCRIPT],
          globalSetup: ['test/helpers/harness/workflow-setup.ts'],
        },
      },
      // The service: PostgreSQL, a Temporal dev server, the API and workers, the CLI, the SDK and the dashboard.
      // Its files share each fork's process and modules (`isolate: false`): the service's modules and the
      // packages (Temporal's SDK, the AI SDK, Express, ...) load once per fork, not once per file, which was
      // about half of a small file's time. So a file closes what it started, keeps its state in its
      // fixtures, not in a module, and what belongs to the process (Temporal's runtime, tsx's require hook)
      // is set up once (quiet-runtime.ts, require-typescript.ts). Setup files still run before each file.
      {
        extends: true,
        test: {
          name: 'dev-server',
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...WORKFLOWS],
          setupFiles: [CONTRACT_CHECK, REQUIRE_TYPESCRIPT],
          globalSetup: ['test/helpers/harness/global-setup.ts'],
        },
      },
      // Its global setup (the same file) starts the Temporal server on PostgreSQL for this project.
      {
        extends: true,
        test: {
          name: 'temporal-on-postgres',
          isolate: false,
          include: ON_POSTGRES_TEMPORAL,
          setupFiles: [CONTRACT_CHECK, REQUIRE_TYPESCRIPT],
          globalSetup: ['test/helpers/harness/global-setup.ts'],
        },
      },
    ],
  },
});
