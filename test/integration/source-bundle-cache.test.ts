// A worker run from source keeps its workflow bundle under DATA_DIR (workers/source-bundle-cache.ts):
// the first start bundles and writes it, the next one finds it and bundles nothing, and the bundle is
// one a worker runs (the replay of a recorded session history against it succeeds).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { Worker } from '@temporalio/worker';
import { cachedSourceBundle } from '../../workers/source-bundle-cache.ts';
import { createLogger } from '../../lib/logger.ts';
import { temporalWorkerDataConverter } from '../../lib/temporal-data-converter.ts';
import { converterPaths } from '../../workers/workflow-code.ts';
import { loadMasterKeys } from '../../lib/master-key.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { readFixtures } from '../replay/history-fixtures.ts';

test(
  'the first start bundles and keeps the bundle; the next finds it; a worker replays a history with it',
  { timeout: 120_000 },
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-cache-'));
    try {
      const logger = createLogger({ level: 'silent' });
      // A bundle of older code lies there: the new one replaces it.
      fs.mkdirSync(path.join(dataDir, 'workflow-bundles'));
      fs.writeFileSync(path.join(dataDir, 'workflow-bundles', 'workflow-bundle-0000.js'), '// old');
      const first = await cachedSourceBundle(dataDir, logger);
      expect(fs.readdirSync(path.join(dataDir, 'workflow-bundles'))).toEqual([path.basename(first)]);
      // Found, not made again: the file is the one written first.
      const written = fs.statSync(first).mtimeMs;
      const second = await cachedSourceBundle(dataDir, logger);
      expect(second).toBe(first);
      expect(fs.statSync(second).mtimeMs).toBe(written);

      const config = testConfig();
      const fixture = readFixtures()
        .filter((one) => one.name.endsWith('/sessionWorkflow-inbox-sends-idle-ended'))
        .at(-1)!;
      await Worker.runReplayHistory(
        {
          workflowBundle: { codePath: first },
          dataConverter: temporalWorkerDataConverter(config, loadMasterKeys(config), converterPaths()),
        },
        fixture.history,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
