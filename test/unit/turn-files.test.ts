// The files a worker keeps between the steps of its turns, over the real local-disk storage: each
// object is read once per turn, only the latest step's objects are kept, a turn goes when released or
// idle, all turns together stay within the worker's byte budget (least recently used first), and a
// failed read is never served again. Then which tool calls let a turn keep its files, and which files
// a step loads when the conversation holds more than the limit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { LocalDiskStorage, readObject } from '../../lib/storage.ts';
import { TurnFiles, type TurnObject } from '../../activities/turn/turn-files.ts';
import { newestWithin } from '../../activities/turn/media-files.ts';
import { allRunByService } from '../../activities/tools/index.ts';
import type { Media } from '../../store/media.ts';

const SIZE = 100;
let root: string;
let storage: LocalDiskStorage;
const reads: string[] = [];
const load = (objectKey: string) => {
  reads.push(objectKey);
  return readObject(storage, objectKey);
};
/** The objects of one step, each SIZE bytes as recorded at upload. */
const objects = (...names: string[]): TurnObject[] => names.map((name) => ({ objectKey: `objects/${name}`, size: SIZE }));
const text = (bytes: Map<string, Buffer | undefined>, name: string) => bytes.get(`objects/${name}`)?.toString();

beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-files-'));
  storage = new LocalDiskStorage(root);
  reads.length = 0;
  for (const name of ['a', 'b', 'c', 'd']) await storage.put(`objects/${name}`, Readable.from([Buffer.alloc(SIZE, name)]));
});
afterEach(() => {
  vi.useRealTimers();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('TurnFiles', () => {
  test('a turn reads each object once across its kept steps; another turn reads for itself', async () => {
    const files = new TurnFiles({ budgetBytes: 10 * SIZE });
    const first = await files.read('turn-1', objects('a', 'b'), load);
    expect(text(first, 'a')).toBe('a'.repeat(SIZE));
    files.keep('turn-1');
    const second = await files.read('turn-1', objects('a', 'b', 'c'), load);
    expect(text(second, 'c')).toBe('c'.repeat(SIZE));
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/c']);

    await files.read('turn-2', objects('a'), load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/c', 'objects/a']);
    expect(files.bytes).toBe(4 * SIZE);
    files.release('turn-1');
    files.release('turn-2');
    expect(files.size).toBe(0);
    expect(files.bytes).toBe(0);
  });

  test('only the latest step is kept; a released turn reads again', async () => {
    const files = new TurnFiles({ budgetBytes: 10 * SIZE });
    await files.read('turn', objects('a', 'b'), load);
    await files.read('turn', objects('b'), load);
    expect(files.bytes).toBe(SIZE);
    await files.read('turn', objects('a', 'b'), load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/a']);
    // A step whose tool calls wait on a person releases its turn: nothing of it stays.
    files.release('turn');
    expect(files.size).toBe(0);
    expect(files.bytes).toBe(0);
    await files.read('turn', objects('b'), load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/a', 'objects/b']);
  });

  test('a kept turn without a step for idleMs lets its files go; a running step is not timed', async () => {
    vi.useFakeTimers();
    const files = new TurnFiles({ budgetBytes: 10 * SIZE, idleMs: 60_000 });
    await files.read('turn', objects('a'), load);
    // The step runs longer than idleMs: its turn stays, and is kept from the step's end.
    vi.advanceTimersByTime(120_000);
    expect(files.size).toBe(1);
    files.keep('turn');
    vi.advanceTimersByTime(59_000);
    await files.read('turn', objects('a'), load);
    expect(reads).toEqual(['objects/a']);
    files.keep('turn');
    vi.advanceTimersByTime(60_001);
    expect(files.size).toBe(0);
    expect(files.bytes).toBe(0);
    await files.read('turn', objects('a'), load);
    expect(reads).toEqual(['objects/a', 'objects/a']);
  });

  test('all turns together stay within the budget: the least recently used turn goes first', async () => {
    const files = new TurnFiles({ budgetBytes: 3 * SIZE });
    await files.read('turn-1', objects('a'), load);
    files.keep('turn-1');
    await files.read('turn-2', objects('b'), load);
    files.keep('turn-2');
    await files.read('turn-3', objects('c'), load);
    files.keep('turn-3');
    // turn-1 runs its next step: now turn-2 is the least recently used.
    await files.read('turn-1', objects('a'), load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/c']);
    expect(files.bytes).toBe(3 * SIZE);

    await files.read('turn-4', objects('d'), load);
    expect(files.bytes).toBe(3 * SIZE);
    expect(files.size).toBe(3);
    await files.read('turn-1', objects('a'), load);
    await files.read('turn-3', objects('c'), load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/c', 'objects/d']);
    await files.read('turn-2', objects('b'), load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/c', 'objects/d', 'objects/b']);
    expect(files.bytes).toBeLessThanOrEqual(3 * SIZE);
  });

  test('a turn whose files alone exceed the budget keeps none and evicts nothing; a budget of 0 keeps nothing', async () => {
    const files = new TurnFiles({ budgetBytes: 2 * SIZE });
    await files.read('small', objects('a'), load);
    const big = await files.read('big', objects('b', 'c', 'd'), load);
    expect(text(big, 'd')).toBe('d'.repeat(SIZE));
    expect(files.size).toBe(1);
    expect(files.bytes).toBe(SIZE);
    await files.read('big', objects('b', 'c', 'd'), load);
    await files.read('small', objects('a'), load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/c', 'objects/d', 'objects/b', 'objects/c', 'objects/d']);

    const none = new TurnFiles({ budgetBytes: 0 });
    expect(text(await none.read('turn', objects('a'), load), 'a')).toBe('a'.repeat(SIZE));
    expect(none.size).toBe(0);
  });

  test('eviction drops only the cache reference: a step whose turn is evicted mid-read still gets its bytes', async () => {
    const files = new TurnFiles({ budgetBytes: SIZE });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = async (objectKey: string) => {
      await gate;
      return load(objectKey);
    };
    const running = files.read('turn-1', objects('a'), slow);
    await files.read('turn-2', objects('b'), load);
    expect(files.size).toBe(1);
    release();
    expect(text(await running, 'a')).toBe('a'.repeat(SIZE));
    expect(files.bytes).toBe(SIZE);
  });

  test('a missing object is undefined; a failed read is not kept', async () => {
    const files = new TurnFiles({ budgetBytes: 10 * SIZE });
    expect(text(await files.read('turn', objects('none'), load), 'none')).toBeUndefined();
    let fail = true;
    const flaky = (objectKey: string) => (fail ? Promise.reject(new Error('disk error')) : load(objectKey));
    await expect(files.read('turn-2', objects('a'), flaky)).rejects.toThrow('disk error');
    expect(files.bytes).toBe(SIZE);
    fail = false;
    expect(text(await files.read('turn-2', objects('a'), flaky), 'a')).toBe('a'.repeat(SIZE));
  });

  test('a read that fails after a newer step of the turn took it over is dropped from that newer step too', async () => {
    const files = new TurnFiles({ budgetBytes: 10 * SIZE });
    let reject!: (error: Error) => void;
    const failing = () => new Promise<Buffer | undefined>((_, no) => (reject = no));
    // A step starts the read; a retry of that step, started before the read fails, shares it.
    const first = files.read('turn', objects('a'), failing);
    const retry = files.read('turn', objects('a'), failing);
    reject(new Error('disk error'));
    await expect(first).rejects.toThrow('disk error');
    await expect(retry).rejects.toThrow('disk error');
    expect(files.bytes).toBe(0);
    expect(text(await files.read('turn', objects('a'), load), 'a')).toBe('a'.repeat(SIZE));
  });
});

describe('allRunByService', () => {
  const bundle = { mcps: ['time'] };
  const calls = (...names: string[]) => names.map((toolName) => ({ toolName }));

  test('a step keeps its files only when the service runs every tool call itself', () => {
    expect(allRunByService(bundle, calls('current_time'))).toBe(true);
    expect(allRunByService(bundle, calls('current_time', 'current_time'))).toBe(true);
    // A question to a person waits for days; so may a client's tool or an unknown one.
    expect(allRunByService(bundle, calls('ask_my_user'))).toBe(false);
    expect(allRunByService(bundle, calls('current_time', 'ask_my_user'))).toBe(false);
    expect(allRunByService(bundle, calls('lookup_order'))).toBe(false);
    expect(allRunByService({ mcps: [] }, calls('current_time'))).toBe(false);
    expect(allRunByService(bundle, [])).toBe(false);
  });
});

describe('newestWithin', () => {
  const media = (key: string, size: number): Media => ({
    sessionId: 's',
    key,
    objectKey: key,
    contentType: 'image/png',
    size,
    filename: key,
    createdAt: new Date(0),
  });

  test('takes the newest files whose sizes fit together, skipping one too large for what is left', () => {
    const all = [media('old', 40), media('middle', 50), media('new', 30), media('newest', 20)];
    const chosen = newestWithin(['newest', 'new', 'middle', 'old'], all, 90);
    expect(chosen.map((item) => item.key)).toEqual(['newest', 'new', 'old']);
    expect(newestWithin(['newest', 'new', 'middle', 'old'], all, 1_000)).toHaveLength(4);
    expect(newestWithin(['newest'], all, 10)).toEqual([]);
  });
});
