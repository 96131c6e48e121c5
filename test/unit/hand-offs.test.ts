// The API's hand-offs (api/hand-offs.ts): the signals that hand workflows what PostgreSQL holds go
// out after the request is answered, in the order asked for, a bounded number at once; a session's
// wake-up asked for while another still waits to go out rides on it, never on one in flight; a failed
// one is logged for the sweeps and rejects nothing; each runs in its asker's async context.
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, test } from 'vitest';
import type { Client } from '@temporalio/client';
import { HandOffs } from '../../api/hand-offs.ts';
import { createLogger } from '../../lib/logger.ts';
import type { ApiDeps } from '../../api/context.ts';
import { testConfig } from '../helpers/harness/env.ts';

/** What the client's calls see of their call context, as @temporalio/client keeps it: the deadline callTemporal sets. */
const callContext = new AsyncLocalStorage<{ deadline: number }>();
const client = {
  withDeadline: (deadline: number, fn: () => Promise<unknown>) => callContext.run({ deadline }, fn),
} as unknown as Client;

function handOffs(concurrency: number) {
  const warnings: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'silent' });
  logger.warn = ((fields: Record<string, unknown>) => warnings.push(fields)) as typeof logger.warn;
  const deps = { temporal: { client } as ApiDeps['temporal'], config: testConfig(), logger };
  return { queue: new HandOffs(deps, concurrency), warnings };
}

/** A call that records its name when it starts and ends when released. */
function gate() {
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const call = (name: string) => () =>
    new Promise<void>((resolve) => {
      started.push(name);
      releases.set(name, resolve);
    });
  const release = async (name: string) => {
    releases.get(name)!();
    // The queue's next call starts once the released one's promise has settled.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, call, release };
}

const what = (id: string) => ({ log: { id }, sweep: 'the sweep' });

describe('hand-offs', () => {
  test('go out in the order asked for, at most `concurrency` at once, and drain resolves once all are made', async () => {
    const { queue } = handOffs(2);
    const { started, call, release } = gate();
    for (const name of ['a', 'b', 'c', 'd']) queue.submit(`session:${name}`, call(name), what(name));
    expect(started).toEqual(['a', 'b']);
    expect(queue.pending).toBe(4);
    await release('b');
    expect(started).toEqual(['a', 'b', 'c']);
    const drained = queue.drain(60_000);
    await release('a');
    await release('c');
    await release('d');
    expect(await drained).toBe(0);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });

  test('a wake-up waiting under the same key is replaced, keeping its place; one in flight is not: the next goes after it', async () => {
    const { queue } = handOffs(1);
    const { started, call, release } = gate();
    queue.submit('session:1', call('first of 1'), what('1'));
    queue.submit('session:2', call('first of 2'), what('2'));
    queue.submit('session:3', call('only of 3'), what('3'));
    // While session 1's is in flight: session 2's waiting one is replaced, and session 1 gets one more.
    queue.submit('session:2', call('second of 2'), what('2'));
    queue.submit('session:1', call('second of 1'), what('1'));
    await release('first of 1');
    await release('second of 2');
    await release('only of 3');
    await release('second of 1');
    expect(started).toEqual(['first of 1', 'second of 2', 'only of 3', 'second of 1']);
    expect(queue.pending).toBe(0);
  });

  test('a failed hand-off is logged for the sweep and the next ones still go out', async () => {
    const { queue, warnings } = handOffs(1);
    const made: string[] = [];
    queue.submit('approval:x', () => Promise.reject(new Error('engine refused')), what('x'));
    queue.submit('approval:y', async () => void made.push('y'), what('y'));
    expect(await queue.drain(60_000)).toBe(0);
    expect(made).toEqual(['y']);
    expect(warnings).toEqual([expect.objectContaining({ id: 'x' })]);
  });

  test('each call runs under the deadline of a call to Temporal (TEMPORAL_CALL_TIMEOUT_MS)', async () => {
    const { queue } = handOffs(1);
    const deadlines: Array<number | undefined> = [];
    const before = Date.now();
    queue.submit('session:a', async () => void deadlines.push(callContext.getStore()?.deadline), what('a'));
    await queue.drain(60_000);
    expect(deadlines).toHaveLength(1);
    expect(deadlines[0]).toBeGreaterThanOrEqual(before + testConfig().temporalCallTimeoutMs);
  });

  test('after close nothing more goes out: what waited, and what is asked for later, is left to the sweeps', async () => {
    const { queue, warnings } = handOffs(1);
    const { started, call, release } = gate();
    queue.submit('session:a', call('a'), what('a'));
    queue.submit('session:b', call('b'), what('b'));
    queue.close();
    queue.submit('session:c', call('c'), what('c'));
    await release('a');
    expect(started).toEqual(['a']);
    expect(queue.pending).toBe(0);
    expect(warnings).toEqual([expect.objectContaining({ left: 1 })]);
  });

  test('drain gives up after its timeout and says how many are left', async () => {
    const { queue } = handOffs(1);
    queue.submit('session:stuck', () => new Promise<void>(() => undefined), what('stuck'));
    queue.submit('session:behind', async () => undefined, what('behind'));
    expect(await queue.drain(50)).toBe(2);
  });

  test("each runs in its asker's async context, also when started by another's end", async () => {
    const { queue } = handOffs(1);
    const { call, release } = gate();
    const context = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    context.run('request A', () => queue.submit('session:a', call('a'), what('a')));
    context.run('request B', () => queue.submit('session:b', async () => void seen.push(context.getStore()), what('b')));
    // B starts when A's call settles, from A's context: it must still see its own.
    await context.run('elsewhere', () => release('a'));
    await queue.drain(60_000);
    expect(seen).toEqual(['request B']);
  });
});
