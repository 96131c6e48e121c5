// How an agent's revisions and the changes of what serves read in answers and webhook events.
import type { Agent, RevisionSummary } from '../../store/agents.ts';
import type { RevisionChange } from '../../store/revision-changes.ts';

export function revisionState(
  agent: Pick<Agent, 'revision' | 'traffic'>,
  revision: Pick<RevisionSummary, 'revision' | 'neverLive'>,
): { state: 'live' | 'canary' | 'staged' | 'retired'; trafficPercent: number } {
  if (revision.revision === agent.revision) {
    const shared = Object.values(agent.traffic).reduce((sum, percent) => sum + percent, 0);
    return { state: 'live', trafficPercent: 100 - shared };
  }
  const percent = agent.traffic[String(revision.revision)] ?? 0;
  if (percent > 0) return { state: 'canary', trafficPercent: percent };
  return { state: revision.neverLive ? 'staged' : 'retired', trafficPercent: 0 };
}

export function changeView(change: RevisionChange) {
  const { agentId: _agentId, at, ...view } = change;
  return { ...view, at: at.toISOString() };
}
