// A worker run from source keeps its workflow bundle under DATA_DIR (workers/source-bundle-cache.ts):
// the first start bundles and writes it, the next one finds it and bundles nothing, and the bundle is
// one a worker runs (the replay of a recorded session history against it succeeds). A traced worker's
// bundle (with the tracing plugin's workflow interceptors) is kept beside it, each replacing only its own
// older versions.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { Worker } from '@temporalio/worker';
import { cachedSourceBundle } from '../../workers/source-bundle-cache.ts';
import { createLogger } from '../../lib/logger.ts';
import { temporalWorkerDataConverter } from '../../lib/temporal-data-converter.ts';
import { converterPaths, pluginSetsToBundle } from '../../workers/workflow-code.ts';
import { loadMasterKeys } from '../../lib/master-key.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { readFixtures } from '../replay/history-fixtures.ts';

/** Replays a recorded session's history on `bundle`; throws if the bundle's workflows cannot. */
async function replayWith(bundle: string, plugins: ReturnType<typeof pluginSetsToBundle>[number] = []): Promise<void> {
  const config = testConfig();
  const fixture = readFixtures()
    .filter((one) => one.name.endsWith('/sessionWorkflow-inbox-sends-idle-ended'))
    .at(-1)!;
  await Worker.runReplayHistory(
    {
      workflowBundle: { codePath: bundle },
      dataConverter: temporalWorkerDataConverter(config, loadMasterKeys(config), converterPaths()),
      plugins,
    },
    fixture.history,
  );
}

test(
  'the first start bundles and keeps the bundle; the next finds it; a traced worker keeps its own beside it; workers replay a history with both',
  { timeout: 180_000 },
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-cache-'));
    const bundles = path.join(dataDir, 'workflow-bundles');
    const listed = () => fs.readdirSync(bundles).sort();
    try {
      const logger = createLogger({ level: 'silent' });
      // Bundles of older code lie there, one plain and one traced: each new one replaces its own kind only.
      const oldPlain = 'workflow-bundle-000000000000000000000000.js';
      const oldTraced = 'workflow-bundle.OpenTelemetryPlugin-000000000000000000000000.js';
      fs.mkdirSync(bundles);
      for (const name of [oldPlain, oldTraced]) fs.writeFileSync(path.join(bundles, name), '// old');

      const first = (await cachedSourceBundle(dataDir, logger))!;
      expect(path.basename(first)).toMatch(/^workflow-bundle-[0-9a-f]{24}\.js$/);
      expect(listed()).toEqual([path.basename(first), oldTraced].sort());
      // Found, not made again: the file is the one written first.
      const written = fs.statSync(first).mtimeMs;
      const second = await cachedSourceBundle(dataDir, logger);
      expect(second).toBe(first);
      expect(fs.statSync(first).mtimeMs).toBe(written);

      const tracing = pluginSetsToBundle()[1]!;
      const traced = (await cachedSourceBundle(dataDir, logger, tracing))!;
      expect(path.basename(traced)).toMatch(/^workflow-bundle\.OpenTelemetryPlugin-[0-9a-f]{24}\.js$/);
      expect(listed()).toEqual([path.basename(first), path.basename(traced)].sort());
      expect(await cachedSourceBundle(dataDir, logger, tracing)).toBe(traced);
      // The traced bundle holds the plugin's workflow interceptors; the plain one does not.
      expect(fs.readFileSync(traced, 'utf8')).toContain('OpenTelemetryInboundInterceptor');
      expect(fs.readFileSync(first, 'utf8')).not.toContain('OpenTelemetryInboundInterceptor');

      await replayWith(first);
      await replayWith(traced, tracing);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
