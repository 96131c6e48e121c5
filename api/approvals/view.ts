// How an approval is shown to its owner (its schema: APPROVAL_SCHEMA in contract/operations/approvals.ts). The
// token and links answer it without a key, so only a key that may answer (approvals:answer) sees
// them; a read-only key would otherwise hold an answer it was not granted.
import type { Approval, Dispatch } from '../../store/approvals.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { approvalLinks, approvalToken } from '../../lib/approval-token.ts';

export function approvalView(
  approval: Approval,
  context: { masterKey: MasterKey; baseUrl: string; mayAnswer: boolean },
  dispatches?: Dispatch[],
) {
  const token = approvalToken(context.masterKey, approval.id);
  const answering = context.mayAnswer ? { token, links: approvalLinks(context.baseUrl, token, approval.options) } : {};
  return {
    id: approval.id,
    status: approval.status,
    question: approval.question,
    options: approval.options,
    choice: approval.choice,
    note: approval.note,
    answeredVia: approval.answeredVia,
    source: approval.source,
    agentId: approval.agentId,
    sessionId: approval.sessionId,
    turnId: approval.turnId,
    toolCallId: approval.toolCallId,
    ...(approval.connectServer ? { connect: { serverId: approval.connectServer } } : {}),
    createdAt: approval.createdAt.toISOString(),
    expiresAt: approval.expiresAt.toISOString(),
    answeredAt: approval.answeredAt?.toISOString() ?? null,
    expiredAt: approval.expiredAt?.toISOString() ?? null,
    ...answering,
    ...(dispatches
      ? {
          dispatches: dispatches.map((dispatch) => ({
            position: dispatch.position,
            provider: dispatch.provider,
            answerVia: dispatch.answerVia,
            status: dispatch.status,
            attempts: dispatch.attempts,
            error: dispatch.error,
            updatedAt: dispatch.updatedAt.toISOString(),
          })),
        }
      : {}),
  };
}
