// The production worker (`workers/main.ts`) as a separate process, so a test can kill it for real.
// From the tests' build of the service by default (service-build.ts); `npmScript('worker')` starts it as `npm run worker` does (the build, in production).
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';
import path from 'node:path';
import { testProcessEnv } from './env.ts';
import { fromBuild, killLaunched, servingPid, signalIfRunning, reportUncleanStop, type Launch } from './launch.ts';

export interface WorkerProcess {
  process: ChildProcess;
  /** The process that runs the worker (under npm, npm's child); kill() signals this one. */
  pid: number;
  output(): string;
  /** Resolves once the output holds `text`; rejects with the output after `timeoutMs`. */
  waitForOutput(text: string, timeoutMs: number): Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function startWorkerProcess(
  env: Record<string, string>,
  launch: Launch = fromBuild('workers/main.ts'),
): Promise<WorkerProcess> {
  const child = spawn(launch.command, launch.args, {
    cwd: path.resolve('.'),
    env: testProcessEnv('info', env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 90_000;
  while (!output.includes('worker polling')) {
    if (child.exitCode !== null) throw new Error(`worker exited before polling:\n${output}`);
    if (Date.now() > deadline) {
      killLaunched(child);
      throw new Error(`worker did not start polling:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pid = servingPid(child, launch);
  return {
    process: child,
    pid,
    output: () => output,
    async waitForOutput(text, timeoutMs) {
      const until = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (Date.now() > until) throw new Error(`the worker did not log "${text}" in ${timeoutMs} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async kill(signal) {
      if (child.exitCode === null) signalIfRunning(pid, signal);
      await exited;
      reportUncleanStop('worker process', child, signal, output);
    },
  };
}

/** The worker processes a test file starts (push each one), SIGKILLed after its tests whatever happened. */
export function workersKilledAfterAll(): WorkerProcess[] {
  const workers: WorkerProcess[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill('SIGKILL')));
  });
  return workers;
}
