// An API or worker process's stop (lib/process.ts, onShutdown): its steps run in order after SIGTERM and
// it exits 0; a step that never ends does not hold the process past SHUTDOWN_DEADLINE_MS: it logs that
// step's name and exits 1, so an operator reads what the stop waited on instead of a SIGKILL's silence.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

interface Stopped {
  code: number | null;
  lines: Array<{ msg: string; step?: string; deadlineMs?: number }>;
  ms: number;
}

async function stopWith(env: Record<string, string>): Promise<Stopped> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/fixtures/processes/stopping.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('"msg":"ready"')) resolve();
    });
    child.once('exit', () => reject(new Error(`exited before it was ready:\n${output}`)));
  });
  const signalled = performance.now();
  child.kill('SIGTERM');
  const code = await exited;
  const lines = output
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Stopped['lines'][number]);
  return { code, lines, ms: performance.now() - signalled };
}

describe('a process stopping on SIGTERM', { timeout: 30_000 }, () => {
  test('runs its steps in order and exits 0 when they end within the deadline', async () => {
    const stopped = await stopWith({ HANG_MS: '200', DEADLINE_MS: '10000' });
    expect(stopped.code).toBe(0);
    const done = stopped.lines.filter((line) => line.msg === 'shutdown step done').map((line) => line.step);
    expect(done).toEqual(['the quick step', 'the slow step']);
    expect(stopped.lines.some((line) => line.msg.includes('did not end in time'))).toBe(false);
  });

  test('a step that never ends: past the deadline it names that step and exits 1', async () => {
    const stopped = await stopWith({ DEADLINE_MS: '1500' });
    expect(stopped.code).toBe(1);
    const overdue = stopped.lines.find((line) => line.msg.includes('did not end in time'));
    expect(overdue).toMatchObject({ step: 'the slow step', deadlineMs: 1500 });
    expect(stopped.ms).toBeGreaterThanOrEqual(1500);
  });
});
