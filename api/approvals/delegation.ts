// Handing an approver's vote to another approver of the directory, whoever asks: the approval's user
// by key (POST /approval/<id>/delegate) or the approver from their own link page (POST
// /approval/<token>/answer/delegate). PostgreSQL decides it under the approval's lock
// (store/approval-votes.ts); the new approver is then asked by the approval's workflow, told by a signal.
import type { ApiDeps } from '../context.ts';
import type { Approval } from '../../store/approvals.ts';
import { delegateSeat, type Delegation } from '../../store/approval-votes.ts';
import { signalSeatsAdded } from '../../clients/approval.ts';
import { ConflictError, ForbiddenError, GoneError, ValidationError, type ServiceError } from '../../lib/workflow-safe/errors.ts';

export type DelegationRefused = Exclude<Delegation, { kind: 'delegated-now' }>;

/**
 * Hands `from`'s vote to `to`; once recorded, the approval's workflow is told to ask `to` (soon, without
 * waiting: api/hand-offs.ts). A signal lost with this process leaves them to the next reminder, and their links.
 */
export async function handOnVote(
  deps: Pick<ApiDeps, 'db' | 'handOffs' | 'temporal'>,
  approval: Approval,
  names: { from: string; to: string },
): Promise<Delegation> {
  // Directory names are lower case (APPROVER_NAME); a person may type one otherwise.
  const handed = await delegateSeat(deps.db, { approvalId: approval.id, from: names.from.toLowerCase(), to: names.to.toLowerCase() });
  if (handed.kind === 'delegated-now') {
    deps.handOffs.submit(
      `approval-seats:${approval.id}:${handed.to.position}`,
      () => signalSeatsAdded(deps.temporal.client, approval.id, handed.dispatches),
      { log: { approvalId: approval.id }, sweep: 'the next reminder' },
    );
  }
  return handed;
}

/**
 * Why a vote was not handed on, as the error its asker gets. `by: 'key'` is the approval's user, who keeps the
 * directory and is told where to add a name; `'link'` is an approver, told nothing of the directory beyond
 * that a name is not in it.
 */
export function delegationRefusal(refused: DelegationRefused, names: { from: string; to: string }, by: 'key' | 'link'): ServiceError {
  const { from, to } = names;
  switch (refused.kind) {
    case 'closed':
      if (refused.approval.status === 'answered') return new ConflictError('This approval was already answered');
      return new GoneError('This approval has expired');
    case 'not-a-seat':
      return by === 'key'
        ? new ValidationError(`"${from}" is not one of this approval's approvers`, [{ path: '/from', message: 'is not an approver of it' }])
        : new ForbiddenError('This link answers as no approver of this approval');
    case 'unknown':
      return by === 'key'
        ? new ValidationError(`You have no approver "${to}" (PUT /approver/<name> adds one)`, [
            { path: '/to', message: 'is not in your directory' },
          ])
        : new ValidationError('There is no approver of that name', [{ path: '/to', message: 'is no approver' }]);
    case 'voted':
      return new ConflictError(by === 'key' ? `${from} has voted already` : 'You have voted already: your vote stands');
    case 'delegated':
      return new ConflictError(by === 'key' ? `${from} has handed on their vote already` : 'You have handed on your vote already');
    case 'taken':
      return new ConflictError(`${to} is an approver of this approval already`);
    case 'full':
      return new ConflictError('This approval has as many approvers as it may');
    default:
      return refused satisfies never;
  }
}
