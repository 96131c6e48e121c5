// The code sandbox's threads (activities/tools/code-sandbox/threads.ts): the worker ends a thread
// whose engine does not stop its script, whatever the engine does, and turns away a script that
// finds no free thread in time, instead of letting scripts pile up on a worker. Threads are shared out
// per user (fair-queue.ts): users with scripts waiting are served in turn, none runs more than its cap,
// so one user's flood never holds a thread another user's script waits for.
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../activities/tools/code-sandbox/threads.ts';
import { FairQueue } from '../../activities/tools/code-sandbox/fair-queue.ts';
import type { ScriptOutcome } from '../../activities/tools/code-sandbox/protocol.ts';

const limits = { timeMs: 5000, memoryBytes: 32 * 1024 * 1024, outputBytes: 64 * 1024 };
let sandbox: Sandbox | undefined;

function start(options: Partial<SandboxOptions>): Sandbox {
  sandbox = createSandbox({ limits, threads: 2, perUser: 2, queueMs: 30_000, backstopMs: 6000, startMs: 15_000, heapMb: 64, ...options });
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
    expect(await threads.run({ code: 'while (true) {}', files: {} }, 'usr_a')).toEqual({
      ok: false,
      failure: 'time',
      detail: '',
      stdout: '',
    });
    expect(await threads.run({ code: '6 * 7', files: {} }, 'usr_a')).toEqual({ ok: true, stdout: '', result: '42' });
  });

  it('turn away a script that waits longer than queueMs for a thread', async () => {
    const threads = start({ threads: 1, queueMs: 200, limits: { ...limits, timeMs: 3000 }, backstopMs: 4000 });
    const looping = threads.run({ code: 'for (;;) {}', files: {} }, 'usr_a');
    expect(await threads.run({ code: '1', files: {} }, 'usr_b')).toMatchObject({ ok: false, failure: 'busy' });
    expect(await looping).toMatchObject({ ok: false, failure: 'time' });
  });

  it('answer the scripts still waiting when closed', async () => {
    const threads = start({ threads: 1 });
    const looping = threads.run({ code: 'for (;;) {}', files: {} }, 'usr_a');
    const waiting = threads.run({ code: '1', files: {} }, 'usr_a');
    await threads.close();
    expect(await waiting).toMatchObject({ ok: false, failure: 'crash', detail: 'the worker is shutting down' });
    expect(await looping).toMatchObject({ ok: false });
  });
});

/** The order in which `outcomes` settle, by their names. */
async function settleOrder(outcomes: Record<string, Promise<ScriptOutcome>>): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(Object.entries(outcomes).map(([name, outcome]) => outcome.then(() => order.push(name))));
  return order;
}

describe('code sandbox threads shared out per user', () => {
  it("run another user's script at once while one user's flood holds all it may", async () => {
    // Three threads, at most two of them one user's: the third stays free for anyone else.
    const threads = start({ threads: 3, perUser: 2, limits: { ...limits, timeMs: 3000 }, backstopMs: 4000 });
    const flood = Array.from({ length: 4 }, () => threads.run({ code: 'for (;;) {}', files: {} }, 'usr_flood'));
    const small = threads.run({ code: '3 + 3', files: {} }, 'usr_small');
    const order = await settleOrder({ small, first: flood[0]!, second: flood[1]! });
    expect(order[0]).toBe('small');
    expect(await small).toEqual({ ok: true, stdout: '', result: '6' });
    for (const outcome of await Promise.all(flood)) expect(outcome).toMatchObject({ ok: false, failure: 'time' });
  }, 30_000);

  it('serve users with scripts waiting in turn, not in the order the scripts came', async () => {
    // One thread: the flooding user's first script runs; its next one waits behind the script another
    // user sent after it.
    const threads = start({ threads: 1, perUser: 1 });
    const ran: string[] = [];
    const run = (user: string, name: string) =>
      threads.run({ code: `'${name}'`, files: {} }, user).then((outcome) => void ran.push(outcome.ok ? JSON.parse(outcome.result!) : name));
    await Promise.all([run('usr_a', 'a1'), run('usr_a', 'a2'), run('usr_a', 'a3'), run('usr_b', 'b1'), run('usr_c', 'c1')]);
    expect(ran).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  }, 30_000);
});

describe('fair queue', () => {
  it('serves users with work waiting in turn: the one served longest ago (or never) first', () => {
    const queue = new FairQueue<string>(10);
    for (const item of ['a1', 'a2', 'a3']) queue.push('a', item);
    queue.push('b', 'b1');
    queue.push('c', 'c1');
    queue.push('c', 'c2');
    const started = Array.from({ length: 6 }, () => queue.next()?.item);
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
    expect(queue.next()).toBeUndefined();
  });

  it('starts none of a user past its cap until one of its items is done; others start meanwhile', () => {
    const queue = new FairQueue<string>(2);
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    expect(queue.next()).toEqual({ user: 'a', item: 'a1' });
    expect(queue.next()).toEqual({ user: 'a', item: 'a2' });
    expect(queue.next()).toBeUndefined();
    queue.push('b', 'b1');
    expect(queue.next()).toEqual({ user: 'b', item: 'b1' });
    queue.done('a');
    expect(queue.next()).toEqual({ user: 'a', item: 'a3' });
    expect(queue.next()).toBeUndefined();
  });

  it('lets a waiting item leave, and gives back every waiting item when drained', () => {
    const queue = new FairQueue<string>(1);
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    expect(queue.remove('a', 'a1')).toBe(true);
    expect(queue.remove('a', 'a1')).toBe(false);
    expect(queue.drain()).toEqual(['a2', 'b1']);
    expect(queue.next()).toBeUndefined();
  });
});
