// The code sandbox's threads (activities/tools/code-sandbox/threads.ts): the worker ends a thread
// whose engine does not stop its script, whatever the engine does, and turns away a script that
// finds no free thread in time, instead of letting scripts pile up on a worker.
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../activities/tools/code-sandbox/threads.ts';

const limits = { timeMs: 5000, memoryBytes: 32 * 1024 * 1024, outputBytes: 64 * 1024 };
let sandbox: Sandbox | undefined;

function start(options: Partial<SandboxOptions>): Sandbox {
  sandbox = createSandbox({ limits, threads: 2, queueMs: 30_000, backstopMs: 6000, startMs: 15_000, heapMb: 64, ...options });
  return sandbox;
}

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('code sandbox threads', () => {
  it('end a thread at the backstop though its engine would let the script run on, and serve the next script', async () => {
    // The engine's own deadline is a minute away: only the worker's backstop can stop this in time
    // (and it leaves the next script, on a busy machine, its own while to answer).
    const threads = start({ limits: { ...limits, timeMs: 60_000 }, backstopMs: 3000 });
    expect(await threads.run({ code: 'while (true) {}', files: {} })).toEqual({ ok: false, failure: 'time', detail: '', stdout: '' });
    expect(await threads.run({ code: '6 * 7', files: {} })).toEqual({ ok: true, stdout: '', result: '42' });
  });

  it('turn away a script that waits longer than queueMs for a thread', async () => {
    const threads = start({ threads: 1, queueMs: 200, limits: { ...limits, timeMs: 3000 }, backstopMs: 4000 });
    const looping = threads.run({ code: 'for (;;) {}', files: {} });
    expect(await threads.run({ code: '1', files: {} })).toMatchObject({ ok: false, failure: 'busy' });
    expect(await looping).toMatchObject({ ok: false, failure: 'time' });
  });

  it('answer the scripts still waiting when closed', async () => {
    const threads = start({ threads: 1 });
    const looping = threads.run({ code: 'for (;;) {}', files: {} });
    const waiting = threads.run({ code: '1', files: {} });
    await threads.close();
    expect(await waiting).toMatchObject({ ok: false, failure: 'crash', detail: 'the worker is shutting down' });
    expect(await looping).toMatchObject({ ok: false });
  });
});
