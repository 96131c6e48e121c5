// Runs one of the service's entry points (`workers/main.ts`, a command of `npm run ...`) as a process
// with the test database, Temporal and master key, to its exit: what an operator's terminal shows.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { testProcessEnv } from './env.ts';

export async function runScriptToExit(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: path.resolve('.'),
    env: testProcessEnv('info', env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  return { code, output };
}
