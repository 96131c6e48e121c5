// How an approval is shown to its owner (its schema: APPROVAL_SCHEMA in contract/operations/approvals.ts). The
// token and links answer it without a key, so only a key that may answer (approvals:answer) sees
// them; a read-only key would otherwise hold an answer it was not granted.
import type { Approval, Dispatch } from '../../store/approvals.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { approvalLinks, approvalToken, seatToken } from '../../lib/approval-token.ts';
import type { Seat, SeatDispatch } from '../../store/approval-votes.ts';
import { tallyOf } from '../../lib/workflow-safe/approval-quorum.ts';

/**
 * An approval a team answers: its rule, its tally, and (where read, `seats`) each approver with their
 * vote and, for a key that may answer, their own links. Addresses stay out: the directory has them.
 */
function teamView(approval: Approval, context: ViewContext, seats?: Seat[], seatDispatches?: SeatDispatch[]) {
  if (!approval.team) return {};
  const tally =
    approval.tally ??
    (seats
      ? tallyOf(
          approval.options,
          seats.flatMap((seat) => (seat.vote ? [seat.vote.choice] : [])),
        )
      : undefined);
  return {
    quorum: approval.team.quorum,
    denyWins: approval.team.denyWins,
    refusingOption: approval.team.refusing,
    decidedBy: approval.decidedBy,
    ...(tally ? { tally } : {}),
    ...(seats
      ? {
          approvers: seats.map((seat) => ({
            name: seat.name,
            addedBy: seat.addedBy,
            delegatedTo: seat.delegatedTo,
            vote: seat.vote && {
              choice: seat.vote.choice,
              note: seat.vote.note,
              via: seat.vote.via,
              votedAt: seat.vote.votedAt.toISOString(),
            },
            ...(seatDispatches
              ? {
                  dispatches: seatDispatches
                    .filter((dispatch) => dispatch.position === seat.position)
                    .map((dispatch) => ({
                      provider: dispatch.provider,
                      status: dispatch.status,
                      attempts: dispatch.attempts,
                      error: dispatch.error,
                      updatedAt: dispatch.updatedAt.toISOString(),
                    })),
                }
              : {}),
            // An approver's links vote as them: only a key that could redirect their addresses anyway (agents:write,
            // the directory's scope) reads them, so a key that may only answer cannot cast every vote of a quorum.
            ...(context.mayActForApprovers
              ? { links: approvalLinks(context.baseUrl, seatToken(context.masterKey, approval.id, seat.position), approval.options) }
              : {}),
          })),
        }
      : {}),
  };
}

/** Who reads: a key that may answer sees the approval's own links; one that may write the directory, each approver's. */
export interface ViewContext {
  masterKey: MasterKey;
  baseUrl: string;
  mayAnswer: boolean;
  mayActForApprovers: boolean;
}

export function approvalView(
  approval: Approval,
  context: ViewContext,
  dispatches?: Dispatch[],
  seats?: Seat[],
  seatDispatches?: SeatDispatch[],
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
    ...teamView(approval, context, seats, seatDispatches),
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
