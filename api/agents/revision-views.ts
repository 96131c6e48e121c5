// How an agent's revisions and the changes of what serves read in answers and webhook events.
import type { Agent, RevisionSummary } from '../../store/agents.ts';
import type { RevisionChange } from '../../store/revision-changes.ts';
import type { WebhookEventData } from '../../contract/webhook-events.ts';

export function revisionState(
  agent: Pick<Agent, 'revision' | 'traffic'>,
  revision: Pick<RevisionSummary, 'revision' | 'firstLiveAt'>,
): { state: 'live' | 'canary' | 'staged' | 'retired'; trafficPercent: number } {
  if (revision.revision === agent.revision) {
    const shared = Object.values(agent.traffic).reduce((sum, percent) => sum + percent, 0);
    return { state: 'live', trafficPercent: 100 - shared };
  }
  const percent = agent.traffic[String(revision.revision)] ?? 0;
  if (percent > 0) return { state: 'canary', trafficPercent: percent };
  return { state: revision.firstLiveAt === null ? 'staged' : 'retired', trafficPercent: 0 };
}

export function changeView(change: RevisionChange) {
  const { agentId: _agentId, at, ...view } = change;
  return { ...view, at: at.toISOString() };
}

/** The `agent.changed` webhook event's data. */
export function changedEvent(agent: Pick<Agent, 'id' | 'name'>, change: RevisionChange): WebhookEventData['agent.changed'] {
  return {
    agentId: agent.id,
    agentName: agent.name,
    change: change.kind,
    changeId: change.id,
    revision: change.revision,
    liveRevision: change.liveAfter,
    previousLiveRevision: change.liveBefore,
    traffic: change.traffic,
    keyId: change.keyId,
    at: change.at.toISOString(),
  };
}
