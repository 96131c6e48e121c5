// Uploaded files that no media row names. An upload stores its file and then writes its row; a
// process that dies between the two (or a write that never finished) leaves bytes nothing serves
// and nothing would remove. They are swept once older than a grace period, which is far longer
// than the moment between an upload's last write and its row.
import type { Db } from '../../store/db.ts';
import { objectKeysInUse } from '../../store/media.ts';
import type { Storage } from '../../lib/storage.ts';

const BATCH = 500;

export async function sweepOrphanMedia(db: Db, storage: Storage, graceMs: number, now = new Date()): Promise<{ removed: number }> {
  const cutoff = new Date(now.getTime() - graceMs);
  let removed = await storage.removeUnfinishedWrites(cutoff);
  const removeUnused = async (keys: string[]) => {
    const used = await objectKeysInUse(db, keys);
    for (const key of keys) {
      if (used.has(key)) continue;
      await storage.delete(key);
      removed += 1;
    }
  };
  let batch: string[] = [];
  for await (const object of storage.list()) {
    if (object.modifiedAt >= cutoff) continue;
    batch.push(object.key);
    if (batch.length >= BATCH) {
      await removeUnused(batch);
      batch = [];
    }
  }
  await removeUnused(batch);
  return { removed };
}
