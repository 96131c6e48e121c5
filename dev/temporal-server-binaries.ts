// The Temporal server that production runs (persistence and visibility in PostgreSQL), built from
// the Go module proxy once and cached beside the CLI: the server itself and its schema tool, from
// go.temporal.io/server at the version the CLI embeds. A cold build takes a few minutes.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isExecutable } from './temporal-cli.ts';

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';

export interface TemporalServerBinaries {
  server: string;
  /** temporal-sql-tool: creates the databases and applies the versioned schemas. */
  sql: string;
  /** The schemas of the PostgreSQL plugin (`temporal/versioned`, `visibility/versioned`) in the module's source. */
  schemaDir: string;
}

function cacheDir(env = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'agent-service', `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

/** The module's source directory (in Go's module cache, downloaded once through the proxy). */
function moduleDir(): string {
  const listed = spawnSync('go', ['mod', 'download', '-json', `${MODULE}@${TEMPORAL_SERVER_VERSION}`], { encoding: 'utf8' });
  if (listed.status !== 0)
    throw new Error(`go mod download ${MODULE}@${TEMPORAL_SERVER_VERSION} failed: ${listed.stderr || listed.stdout}`);
  const { Dir } = JSON.parse(listed.stdout) as { Dir?: string };
  if (!Dir) throw new Error(`go mod download named no directory for ${MODULE}@${TEMPORAL_SERVER_VERSION}`);
  return Dir;
}

/** Finds the cached binaries or builds them (`go install`); `say` tells of a build. */
export async function obtainTemporalServer(say: (line: string) => void): Promise<TemporalServerBinaries> {
  const bin = cacheDir();
  const server = path.join(bin, 'server');
  const sql = path.join(bin, 'sql');
  if (!isExecutable(server) || !isExecutable(sql)) {
    const packages = [`${MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`, `${MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`];
    say(`building the Temporal server on PostgreSQL (go install ${packages.join(' ')}) into ${bin}; minutes on a cold cache`);
    fs.mkdirSync(bin, { recursive: true });
    for (const pkg of packages) {
      await new Promise<void>((resolve, reject) => {
        const child = spawn('go', ['install', pkg], { env: { ...process.env, GOBIN: bin }, stdio: ['ignore', 'inherit', 'inherit'] });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${pkg} exited with code ${code}`))));
      });
    }
  }
  return { server, sql, schemaDir: path.join(moduleDir(), 'schema', 'postgresql', 'v12') };
}
