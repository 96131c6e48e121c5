// `npm start`: the whole service on one machine. Without DATABASE_URL it runs an embedded
// PostgreSQL under DATA_DIR; without TEMPORAL_ADDRESS a Temporal dev server (SQLite under DATA_DIR,
// Web UI on). Then migrations, the API and a worker. State lives under DATA_DIR and survives
// restarts, including a launcher killed with SIGKILL.
// The start script is `exec node --import tsx dev/main.ts`: no shell (which dies at once on a SIGTERM
// to the terminal's process group, and npm with it) and no tsx wrapper (which SIGKILLs its child
// when it does not acknowledge a relayed signal within ~60 ms) stand between npm and this process,
// so npm, and with it the terminal's prompt, waits for this process, which exits only once every
// child has.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../lib/config.ts';
import { loadMasterKeys } from '../lib/master-key.ts';
import { createPool } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { bootstrapAdmin } from '../store/bootstrap.ts';
import { obtainTemporalCli } from './temporal-cli.ts';
import { forkChild, stopChild, type Child, type ChildOptions } from './supervisor.ts';
import { acquireLaunchLock, type LaunchLock } from './launch-lock.ts';
import { waitFor } from './ports.ts';
import type { DevServerSynchronous } from './temporal-dev-server.ts';
import { WORKER_NODE_FLAGS } from '../workers/node-flags.ts';

const say = (line: string) => console.log(`[launcher] ${line}`);

function portFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) throw new Error(`${name} must be a TCP port`);
  return value;
}

/** TEMPORAL_DEV_SYNCHRONOUS: how hard the dev server's SQLite file syncs (see dev/temporal-dev-server.ts). */
function synchronousFromEnv(): DevServerSynchronous {
  const value = process.env.TEMPORAL_DEV_SYNCHRONOUS ?? 'normal';
  if (value !== 'normal' && value !== 'full') throw new Error('TEMPORAL_DEV_SYNCHRONOUS must be normal or full');
  return value;
}

/** The servers the API and worker depend on: stopped last. */
const SERVERS = ['temporal', 'postgres'];

/** Runs the API or the worker, restarting it (with backoff) if it dies on its own. */
function supervise(
  name: string,
  file: string,
  env: NodeJS.ProcessEnv,
  isStopping: () => boolean,
  start: (options: ChildOptions) => Child,
  nodeFlags: readonly string[] = [],
) {
  let failures = 0;
  const run = async (): Promise<void> => {
    const started = Date.now();
    const child = start({ name, file, env, nodeFlags, preload: ['dev/exit-with-launcher.cjs'], readyTimeoutMs: 120_000 });
    await child.ready;
    void child.exited.then((code) => {
      if (isStopping()) return;
      failures = Date.now() - started > 60_000 ? 1 : failures + 1;
      const delay = Math.min(30_000, 1_000 * 2 ** (failures - 1));
      say(`${name} exited (code ${code}); restarting in ${delay / 1000} s`);
      setTimeout(() => void restart(), delay);
    });
  };
  // A restart that fails (e.g. PostgreSQL is briefly away) is tried again on the same backoff.
  const restart = async (): Promise<void> => {
    if (isStopping()) return;
    try {
      await run();
    } catch (error) {
      if (isStopping()) return;
      failures += 1;
      const delay = Math.min(30_000, 1_000 * 2 ** (failures - 1));
      say(`${name} could not restart (${(error as Error).message}); trying again in ${delay / 1000} s`);
      setTimeout(() => void restart(), delay);
    }
  };
  return run();
}

async function main(): Promise<void> {
  const config = loadConfig();
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // Master keys the API and worker would refuse stop the launch here, not in a loop of their restarts.
    loadMasterKeys(config);
  } catch (error) {
    say((error as Error).message);
    process.exit(1);
  }
  let lock: LaunchLock;
  try {
    lock = await acquireLaunchLock(config.dataDir, say);
  } catch (error) {
    say((error as Error).message);
    process.exit(1);
  }
  // Every child from the moment it is forked, so that a stop during start-up reaches it too.
  const children = new Map<string, Child>();
  const stopped = new AbortController();
  const stopping = () => stopped.signal.aborted;
  const start = (options: ChildOptions): Child => {
    if (stopping()) throw new Error('the launcher is stopping');
    const child = forkChild(options);
    children.set(options.name, child);
    return child;
  };

  const shutdown = async (reason: string, code: number) => {
    if (stopping()) return;
    stopped.abort();
    lock.setState('stopping');
    say(`stopping (${reason})...`);
    // Dependents first: the API and worker finish their work while the servers still run.
    const all = [...children.values()];
    await Promise.all(all.filter((child) => !SERVERS.includes(child.name)).map((child) => stopChild(child)));
    await Promise.all(all.filter((child) => SERVERS.includes(child.name)).map((child) => stopChild(child)));
    say('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const port = portFromEnv('EMBEDDED_PG_PORT', 5433);
      say(`starting embedded PostgreSQL on 127.0.0.1:${port} (data in ${path.join(config.dataDir, 'postgres')})`);
      const postgres = start({
        name: 'postgres',
        file: 'dev/child-postgres.ts',
        args: [JSON.stringify({ dataDir: path.join(config.dataDir, 'postgres'), port })],
        readyTimeoutMs: 120_000,
      });
      databaseUrl = String((await postgres.ready).databaseUrl);
    }

    const db = createPool(databaseUrl, 2);
    const applied = await migrate(db);
    if (applied.length) say(`applied migrations ${applied.join(', ')}`);
    const { createdAdminKey } = await bootstrapAdmin(db, config.adminApiKey);
    await db.end();

    let temporalAddress = config.temporalAddress;
    let uiUrl: string | undefined;
    // Said at ready: the binary that also runs `temporal schedule trigger` and friends against the dev server.
    let temporalCli: string | undefined;
    if (!temporalAddress) {
      const cli = await obtainTemporalCli(config.dataDir, say, stopped.signal);
      temporalCli = cli;
      const port = portFromEnv('TEMPORAL_DEV_PORT', 7233);
      const uiPort = portFromEnv('TEMPORAL_UI_PORT', 8233);
      say(`starting the Temporal dev server on 127.0.0.1:${port} (state in ${path.join(config.dataDir, 'temporal.db')})`);
      const temporal = start({
        name: 'temporal',
        file: 'dev/child-temporal.ts',
        args: [
          JSON.stringify({
            cli,
            dbFile: path.join(config.dataDir, 'temporal.db'),
            port,
            uiPort,
            namespace: config.temporalNamespace,
            synchronous: synchronousFromEnv(),
          }),
        ],
        readyTimeoutMs: 120_000,
      });
      const info = await temporal.ready;
      temporalAddress = String(info.address);
      uiUrl = String(info.uiUrl);
    }

    const env = {
      // The dev server's Web UI, unless one is named: GET /session links a session's workflows there.
      ...(uiUrl ? { TEMPORAL_UI_URL: uiUrl } : {}),
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      DATA_DIR: config.dataDir,
    };
    await Promise.all([
      supervise('api', 'api/server.ts', env, stopping, start),
      supervise('worker', 'workers/main.ts', env, stopping, start, WORKER_NODE_FLAGS),
    ]);
    const apiUrl = `http://${config.host}:${config.port}`;
    await waitFor(async () => (await fetch(`${apiUrl}/auth/health`).catch(() => undefined))?.ok === true, 60_000, 'The API');
    if (stopping()) return;
    lock.setState('running');

    console.log('');
    say(`API:             ${apiUrl}   (OpenAPI: ${apiUrl}/openapi.json)`);
    if (uiUrl) say(`Temporal Web UI: ${uiUrl}`);
    if (temporalCli) say(`Temporal CLI:    ${temporalCli}   (--address ${temporalAddress} --namespace ${config.temporalNamespace})`);
    say(`Data directory:  ${config.dataDir}`);
    if (createdAdminKey) {
      say('First start: created the admin user. Its API key is shown this once; keep it:');
      console.log(`\n    ADMIN_API_KEY=${createdAdminKey}\n`);
    }
    say('ready. Ctrl-C stops everything.');
  } catch (error) {
    // A stop during start-up makes what was starting fail; the stop itself reports.
    if (stopping()) return;
    say(`could not start: ${(error as Error).message}`);
    await shutdown('start-up failed', 1);
  }
}

void main();
