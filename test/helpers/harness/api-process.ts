// The production API (`api/server.ts`) as a separate process on a free port, so a test can kill it
// for real (SIGKILL: no graceful close, its sockets simply die) or run two of them side by side.
// From the tests' build of the service by default (service-build.ts); `npmScript('api')` starts it as `npm run api` does (the build, in production).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { testProcessEnv } from './env.ts';
import { freePort, waitFor } from '../../../dev/ports.ts';
import { fromBuild, killLaunched, servingPid, signalIfRunning, reportUncleanStop, type Launch } from './launch.ts';

export interface ApiProcess {
  url: string;
  process: ChildProcess;
  /** The process that serves (under npm, npm's child); kill() signals this one. */
  pid: number;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * `env`: the test environment's settings (its TASK_QUEUE, model URLs, ...), as the in-process API gets
 * them. Resolves once the process serves HTTP (liveness), whether or not it reaches Temporal.
 */
export async function startApiProcess(env: Record<string, string>, launch: Launch = fromBuild('api/server.ts')): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(launch.command, launch.args, {
    cwd: path.resolve('.'),
    env: testProcessEnv('warn', {
      RATE_LIMIT_POINTS: '1000000',
      AUTH_FAILURE_LIMIT_POINTS: '1000000',
      HOUSEKEEPING_INTERVAL_MS: '0',
      SEND_SWEEP_INTERVAL_MS: '0',
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the API process exited:\n${output}`);
        return (await fetch(`${url}/auth/health/live`).catch(() => undefined))?.status === 200;
      },
      60_000,
      'the API process',
    );
  } catch (error) {
    killLaunched(child);
    throw error;
  }
  const pid = servingPid(child, launch);
  return {
    url,
    process: child,
    pid,
    output: () => output,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) signalIfRunning(pid, signal);
      await exited;
      reportUncleanStop('API process', child, signal, output);
    },
  };
}
