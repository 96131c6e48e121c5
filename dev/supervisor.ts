// Starts launcher children (TypeScript files run through tsx) and stops them in order. Children get
// their own process group, so a Ctrl-C reaches only the launcher, which then stops the API and
// worker before the servers they depend on.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  name: string;
  process: ChildProcess;
  info: Record<string, unknown>;
  exited: Promise<number | null>;
}

export function startChild(options: {
  name: string;
  file: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the child's `ready` message. */
  readyTimeoutMs: number;
}): Promise<Child> {
  const child = fork(path.join(ROOT, options.file), options.args ?? [], {
    cwd: ROOT,
    env: options.env ?? process.env,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not become ready within ${options.readyTimeoutMs / 1000} s`));
    }, options.readyTimeoutMs);
    child.on('message', (message: { type?: string; error?: string }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        const { type: _type, ...info } = message;
        resolve({ name: options.name, process: child, info, exited });
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
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChild(child: Child, graceMs = 15_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}
