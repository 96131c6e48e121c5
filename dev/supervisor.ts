// Forks launcher children (TypeScript files run through tsx) and stops them. Each child leads a
// process group of its own, so a Ctrl-C reaches only the launcher, which then stops the API and
// worker before the servers they depend on; and whatever a child started (the PostgreSQL or
// Temporal server) is in that group, so a child that must be killed takes it along.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  name: string;
  process: ChildProcess;
  /** What the child reported once ready; rejects if it fails, exits or times out first. */
  ready: Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

export interface ChildOptions {
  name: string;
  file: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** CommonJS modules loaded first, before the event loop runs. */
  preload?: string[];
  /** Flags for node itself (V8 settings). */
  nodeFlags?: readonly string[];
  /** How long to wait for the child's `ready` message. */
  readyTimeoutMs: number;
  /** Where its output goes (a file descriptor); the launcher's own output by default. */
  output?: number;
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Signals the child's whole process group; quietly nothing when it is already gone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/**
 * CPU_PROFILE_DIR: each child writes a V8 CPU profile there when it exits (`node --cpu-prof`, which Node
 * does not take from NODE_OPTIONS); bench/cpu-profile-top.ts ranks what they hold.
 */
function profileFlags(): string[] {
  const dir = process.env.CPU_PROFILE_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** Forks at once and returns the child, so that it can be stopped before it is ready. */
export function forkChild(options: ChildOptions): Child {
  const child = fork(path.join(ROOT, options.file), options.args ?? [], {
    cwd: ROOT,
    env: options.env ?? process.env,
    execArgv: [
      ...(options.nodeFlags ?? []),
      ...profileFlags(),
      ...(options.preload ?? []).flatMap((file) => ['--require', path.join(ROOT, file)]),
      '--import',
      'tsx',
    ],
    stdio: ['ignore', options.output ?? 'inherit', options.output ?? 'inherit', 'ipc'],
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    // A fork that never ran (e.g. EAGAIN) emits 'error' and no 'exit'.
    child.once('error', () => {
      if (child.pid === undefined) resolve(null);
    });
  });
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      reject(new Error(`${options.name} did not become ready within ${options.readyTimeoutMs / 1000} s`));
    }, options.readyTimeoutMs);
    child.on('message', (message: { type?: string; error?: string }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        const { type: _type, ...info } = message;
        resolve(info);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${options.name} failed to start: ${message.error}`));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with code ${code} before it was ready`));
    });
  });
  // A child stopped before it was ready rejects `ready` with nobody left to await it.
  ready.catch(() => undefined);
  return { name: options.name, process: child, ready, exited };
}

/** SIGTERM, then SIGKILL to its process group after `graceMs`; resolves once it has exited. */
export async function stopChild(child: Child, graceMs = 15_000): Promise<void> {
  if (hasExited(child.process)) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => signalGroup(child.process, 'SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}
