// The local-disk storage driver: whole objects or nothing, and keys that cannot leave its root.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidObjectKeyError, LocalDiskStorage, readObject } from '../../lib/storage.ts';

let root: string;
let storage: LocalDiskStorage;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-test-'));
  storage = new LocalDiskStorage(path.join(root, 'media'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const files = () => (fs.readdirSync(root, { recursive: true }) as string[]).filter((name) => fs.statSync(path.join(root, name)).isFile());

describe('LocalDiskStorage', () => {
  it('puts, stats, gets and deletes an object', async () => {
    const body = Buffer.from('hello, storage');
    expect(await storage.put('abc-hello.txt', Readable.from([body.subarray(0, 5), body.subarray(5)]))).toEqual({ size: body.length });
    expect(files()).toEqual([path.join('media', 'abc-hello.txt')]);
    expect(await storage.stat('abc-hello.txt')).toEqual({ size: body.length });
    expect(await readObject(storage, 'abc-hello.txt')).toEqual(body);
    await storage.delete('abc-hello.txt');
    expect(await storage.stat('abc-hello.txt')).toBeUndefined();
    expect(await storage.get('abc-hello.txt')).toBeUndefined();
    await storage.delete('abc-hello.txt');
  });

  it('leaves nothing behind when the body fails half-way', async () => {
    async function* failing() {
      yield Buffer.from('first part');
      throw new Error('connection lost');
    }
    await expect(storage.put('abc-broken.bin', failing())).rejects.toThrow('connection lost');
    expect(files()).toEqual([]);
    expect(await storage.stat('abc-broken.bin')).toBeUndefined();
  });

  it.each(['../escape', 'a/../../b', '/etc/passwd', '.tmp/x', 'a\\b', '', 'a//b', 'a/./b', 'nul\u0000.txt', '%2e%2e/x'])(
    'refuses the key %j',
    async (key) => {
      await expect(storage.put(key, Readable.from([Buffer.from('x')]))).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(storage.get(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      expect(files()).toEqual([]);
    },
  );
});
