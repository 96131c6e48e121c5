// What benchmarks run against, started once per `npm run bench`: PostgreSQL (DATABASE_URL, else an
// embedded one in a temporary directory) with migrations applied, and a Temporal server
// (TEMPORAL_ADDRESS, else a headless dev server) only when a selected benchmark needs one. stop()
// stops and removes whatever was started here; it never touches a server named by the environment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type RunningPostgres } from '../dev/embedded-postgres.ts';
import { startTemporalDevServer, type RunningTemporal } from '../dev/temporal-dev-server.ts';
import { startPostgresTemporal } from '../dev/temporal-postgres.ts';
import { obtainTemporalCli } from '../dev/temporal-cli.ts';
import { freePort } from '../dev/ports.ts';
import { loadConfig } from '../lib/config.ts';
import { createPool } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';

type Origin = 'environment' | 'started' | 'none';

/**
 * Which Temporal server a run starts (`npm run bench -- --temporal=postgres`): the dev server (SQLite,
 * what `npm start` runs) or the server on PostgreSQL (what production runs; dev/temporal-postgres.ts),
 * whose databases go into the run's PostgreSQL beside the service's.
 */
/** What a benchmark needs started for it (bench/benchmark.ts). */
export type Need = 'postgres' | 'temporal';

export type TemporalEngine = 'dev-server' | 'postgres';

export interface Infra {
  /** Throws unless a selected benchmark declared it needs PostgreSQL. */
  databaseUrl(): string;
  /** Throws unless a selected benchmark declared it needs Temporal. */
  temporalAddress(): string;
  /** A private directory, removed by stop(). */
  scratchDir: string;
  /** Where each part came from, for the report. */
  origin: { postgres: Origin; temporal: Origin; temporalEngine?: TemporalEngine };
  /** The processes of the parts started here (not those from the environment), for CPU accounting. */
  pids(): { postgres?: number; temporal?: number };
  stop(): Promise<void>;
}

function required<T>(value: T | undefined, need: Need): T {
  if (value === undefined) throw new Error(`This benchmark uses ${need} but does not list it in its \`needs\``);
  return value;
}

export async function startInfra(
  needs: ReadonlySet<Need>,
  log: (line: string) => void,
  engine: TemporalEngine = 'dev-server',
): Promise<Infra> {
  // Environment variables are read through lib/config.ts, like everywhere else.
  const config = loadConfig();
  // Under os.tmpdir(), which the `postgres` user can enter when this runs as root (see dev/embedded-postgres.ts).
  const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-bench-'));
  fs.chmodSync(scratchDir, 0o755);
  let postgres: RunningPostgres | undefined;
  let temporal: RunningTemporal | undefined;
  const origin: Infra['origin'] = { postgres: 'none', temporal: 'none' };

  // Once only, however often it is called: a signal handler and the run's own `finally` may both call it.
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const part of [temporal, postgres]) {
        await part?.stop().catch((error: unknown) => log(`stopping failed: ${(error as Error).message}`));
      }
      fs.rmSync(scratchDir, { recursive: true, force: true });
    })());

  try {
    let databaseUrl: string | undefined;
    // The server on PostgreSQL keeps its state in the run's PostgreSQL.
    if (needs.has('postgres') || (needs.has('temporal') && engine === 'postgres' && !config.temporalAddress)) {
      if (config.databaseUrl) {
        databaseUrl = config.databaseUrl;
        origin.postgres = 'environment';
        log('PostgreSQL: DATABASE_URL');
      } else {
        log('PostgreSQL: starting an embedded server');
        postgres = await startEmbeddedPostgres({ dataDir: path.join(scratchDir, 'postgres'), port: await freePort() });
        databaseUrl = postgres.databaseUrl;
        origin.postgres = 'started';
      }
      const pool = createPool(databaseUrl, 2);
      try {
        const applied = await migrate(pool);
        if (applied.length) log(`PostgreSQL: applied migrations ${applied.join(', ')}`);
      } finally {
        await pool.end();
      }
    }

    let temporalAddress: string | undefined;
    if (needs.has('temporal')) {
      if (config.temporalAddress) {
        temporalAddress = config.temporalAddress;
        origin.temporal = 'environment';
        log('Temporal: TEMPORAL_ADDRESS');
      } else if (engine === 'postgres') {
        log('Temporal: starting a server on PostgreSQL');
        temporal = await startPostgresTemporal({
          adminUrl: databaseUrl!,
          databasePrefix: `temporal_bench_${Date.now().toString(36)}`,
          dir: path.join(scratchDir, 'temporal-postgres'),
          namespace: config.temporalNamespace,
          log,
        });
        temporalAddress = temporal.address;
        origin.temporal = 'started';
        origin.temporalEngine = 'postgres';
      } else {
        const cli = await obtainTemporalCli(config.dataDir, log);
        log('Temporal: starting a headless dev server');
        temporal = await startTemporalDevServer({
          cli,
          dbFile: path.join(scratchDir, 'temporal.db'),
          port: await freePort(),
          uiPort: 0,
          namespace: config.temporalNamespace,
          headless: true,
        });
        temporalAddress = temporal.address;
        origin.temporal = 'started';
        origin.temporalEngine = 'dev-server';
      }
    }

    return {
      databaseUrl: () => required(databaseUrl, 'postgres'),
      temporalAddress: () => required(temporalAddress, 'temporal'),
      scratchDir,
      origin,
      pids: () => ({
        ...(postgres?.pid ? { postgres: postgres.pid } : {}),
        ...(temporal?.pid ? { temporal: temporal.pid } : {}),
      }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
