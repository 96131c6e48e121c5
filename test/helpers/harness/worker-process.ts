// The production worker (`workers/main.ts`) as a separate process, so a test can kill it for real.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';

export interface WorkerProcess {
  process: ChildProcess;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: path.resolve('.'),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      SERVICE_MASTER_KEY: 'test-master-key-0123456789abcdefghijklmnopqrstuvwxyz',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 90_000;
  while (!output.includes('worker polling')) {
    if (child.exitCode !== null) throw new Error(`worker exited before polling:\n${output}`);
    if (Date.now() > deadline) throw new Error(`worker did not start polling:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    process: child,
    output: () => output,
    async kill(signal) {
      if (child.exitCode === null) child.kill(signal);
      await exited;
    },
  };
}
