// Agent revisions never change once written, so a worker keeps the ones it has used.
import type { Db } from '../../store/db.ts';
import { getRevision } from '../../store/agents.ts';
import type { Bundle } from '../../lib/bundle/index.ts';

const MAX_ENTRIES = 500;

export function revisionCache(db: Db) {
  const cache = new Map<string, Bundle>();
  return async function bundleOf(agentId: string, revision: number): Promise<Bundle> {
    const key = `${agentId}:${revision}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const found = await getRevision(db, agentId, revision);
    if (!found) throw new Error(`Agent ${agentId} has no revision ${revision}`);
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, found.bundle);
    return found.bundle;
  };
}
