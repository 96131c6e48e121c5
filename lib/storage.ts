// Where uploaded bytes live. The interface is what an object store offers (put a stream, get a
// stream, stat, delete) so another driver can replace the local disk; the service stores object
// keys in PostgreSQL and never derives a path from what a client sent.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from './config.ts';

export interface ObjectInfo {
  size: number;
}

export interface Storage {
  /**
   * Writes the whole body under `key`. The object appears only once every byte is written and
   * flushed; if the body fails (an error, a limit, a closed connection) nothing is left behind.
   */
  put(key: string, body: Readable | AsyncIterable<Uint8Array>): Promise<ObjectInfo>;
  /** The object's bytes, or undefined when there is no such object. */
  get(key: string): Promise<{ body: Readable; size: number } | undefined>;
  stat(key: string): Promise<ObjectInfo | undefined>;
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored object, in no particular order, with when it was last written. */
  list(): AsyncIterable<StoredObject>;
  /**
   * Removes what writes that never finished (a process that died mid-upload) left behind, if last
   * touched before `olderThan`; answers how many. An object store would abort stale multipart uploads.
   */
  removeUnfinishedWrites(olderThan: Date): Promise<number>;
}

export interface StoredObject extends ObjectInfo {
  key: string;
  modifiedAt: Date;
}

export class InvalidObjectKeyError extends Error {
  override name = 'InvalidObjectKeyError';
}

// Segments start with a letter or digit, so `.`, `..` and hidden names cannot be formed.
const OBJECT_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}(?:\/[A-Za-z0-9][A-Za-z0-9._-]{0,199}){0,7}$/;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Objects as files under `root`; unfinished writes go to `root/.tmp` and are renamed into place. */
export class LocalDiskStorage implements Storage {
  private readonly tmpDir: string;

  constructor(readonly root: string) {
    this.root = path.resolve(root);
    this.tmpDir = path.join(this.root, '.tmp');
  }

  private pathOf(key: string): string {
    if (!OBJECT_KEY.test(key)) throw new InvalidObjectKeyError(`Not a valid object key: ${JSON.stringify(key)}`);
    const resolved = path.resolve(this.root, key);
    // Defence in depth: the pattern already rules out anything that could leave the root.
    if (!resolved.startsWith(this.root + path.sep)) throw new InvalidObjectKeyError(`Object key leaves the storage root: ${key}`);
    return resolved;
  }

  async put(key: string, body: Readable | AsyncIterable<Uint8Array>): Promise<ObjectInfo> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(this.tmpDir, { recursive: true });
    const tmp = path.join(this.tmpDir, randomUUID());
    const handle = await fs.promises.open(tmp, 'wx', 0o600);
    let size = 0;
    try {
      // Writes are awaited one by one, which is the backpressure; a stream over the handle would
      // keep it open (FileHandle.close waits for its streams), so there is none.
      for await (const chunk of body as AsyncIterable<Uint8Array>) {
        for (let offset = 0; offset < chunk.length;) offset += (await handle.write(chunk, offset, chunk.length - offset)).bytesWritten;
        size += chunk.length;
      }
      await handle.sync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.promises.rm(tmp, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.rename(tmp, target);
    } catch (error) {
      await fs.promises.rm(tmp, { force: true });
      throw error;
    }
    return { size };
  }

  async get(key: string): Promise<{ body: Readable; size: number } | undefined> {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(this.pathOf(key), 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return { body: handle.createReadStream({ autoClose: true }), size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    try {
      const { size } = await fs.promises.stat(this.pathOf(key));
      return { size };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async *list(): AsyncIterable<StoredObject> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const key = path.relative(this.root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
      // Unfinished writes are not objects; neither is anything else no key could name.
      if (!OBJECT_KEY.test(key)) continue;
      try {
        const stat = await fs.promises.stat(path.join(this.root, key));
        yield { key, size: stat.size, modifiedAt: stat.mtime };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
  }

  async removeUnfinishedWrites(olderThan: Date): Promise<number> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.tmpDir);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const file = path.join(this.tmpDir, name);
      const stat = await fs.promises.stat(file).catch(() => undefined);
      if (!stat?.isFile() || stat.mtime >= olderThan) continue;
      await fs.promises.rm(file, { force: true });
      removed += 1;
    }
    return removed;
  }
}

/** The configured driver: the local disk under `DATA_DIR/media` (nothing is created until the first put). */
export function createStorage(config: Pick<Config, 'dataDir'>): Storage {
  return new LocalDiskStorage(path.join(config.dataDir, 'media'));
}

/** Reads a whole object into memory (for model input, which needs the bytes at once). */
export async function readObject(storage: Storage, key: string): Promise<Buffer | undefined> {
  const object = await storage.get(key);
  if (!object) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
