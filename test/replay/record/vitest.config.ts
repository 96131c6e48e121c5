// `npm run record-histories`: the recordings run under vitest so they get what the tests get (the
// global setup's PostgreSQL, Temporal dev server and workflow bundle, and the harness that reads them
// through `inject`), but only with this config: `npm test` never records.
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import base from '../../../vitest.config.ts';

export default defineConfig({
  ...base,
  root: path.resolve(import.meta.dirname, '../../..'),
  test: {
    ...base.test,
    // One project, on the dev server: recordings are histories of the engine `npm start` runs.
    projects: undefined,
    globalSetup: ['test/helpers/harness/global-setup.ts'],
    // The in-process workers require the payload converter from its TypeScript source, as the tests' do.
    setupFiles: ['test/helpers/harness/require-typescript.ts'],
    include: ['test/replay/record/*.record.ts'],
    testTimeout: 60_000,
    reporters: ['default'],
  },
});
