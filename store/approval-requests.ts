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
import type { Bundle } from '../contract/bundle.ts';
import type { ApprovalWorkflowInput } from '../lib/workflow-safe/approvals.ts';

/** The channels of the asking agent's revision an approval goes over (all, or those `providers` names), in declared order. */
export function approvalChannels(bundle: Bundle | undefined, providers: readonly string[] | undefined) {
  return (bundle?.userChannels ?? [])
    .map((channel, position) => ({ ...channel, position }))
    .filter((channel) => providers === undefined || providers.includes(channel.provider));
}

/** The record of an approval workflow's request, going over `channels` (approvalChannels). */
export function approvalRequestOf(
  input: ApprovalWorkflowInput,
  at: { createdAt: Date; expiresAt: Date; traceParent: string | null },
  channels: ReturnType<typeof approvalChannels>,
): NewApproval {
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
  };
}

/** Writes the request unless it is written already; `created` says whether this call wrote it. */
export async function recordApprovalRequest(db: Db, request: NewApproval): Promise<{ approval: Approval; created: boolean }> {
  return inTransaction(db, async (client) => {
    const written = await insertApproval(client, request);
    const { approval, created } = written;
    if (!created || approval.sessionId === null) return written;
    if (waitsInTurn(approval)) await setWaiting(client, approval, true);
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
        },
      },
    ]);
    return written;
  });
}
