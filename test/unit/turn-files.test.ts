// The files a turn keeps between its steps, over the real local-disk storage: each object is read once
// per turn, only the latest step's objects are kept, and they go when the turn is released or its
// TTL passes. And which files a step loads when the conversation holds more than the limit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { LocalDiskStorage, readObject } from '../../lib/storage.ts';
import { TurnFiles } from '../../activities/turn/turn-files.ts';
import { newestWithin } from '../../activities/turn/media-files.ts';
import type { Media } from '../../store/media.ts';

let root: string;
let storage: LocalDiskStorage;
const reads: string[] = [];
const load = (objectKey: string) => {
  reads.push(objectKey);
  return readObject(storage, objectKey);
};

beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-files-'));
  storage = new LocalDiskStorage(root);
  reads.length = 0;
  for (const name of ['a', 'b', 'c']) await storage.put(`objects/${name}`, Readable.from([Buffer.from(`bytes of ${name}`)]));
});
afterEach(() => {
  vi.useRealTimers();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('TurnFiles', () => {
  test('a turn reads each object once across its steps; another turn reads for itself', async () => {
    const files = new TurnFiles();
    const first = await files.read('turn-1', ['objects/a', 'objects/b'], load);
    expect(first.get('objects/a')?.toString()).toBe('bytes of a');
    const second = await files.read('turn-1', ['objects/a', 'objects/b', 'objects/c'], load);
    expect(second.get('objects/c')?.toString()).toBe('bytes of c');
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/c']);

    await files.read('turn-2', ['objects/a'], load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/c', 'objects/a']);
    files.release('turn-1');
    files.release('turn-2');
    expect(files.size).toBe(0);
  });

  test('only the latest step is kept; a released turn reads again', async () => {
    const files = new TurnFiles();
    await files.read('turn', ['objects/a', 'objects/b'], load);
    await files.read('turn', ['objects/b'], load);
    await files.read('turn', ['objects/a', 'objects/b'], load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/a']);
    files.release('turn');
    await files.read('turn', ['objects/b'], load);
    expect(reads).toEqual(['objects/a', 'objects/b', 'objects/a', 'objects/b']);
  });

  test('a turn without a step for the TTL lets its files go', async () => {
    vi.useFakeTimers();
    const files = new TurnFiles(60_000);
    await files.read('turn', ['objects/a'], load);
    vi.advanceTimersByTime(59_000);
    await files.read('turn', ['objects/a'], load);
    expect(reads).toEqual(['objects/a']);
    vi.advanceTimersByTime(60_001);
    expect(files.size).toBe(0);
    await files.read('turn', ['objects/a'], load);
    expect(reads).toEqual(['objects/a', 'objects/a']);
  });

  test('a missing object is undefined; a failed read is not kept', async () => {
    const files = new TurnFiles();
    expect((await files.read('turn', ['objects/none'], load)).get('objects/none')).toBeUndefined();
    let fail = true;
    const flaky = (objectKey: string) => (fail ? Promise.reject(new Error('disk error')) : load(objectKey));
    await expect(files.read('turn-2', ['objects/a'], flaky)).rejects.toThrow('disk error');
    fail = false;
    expect((await files.read('turn-2', ['objects/a'], flaky)).get('objects/a')?.toString()).toBe('bytes of a');
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
