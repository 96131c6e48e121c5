// Search attributes that make every run findable in the Temporal Web UI. The launcher registers
// them on the dev server; production operators register them once (see README).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

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
