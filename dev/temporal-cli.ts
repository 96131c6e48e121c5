// Finds the Temporal CLI (which carries the dev server and Web UI), in this order:
// TEMPORAL_CLI_PATH, then `temporal` on PATH, then a copy installed under DATA_DIR/bin, else builds
// one there with `go install` (v1.5.1: later tags carry a `replace` directive and cannot be
// installed that way). A cold build takes minutes; it happens once per DATA_DIR.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

/** An executable regular file (the CLI, the server on PostgreSQL and its schema tool are found this way). */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  return envPath
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name))
    .find(isExecutable);
}

export function findTemporalCli(dataDir: string, env = process.env): string | undefined {
  const explicit = env.TEMPORAL_CLI_PATH?.trim();
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    return explicit;
  }
  return onPath('temporal', env.PATH) ?? [path.join(dataDir, 'bin', 'temporal')].find(isExecutable);
}

/** `signal` (the launcher stopping) ends a build in progress. */
export async function obtainTemporalCli(dataDir: string, say: (line: string) => void, signal?: AbortSignal): Promise<string> {
  const found = findTemporalCli(dataDir);
  if (found) return found;
  const go = onPath('go');
  if (!go || spawnSync(go, ['version']).status !== 0) {
    throw new Error(
      'The Temporal CLI was not found (TEMPORAL_CLI_PATH, PATH, DATA_DIR/bin) and Go is not installed to build it. ' +
        `Install Go and run "go install ${TEMPORAL_CLI_MODULE}", or set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS to use an existing Temporal server.`,
    );
  }
  const binDir = path.join(dataDir, 'bin');
  fs.mkdirSync(binDir, { recursive: true });
  say(`Building the Temporal CLI (go install ${TEMPORAL_CLI_MODULE}) into ${binDir}.`);
  say('This happens once and takes a few minutes; later starts reuse it.');
  const started = Date.now();
  const ticker = setInterval(() => say(`  still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)...`), 30_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', TEMPORAL_CLI_MODULE], {
        env: { ...process.env, GOBIN: binDir },
        stdio: ['ignore', 'inherit', 'inherit'],
        signal,
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install exited with code ${code}`))));
    });
  } finally {
    clearInterval(ticker);
  }
  const built = path.join(binDir, 'temporal');
  if (!isExecutable(built)) throw new Error(`go install finished but ${built} is missing`);
  say(`Temporal CLI ready (${Math.round((Date.now() - started) / 1000)} s).`);
  return built;
}
