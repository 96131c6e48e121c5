// The agents a bundle may call, resolved at deploy (docs/tools.md, "Calling other agents"): each must
// be an agent of the deploying user (names are per user, so another user's agent is not found), a
// revision named must exist, and no chain of declared calls may lead back to the agent being deployed
// (a call could still recurse at run time through a live revision deployed later; the depth limit
// stops that). Each problem is a located deploy error; the resolution is kept with the revision.
import type { Bundle } from '../../lib/bundle/index.ts';
import type { FieldError } from '../../lib/workflow-safe/errors.ts';
import { agentToolDescription, type CallableAgent } from '../../lib/workflow-safe/agent-tools.ts';
import { findAgent, getRevision } from '../../store/agents.ts';
import type { Db } from '../../store/db.ts';

/** How many agents a cycle search reads at most: a bound on what one deploy costs. */
const MAX_AGENTS_READ = 200;

export type CallableResolution = { ok: true; agents: CallableAgent[] } | { ok: false; errors: FieldError[] };

export async function resolveCallableAgents(db: Db, userId: string, bundle: Bundle): Promise<CallableResolution> {
  const entries = bundle.agents ?? [];
  const errors: FieldError[] = [];
  const agents: CallableAgent[] = [];
  const reader = new CalleeReader(db, userId);
  for (const [index, entry] of entries.entries()) {
    const callee = await findAgent(db, userId, entry.name);
    if (!callee) {
      errors.push({ path: `/agents/${index}/name`, message: `you have no agent named "${entry.name}"` });
      continue;
    }
    const revision = entry.revision ?? callee.revision;
    const stored = await getRevision(db, callee.id, revision);
    if (!stored) {
      errors.push({
        path: `/agents/${index}/revision`,
        message: `the agent "${entry.name}" has no revision ${revision} (its latest is ${callee.latestRevision})`,
      });
      continue;
    }
    const cycle = await reader.pathBackTo(bundle.name, entry.name, stored.bundle);
    if (cycle) {
      errors.push({
        path: `/agents/${index}/name`,
        message: `calling "${entry.name}" makes a cycle: ${[bundle.name, ...cycle].join(' → ')}`,
      });
      continue;
    }
    agents.push({
      name: entry.name,
      agentId: callee.id,
      ...(entry.revision !== undefined ? { revision: entry.revision } : {}),
      description: entry.description ?? agentToolDescription(entry.name, stored.bundle.instructions),
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, agents };
}

/** Walks the declared calls from a callee, reading each agent's bundle once. */
class CalleeReader {
  private read = 0;
  private readonly bundles = new Map<string, Bundle | null>();

  constructor(
    private readonly db: Db,
    private readonly userId: string,
  ) {}

  /** The chain of names from `name` (whose bundle is `bundle`) to `target`, or undefined when there is none. */
  async pathBackTo(target: string, name: string, bundle: Bundle, seen = new Set<string>()): Promise<string[] | undefined> {
    if (seen.has(name)) return undefined;
    seen.add(name);
    for (const next of bundle.agents ?? []) {
      if (next.name === target) return [name, target];
      const nextBundle = await this.bundleOf(next.name, next.revision);
      const rest = nextBundle && (await this.pathBackTo(target, next.name, nextBundle, seen));
      if (rest) return [name, ...rest];
    }
    return undefined;
  }

  private async bundleOf(name: string, revision: number | undefined): Promise<Bundle | undefined> {
    const key = `${name}@${revision ?? 'live'}`;
    if (this.bundles.has(key)) return this.bundles.get(key) ?? undefined;
    if (++this.read > MAX_AGENTS_READ) return undefined;
    const agent = await findAgent(this.db, this.userId, name);
    const stored = agent ? await getRevision(this.db, agent.id, revision ?? agent.revision) : undefined;
    this.bundles.set(key, stored?.bundle ?? null);
    return stored?.bundle;
  }
}
