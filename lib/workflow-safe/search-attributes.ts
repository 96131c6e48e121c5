// Search attributes that make every run findable in the Temporal Web UI. The launcher registers
// them on the dev server; production operators register them once (see docs/operating.md).
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const SessionIdKey = defineSearchAttributeKey('SessionId', SearchAttributeType.KEYWORD);
export const AgentIdKey = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
export const UserIdKey = defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD);
export const KindKey = defineSearchAttributeKey('Kind', SearchAttributeType.KEYWORD);

/** Name and type of each attribute, as `temporal` CLI flags want them. */
export const SEARCH_ATTRIBUTES: ReadonlyArray<{ name: string; type: 'Keyword' }> = [
  { name: SessionIdKey.name, type: 'Keyword' },
  { name: AgentIdKey.name, type: 'Keyword' },
  { name: UserIdKey.name, type: 'Keyword' },
  { name: KindKey.name, type: 'Keyword' },
];

/** What a run is, as the Kind attribute says it: the Web UI's filter `Kind = "approval"` and the like. */
export type RunKind = 'session' | 'turn' | 'approval' | 'notice' | 'delivery' | 'schedules' | 'schedule' | 'trigger' | 'run' | 'eval';

/** The attributes of one run: its kind and whichever of its user, agent and session it has. */
export function searchAttributes(
  kind: RunKind,
  of: { userId?: string | undefined; agentId?: string | undefined; sessionId?: string | undefined },
): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  if (of.sessionId) pairs.push({ key: SessionIdKey, value: of.sessionId });
  if (of.agentId) pairs.push({ key: AgentIdKey, value: of.agentId });
  if (of.userId) pairs.push({ key: UserIdKey, value: of.userId });
  pairs.push({ key: KindKey, value: kind });
  return pairs;
}
