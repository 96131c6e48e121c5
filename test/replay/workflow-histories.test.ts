// Upgrade safety: every recorded history under test/fixtures/histories (this release's and the previous
// release's, a folder each) replays against the current workflow code, bundled as the worker bundles it.
// A history is what a run in flight carries across a deploy; a change to a workflow's commands (an
// activity more, a timer moved, a child started in another order) that is not behind patched() makes
// its replay fail here, naming the fixture, instead of failing that run in production. Fixtures are
// recorded by `npm run record-histories`, never here.
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { DefaultLogger, Runtime, Worker, type ReplayResult } from '@temporalio/worker';
import * as workflows from '../../workflows/index.ts';
import fs from 'node:fs';
import path from 'node:path';
import { HISTORIES_DIR, readFixtures, RELEASE, secretsIn } from './history-fixtures.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { loadMasterKeys } from '../../lib/master-key.ts';
import { temporalWorkerDataConverter } from '../../lib/temporal-data-converter.ts';
import { converterPaths } from '../../workers/workflow-code.ts';

const fixtures = readFixtures();
const results = new Map<string, ReplayResult>();

beforeAll(async () => {
  // The replay worker's state changes are noise; a replay failure comes back in its result.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const config = testConfig();
  // One replay worker for all fixtures, on the bundle the global setup built from WORKFLOWS_PATH.
  const replays = Worker.runReplayHistories(
    // With the service's payload codec, as its workers replay: fixtures may hold ciphertext or plaintext.
    {
      workflowBundle: { codePath: inject('workflowBundlePath') },
      dataConverter: temporalWorkerDataConverter(config, loadMasterKeys(config), converterPaths()),
    },
    fixtures.map((fixture) => ({ workflowId: fixture.name, history: fixture.history })),
  );
  for await (const result of replays) results.set(result.workflowId, result);
}, 120_000);

describe('recorded workflow histories', () => {
  test.each(fixtures.map((fixture) => fixture.name))('%s replays against the current workflow code', (name) => {
    const result = results.get(name);
    expect(result, `${name} was not replayed`).toBeDefined();
    if (result?.error) {
      throw new Error(
        `test/fixtures/histories/${name}.json no longer replays against the current workflow code ` +
          `(${result.error.name}): ${result.error.message}\n` +
          'A run in flight with this history would fail after a deploy. Put the change behind patched() ' +
          '(docs/development.md, "Versioning workflows"), or make it a new workflow type.',
      );
    }
  });

  test('every workflow type the worker registers has a history recorded by this release, for the next one to replay', () => {
    const registered = Object.entries(workflows)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name)
      .sort();
    const recorded = new Set(fixtures.filter((fixture) => fixture.release === RELEASE).map((fixture) => fixture.workflowType));
    const missing = registered.filter((type) => !recorded.has(type));
    expect(
      missing,
      `workflows without a fixture in test/fixtures/histories/${RELEASE}: add a scenario to test/replay/record and run \`npm run record-histories\``,
    ).toEqual([]);
  });

  test("the fixtures are this release's and the previous release's, each in its release's folder, named <workflowType>-<state>", () => {
    const { releases } = JSON.parse(fs.readFileSync(path.resolve(HISTORIES_DIR, '../../../releases.json'), 'utf8')) as {
      releases: Array<{ version: string }>;
    };
    const kept = [releases.at(-1)?.version, RELEASE].filter((version) => version !== undefined);
    const folders = fs.readdirSync(HISTORIES_DIR).sort();
    expect(
      folders.filter((folder) => !kept.includes(folder)),
      'an older release replays nowhere: remove its folder',
    ).toEqual([]);
    for (const fixture of fixtures) expect(fixture.name).toMatch(new RegExp(`^${fixture.release}/${fixture.workflowType}-[a-z0-9-]+$`));
  });

  test('no fixture holds a key, a webhook secret, a signed answer link or a bot token', () => {
    for (const fixture of fixtures) expect(secretsIn(fixture.text), fixture.name).toEqual([]);
  });
});
