// The global setup of the service tier (vitest projects `dev-server` and `temporal-on-postgres`): starts,
// once per run, one PostgreSQL and one Temporal server (or uses DATABASE_URL and TEMPORAL_ADDRESS when
// set), applies migrations, bundles the workflows once and compiles the service for the processes tests
// start (service-build.ts) unless this code was compiled before. Test files reach
// them through `inject()` (see test/helpers/env.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type RunningPostgres } from '../../../dev/embedded-postgres.ts';
import { startTemporalDevServer, type RunningTemporal } from '../../../dev/temporal-dev-server.ts';
import { startPostgresTemporal } from '../../../dev/temporal-postgres.ts';
import { obtainTemporalCli } from '../../../dev/temporal-cli.ts';
import { freePort } from '../../../dev/ports.ts';
import { createPool } from '../../../store/db.ts';
import { migrate } from '../../../store/migrate.ts';
import { testWorkflowBundle } from './workflow-bundle.ts';
import { serviceBuild } from './service-build.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
    /** The service compiled for the API and worker processes tests start (service-build.ts). */
    serviceBuildDir: string;
    /** The Temporal CLI: the fast workflow tier (test/workflows) starts its own dev servers with it. */
    temporalCliPath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Under /tmp, which the `postgres` user can enter when tests run as root (see dev/embedded-postgres.ts).
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-test-'));
  fs.chmodSync(scratch, 0o755);
  let postgres: RunningPostgres | undefined;
  let temporal: RunningTemporal | undefined;
  const say = (line: string) => process.stderr.write(`[test setup] ${line}\n`);

  try {
    const databaseUrl =
      process.env.DATABASE_URL ??
      (postgres = await startEmbeddedPostgres({ dataDir: path.join(scratch, 'postgres'), port: await freePort() })).databaseUrl;
    const pool = createPool(databaseUrl, 2);
    await migrate(pool);
    await pool.end();

    const cliPath = await obtainTemporalCli(path.resolve('.data'), say);
    // The project `temporal-on-postgres` (vitest.config.ts) runs its files on a Temporal server backed
    // by PostgreSQL: databases of its own in the tests' PostgreSQL, fresh for each run.
    const onPostgres = project.name === 'temporal-on-postgres';
    const startTemporal = async (): Promise<string> => {
      if (onPostgres) {
        temporal = await startPostgresTemporal({
          adminUrl: databaseUrl,
          databasePrefix: `temporal_${process.pid}_${Date.now().toString(36)}`,
          dir: path.join(scratch, 'temporal-postgres'),
          namespace: 'default',
          log: say,
          dropDatabasesOnStop: true,
        });
        return temporal.address;
      }
      if (process.env.TEMPORAL_ADDRESS) return process.env.TEMPORAL_ADDRESS;
      temporal = await startTemporalDevServer({
        cli: cliPath,
        dbFile: path.join(scratch, 'temporal.db'),
        port: await freePort(),
        uiPort: 0,
        namespace: 'default',
        headless: true,
      });
      return temporal.address;
    };
    // The build for the tests' processes takes the bundles the tests keep: made after the plain one, not beside it.
    const [temporalAddress, { workflowBundlePath, serviceBuildDir }] = await Promise.all([
      startTemporal(),
      testWorkflowBundle().then(async (bundle) => ({ workflowBundlePath: bundle, serviceBuildDir: await serviceBuild(say) })),
    ]);

    project.provide('databaseUrl', databaseUrl);
    project.provide('temporalAddress', temporalAddress);
    project.provide('workflowBundlePath', workflowBundlePath);
    project.provide('serviceBuildDir', serviceBuildDir);
    project.provide('temporalCliPath', cliPath);
  } catch (error) {
    await temporal?.stop();
    await postgres?.stop();
    throw error;
  }

  return async () => {
    await temporal?.stop();
    await postgres?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  };
}
