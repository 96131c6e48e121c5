// The approvers a bundle names (graph approval nodes, `{ask: {approvers}}` tool policies) are checked at
// deploy against the deploying user's directory: each name an approver or group of theirs, each quorum
// within its approvers. Each problem is a located deploy error. The names are made seats again when an
// approval is asked, from the directory as it is then (store/approval-votes.ts).
import type { Bundle } from '../../lib/bundle/index.ts';
import type { FieldError } from '../../lib/workflow-safe/errors.ts';
import type { ApprovalTeam } from '../../contract/bundle.ts';
import { teamProblems } from '../../store/team-check.ts';
import type { Db } from '../../store/db.ts';
import { childPointer } from '../../lib/bundle/pointer.ts';

/** Every team a bundle names, with where it is. */
function teamsOf(bundle: Bundle): Array<{ at: string; team: ApprovalTeam }> {
  const teams: Array<{ at: string; team: ApprovalTeam }> = [];
  for (const [name, workflow] of Object.entries(bundle.workflows ?? {})) {
    for (const [id, node] of Object.entries(workflow.nodes)) {
      if (node.type === 'approval' && node.approvers !== undefined)
        teams.push({ at: childPointer('/workflows', name, 'nodes', id), team: { ...node, approvers: node.approvers } });
    }
  }
  for (const [serverId, tools] of Object.entries(bundle.toolPolicies ?? {})) {
    for (const [toolName, policy] of Object.entries(tools)) {
      const approvers = typeof policy === 'object' ? policy.ask.approvers : undefined;
      if (approvers !== undefined && typeof policy === 'object')
        teams.push({ at: `${childPointer('/toolPolicies', serverId, toolName)}/ask`, team: { ...policy.ask, approvers } });
    }
  }
  return teams;
}

export async function checkBundleApprovers(db: Db, userId: string, bundle: Bundle): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const { at, team } of teamsOf(bundle)) errors.push(...(await teamProblems(db, userId, team, at)));
  return errors;
}
