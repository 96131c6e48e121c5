// Writing an approval's request: the record, its pending dispatches, and for one asked in a session its
// `approval.requested` event (and the session waiting, when a turn or a run waits on it), in one
// transaction. Written by whichever comes first: the API taking POST /approval with no worker needed
// (api/approvals/workflows.ts), or the approval workflow's first activity. The second finds the record
// and writes nothing, so the event is written once.
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { appendEvents } from './events.ts';
import { insertApproval, type Approval, type NewApproval } from './approvals.ts';
import { setWaiting, waitsInTurn } from './approval-endings.ts';
import { announceWaitToCallers } from './agent-call-waits.ts';
import { insertTeam } from './approval-votes.ts';
import { ME } from '../contract/approvals.ts';
import type { Bundle } from '../contract/bundle.ts';
import type { ApprovalWorkflowInput } from '../lib/workflow-safe/approvals.ts';

/** The channels of the asking agent's revision an approval goes over (all, or those `providers` names), in declared order. */
export function approvalChannels(bundle: Bundle | undefined, providers: readonly string[] | undefined) {
  return (bundle?.userChannels ?? [])
    .map((channel, position) => ({ ...channel, position }))
    .filter((channel) => providers === undefined || providers.includes(channel.provider));
}

/** Links walked up a chain of calls at most: more than AGENT_CALL_DEPTH_LIMIT allows, a guard against bad data. */
const MAX_CHAIN = 32;

/**
 * The agent (and revision) that started the chain of agent calls `sessionId` belongs to: the one its
 * person talks to. Undefined for a session no agent called.
 */
export async function firstCallerOf(db: Db, sessionId: string): Promise<{ agentId: string; revision: number } | undefined> {
  const { rows } = await db.query<{ agent_id: string; revision: number; hops: number }>(
    `WITH RECURSIVE up AS (
       SELECT id, agent_id, revision, parent_session_id, parent_tool_call_id, 0 AS hops FROM sessions WHERE id = $1
       UNION ALL
       SELECT s.id, s.agent_id, s.revision, s.parent_session_id, s.parent_tool_call_id, up.hops + 1
         FROM sessions s JOIN up ON s.id = up.parent_session_id
        WHERE up.parent_tool_call_id IS NOT NULL AND up.hops < $2 AND s.user_id = (SELECT user_id FROM sessions WHERE id = $1)
     )
     SELECT agent_id, revision, hops FROM up ORDER BY hops DESC LIMIT 1`,
    [sessionId, MAX_CHAIN],
  );
  const root = rows[0];
  return root && root.hops > 0 ? { agentId: root.agent_id, revision: root.revision } : undefined;
}

export interface ChosenChannels {
  channels: ReturnType<typeof approvalChannels>;
  /** The first caller whose channels these are; undefined: the asking agent's own. */
  channelsFrom?: { agentId: string; revision: number };
  /** The asking agent's bundle (its name goes with the question). */
  bundle: Bundle | undefined;
}

/**
 * The channels a question goes over. One asked in a session of an agent call goes over the first
 * caller's channels, where its person is (the child's own when the first caller declares none, or when
 * the request names providers, which were checked against the child's): a person talking to one agent
 * need not learn of the helpers it calls to answer their questions.
 */
export async function chooseApprovalChannels(
  db: Db,
  bundleOf: (agentId: string, revision: number) => Promise<Bundle | undefined>,
  input: Pick<ApprovalWorkflowInput, 'agentId' | 'revision' | 'sessionId' | 'channels'>,
): Promise<ChosenChannels> {
  const bundle = input.agentId !== undefined && input.revision !== undefined ? await bundleOf(input.agentId, input.revision) : undefined;
  // Providers named by the request (POST /approval's `channels`) were checked against the asking agent's channels: its own, then.
  const first = input.sessionId !== undefined && input.channels === undefined ? await firstCallerOf(db, input.sessionId) : undefined;
  const firstBundle = first ? await bundleOf(first.agentId, first.revision) : undefined;
  if (first && firstBundle && firstBundle.userChannels.length > 0)
    return { channels: approvalChannels(firstBundle, input.channels), channelsFrom: first, bundle };
  return { channels: approvalChannels(bundle, input.channels), bundle };
}

/** The record of an approval workflow's request, going over the chosen channels. */
export function approvalRequestOf(
  input: ApprovalWorkflowInput,
  at: { createdAt: Date; expiresAt: Date; traceParent: string | null },
  chosen: Pick<ChosenChannels, 'channels' | 'channelsFrom'>,
): NewApproval {
  // An approval a team answers goes to its user's channels only when the user is one of its approvers:
  // each approver is asked at their own addresses (store/approval-votes.ts).
  const team = input.request.team;
  const channels = team && !team.approvers.includes(ME) ? [] : chosen.channels;
  return {
    id: input.approvalId,
    userId: input.userId,
    agentId: input.agentId ?? null,
    revision: input.revision ?? null,
    sessionId: input.sessionId ?? null,
    source: input.source,
    turnId: input.turnId ?? null,
    toolCallId: input.toolCallId ?? null,
    question: input.request.question,
    options: input.request.options,
    ...at,
    channels: channels.map((channel) => ({ position: channel.position, provider: channel.provider, answerVia: channel.answerVia })),
    ...(chosen.channelsFrom ? { channelsFrom: chosen.channelsFrom } : {}),
    ...(input.request.connect ? { connectServer: input.request.connect.serverId } : {}),
    ...(input.request.team ? { team: input.request.team } : {}),
  };
}

/** Writes the request unless it is written already; `created` says whether this call wrote it. */
export async function recordApprovalRequest(db: Db, request: NewApproval): Promise<{ approval: Approval; created: boolean }> {
  return inTransaction(db, async (client) => {
    const inserted = await insertApproval(client, request);
    // Its seats, in the same transaction: an approval a team answers is never readable without them.
    const written =
      inserted.created && request.team ? { approval: await insertTeam(client, inserted.approval, request.team), created: true } : inserted;
    const { approval, created } = written;
    if (!created || approval.sessionId === null) return written;
    if (waitsInTurn(approval)) {
      await setWaiting(client, approval, true);
      await announceWaitToCallers(client, approval.sessionId, approval.turnId, 'approval');
    }
    await appendEvents(client, approval.sessionId, [
      {
        type: 'approval.requested',
        data: {
          approvalId: approval.id,
          question: approval.question,
          options: approval.options,
          expiresAt: approval.expiresAt.toISOString(),
          source: approval.source,
          ...(approval.turnId ? { turnId: approval.turnId } : {}),
          ...(approval.toolCallId ? { toolCallId: approval.toolCallId } : {}),
          ...(approval.connectServer ? { connect: { serverId: approval.connectServer } } : {}),
        },
      },
    ]);
    return written;
  });
}
