// How a test starts a production process (api/server.ts, workers/main.ts): from the tests' build of the
// service with plain node (service-build.ts), as most tests do, or through its npm script as an operator
// starts it (`npm run api`), which with NODE_ENV=production runs the build in dist/ with plain node.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import { descendantsOf } from './processes.ts';

export interface Launch {
  command: string;
  args: string[];
  /** npm runs the script in a child of its own, which serves; npm passes SIGTERM and SIGINT on to it. */
  throughNpm: boolean;
}

/** `file` (a source path: 'workers/main.ts') compiled in the tests' build, with stack traces that name the source. */
export const fromBuild = (file: string): Launch => ({
  command: process.execPath,
  args: ['--enable-source-maps', path.join(inject('serviceBuildDir'), file.replace(/\.ts$/, '.js'))],
  throughNpm: false,
});

export const npmScript = (script: string): Launch => ({ command: 'npm', args: ['run', '--silent', script], throughNpm: true });

/**
 * The pid of the process that runs the service: the spawned process itself, or the one npm's script
 * exec'd into (so a test's SIGKILL reaches it: npm cannot pass that on, and would leave it running).
 */
export function servingPid(child: ChildProcess, launch: Launch): number {
  if (!launch.throughNpm) return child.pid!;
  const [served, ...others] = descendantsOf(child.pid!);
  if (!served || others.length > 0)
    throw new Error(`npm should run exactly one process, found: ${JSON.stringify(descendantsOf(child.pid!))}`);
  return served.pid;
}

/** After a failed start: SIGKILL to the spawned process and whatever it started (npm cannot pass SIGKILL on). */
export function killLaunched(child: ChildProcess): void {
  for (const { pid } of descendantsOf(child.pid!)) signalIfRunning(pid, 'SIGKILL');
  child.kill('SIGKILL');
}

/** kill(2), for a process that may have ended meanwhile. */
export function signalIfRunning(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * After a test's SIGTERM or SIGINT: a process that did not stop in order (lib/process.ts exits 1 past
 * SHUTDOWN_DEADLINE_MS, naming the step it waited on) has the end of its output printed, so a suite's
 * log says what held it. Not a failure of the test: the stop is not what it checks.
 */
export function reportUncleanStop(name: string, child: ChildProcess, signal: NodeJS.Signals, output: string): void {
  if ((signal !== 'SIGTERM' && signal !== 'SIGINT') || child.exitCode === 0 || child.exitCode === null) return;
  const tail = output.split('\n').slice(-40).join('\n');
  console.warn(`[${name}] did not stop in order after ${signal} (exit code ${child.exitCode}); its last output:\n${tail}`);
}
