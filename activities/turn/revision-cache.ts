// Agent revisions never change once written, so a worker keeps the ones it has used: the bundle, and
// its loadable skills with their texts (lib/skills.ts) and its remote MCP tools, worked out once per revision.
import type { Db } from '../../store/db.ts';
import { getRevision } from '../../store/agents.ts';
import type { Bundle } from '../../lib/bundle/index.ts';
import { loadableSkills, type LoadableSkill } from '../../lib/skills.ts';
import { remoteTools, type RemoteTool } from '../tools/remote.ts';
import type { CallableAgent } from '../../lib/workflow-safe/agent-tools.ts';

const MAX_ENTRIES = 500;

export interface CachedRevision {
  bundle: Bundle;
  skills: LoadableSkill[];
  /** The tools of its remote MCP servers, as listed at its deploy. */
  remoteTools: RemoteTool[];
  /** The agents it may call, as resolved at its deploy. */
  callableAgents: CallableAgent[];
}

export type RevisionOf = (agentId: string, revision: number) => Promise<CachedRevision>;

export function revisionCache(db: Db): RevisionOf {
  const cache = new Map<string, CachedRevision>();
  return async function revisionOf(agentId, revision) {
    const key = `${agentId}:${revision}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const found = await getRevision(db, agentId, revision);
    if (!found) throw new Error(`Agent ${agentId} has no revision ${revision}`);
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    const entry = {
      bundle: found.bundle,
      skills: loadableSkills(found.bundle, found.fetchedSkills),
      remoteTools: remoteTools(found.remoteTools),
      callableAgents: found.callableAgents,
    };
    cache.set(key, entry);
    return entry;
  };
}
