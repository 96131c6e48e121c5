// Runs `npm start`'s launcher (dev/main.ts) as a separate process on free ports and a DATA_DIR of
// its own, and reads its console: either the launcher itself, or `npm start` in a process group of
// its own, as a terminal runs it (a Ctrl-C there is a SIGINT to the whole group).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { inject } from 'vitest';
import { findTemporalCli } from '../../../dev/temporal-cli.ts';
import { workflowBundleDir } from '../../../workers/source-bundle-cache.ts';

export interface LauncherPorts {
  api: number;
  postgres: number;
  temporal: number;
  ui: number;
}

export interface RunningLauncher {
  process: ChildProcess;
  output(): string;
  /** Resolves with the console output once a line matches, rejects if the launcher exits first. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** As a terminal does: `npm start` gets the signal with its whole process group. */
  interrupt(signal?: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

export const READY = /ready\. Ctrl-C stops everything/;

/**
 * Ports below Linux's ephemeral range (32768 up): a launcher's ports are freed at its stop and bound
 * again by the next start, and in between any outgoing connection on the machine could take one from
 * that range (a full CI run lost the Temporal UI's port so).
 */
const FIXED_PORTS = { from: 20_000, to: 32_000 };

async function freeFixedPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = FIXED_PORTS.from + Math.floor(Math.random() * (FIXED_PORTS.to - FIXED_PORTS.from));
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.unref();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

export async function pickLauncherPorts(): Promise<LauncherPorts> {
  const taken = new Set<number>();
  return {
    api: await freeFixedPort(taken),
    postgres: await freeFixedPort(taken),
    temporal: await freeFixedPort(taken),
    ui: await freeFixedPort(taken),
  };
}

/**
 * Puts the run's workflow bundle where a worker of this code from source keeps it under `dataDir`
 * (workers/source-bundle-cache.ts, named by a hash of the code), so that the worker loads it rather than
 * running webpack, seconds of CPU for each new DATA_DIR. Returns `dataDir`.
 */
export function withWorkflowBundle(dataDir: string): string {
  const bundle = inject('workflowBundlePath');
  fs.mkdirSync(workflowBundleDir(dataDir), { recursive: true });
  fs.copyFileSync(bundle, path.join(workflowBundleDir(dataDir), path.basename(bundle)));
  return dataDir;
}

export function launcherEnv(dataDir: string, ports: LauncherPorts, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const cli = findTemporalCli(path.resolve('.data'));
  if (!cli) throw new Error('The Temporal CLI should have been obtained by the global setup');
  return {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    PORT: String(ports.api),
    EMBEDDED_PG_PORT: String(ports.postgres),
    TEMPORAL_DEV_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    TEMPORAL_CLI_PATH: cli,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    ADMIN_API_KEY: '',
    ...env,
  };
}

export function startLauncher(
  dataDir: string,
  ports: LauncherPorts,
  env: Record<string, string> = {},
  options: { via?: 'node' | 'npm'; cwd?: string } = {},
): RunningLauncher {
  const viaNpm = options.via === 'npm';
  const child = spawn(viaNpm ? 'npm' : process.execPath, viaNpm ? ['start'] : ['--import', 'tsx', 'dev/main.ts'], {
    // Another tree of the service (an earlier release's) runs from its own folder.
    cwd: options.cwd ?? path.resolve('.'),
    env: launcherEnv(dataDir, ports, env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: viaNpm,
  });
  return watchLauncher(child, viaNpm);
}

/** Collects the console of a launcher started some other way (`inGroup`: it leads its process group). */
export function watchLauncher(child: ChildProcess, inGroup = false): RunningLauncher {
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    output: () => output,
    exited,
    interrupt(signal = 'SIGINT') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (inGroup) process.kill(-child.pid!, signal);
      else child.kill(signal);
    },
    waitForOutput(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) {
            cleanup();
            resolve(output);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`launcher output did not match ${pattern} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then((code) => {
          if (!pattern.test(output)) {
            cleanup();
            reject(new Error(`launcher exited (${code}) before printing ${pattern}:\n${output}`));
          }
        });
        check();
      });
    },
  };
}
