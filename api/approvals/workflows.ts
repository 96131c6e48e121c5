// The API's side of approvals: creating one starts its workflow (Update-with-Start, returning once
// the record is written), answering one is an Update, whichever path the answer came by (the API,
// a signed link, a provider's reply). The workflow decides; this file turns its verdict into HTTP.
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError as TemporalServiceError } from '@temporalio/client';
import type { ApiDeps } from '../context.ts';
import type { AnsweredOutcome } from '../../workflows/approval.ts';
import { answerApprovalWorkflow, startApprovalNotice, startApprovalWorkflow } from '../../clients/approval.ts';
import type { RecordedApproval } from '../../activities/approvals.ts';
import { matchOption, type ApprovalAnswer, type ApprovalWorkflowInput } from '../../lib/approvals.ts';
import { getApproval, type Approval } from '../../store/approvals.ts';
import { ConflictError, DependencyUnavailableError, GoneError, ValidationError, type ServiceError } from '../../lib/errors.ts';
import { FAILURE, failureType } from '../../lib/failures.ts';
import { failureProblem } from '../failure-problems.ts';
import { assertStorableText } from '../../lib/storable-text.ts';
import { callTemporal, isWorkflowGone } from '../temporal-call.ts';

export async function startApproval(deps: ApiDeps, input: ApprovalWorkflowInput): Promise<RecordedApproval> {
  const unavailable =
    `Approval ${input.approvalId} was not confirmed in time (are the workers running?): it may or may not have been accepted ` +
    '(if it was, it is recorded and sent once they are). Retry with the same Idempotency-Key to be safe: its person is then asked once';
  try {
    return await callTemporal(deps, () => startApprovalWorkflow(deps.temporal.client, deps.config.taskQueue, input), {
      timeoutMs: deps.config.approvals.confirmTimeoutMs,
      unavailable,
    });
  } catch (error) {
    throw unconfirmed(deps, error, unavailable);
  }
}

/** Any other failed RPC also left the approval unconfirmed: 503 with the caller's words, the raw text logged. */
function unconfirmed(deps: ApiDeps, error: unknown, message: string): unknown {
  if (!(error instanceof TemporalServiceError)) return error;
  deps.logger.warn({ err: error }, 'Temporal did not confirm an approval');
  return new DependencyUnavailableError(message);
}

/** How often the record is read again while the winning answer's write is on its way. */
const WINNER_POLL_MS = 20;

/**
 * The record once it shows the answer the workflow took instead of this one. The workflow writes an
 * answer after storing its acceptance (workflows/approval.ts), so a second answer can be refused a few
 * milliseconds before the first is readable: read until it is, within the call's deadline.
 */
async function recordOfWinner(deps: ApiDeps, approvalId: string, deadline: number): Promise<Approval | undefined> {
  for (;;) {
    const approval = await getApproval(deps.db, approvalId);
    if (approval?.status !== 'unanswered' || Date.now() + WINNER_POLL_MS > deadline) return approval;
    await sleep(WINNER_POLL_MS);
  }
}

/** The verdict of the stored record, for an answer that reached no running workflow. */
function verdictOf(approval: Approval | undefined): ServiceError {
  if (approval?.status === 'answered') return new ConflictError(`This approval was already answered ("${approval.choice}")`);
  if (approval?.status === 'expired') return new GoneError('This approval has expired');
  return new DependencyUnavailableError('The approval is not reachable right now; try again shortly');
}

function invalidChoiceDetail(approval: Approval, choice: string): string {
  return `"${choice}" is not one of the options: ${approval.options.map((option) => `"${option}"`).join(', ')}`;
}

function invalidChoice(approval: Approval, choice: string): ValidationError {
  const detail = invalidChoiceDetail(approval, choice);
  return new ValidationError(detail, [{ path: '/choice', message: detail }]);
}

/**
 * Answers an approval: the first valid answer wins (200 with the outcome); then 409 for any other,
 * 410 once expired, 400 for a choice outside the options. Callers check ownership first.
 */
export async function answerApproval(deps: ApiDeps, approval: Approval, answer: ApprovalAnswer): Promise<AnsweredOutcome> {
  // Every way of answering (API, link, channel reply) comes here; a note PostgreSQL cannot store would
  // fail the workflow's write of the answer on every retry.
  if (answer.note) assertStorableText(answer.note, 'answer', '/note');
  // Settled ones are answered from the record without a round trip to Temporal.
  if (approval.status !== 'unanswered') throw verdictOf(approval);
  if (matchOption(approval.options, answer.choice) === undefined) throw invalidChoice(approval, answer.choice);
  const unavailable =
    'The answer was not confirmed in time (are the workers running?): it may or may not have been taken. Send it again: ' +
    'if it was taken, that is a 409 naming the choice recorded';
  const deadline = Date.now() + deps.config.approvals.confirmTimeoutMs;
  try {
    return await callTemporal(deps, () => answerApprovalWorkflow(deps.temporal.client, approval.id, answer), {
      timeoutMs: deps.config.approvals.confirmTimeoutMs,
      unavailable,
    });
  } catch (error) {
    // Answered meanwhile: the stored record names the choice that won.
    if (failureType(error) === FAILURE.approvalAnswered) throw verdictOf(await recordOfWinner(deps, approval.id, deadline));
    const rejected = failureProblem(error, { [FAILURE.approvalInvalidChoice]: invalidChoiceDetail(approval, answer.choice) });
    if (rejected) throw rejected;
    // The workflow ended between our read and the Update (answered or expired meanwhile).
    if (isWorkflowGone(error)) {
      throw verdictOf(await getApproval(deps.db, approval.id));
    }
    throw unconfirmed(deps, error, unavailable);
  }
}

/**
 * A note in one chat thread of the approval (why a reply was not taken). Best effort: the reply was
 * handled either way, so a failure to start the note is logged, not answered.
 */
export async function noteInThread(deps: ApiDeps, approval: Approval, position: number, text: string): Promise<void> {
  try {
    await callTemporal(deps, () =>
      startApprovalNotice(deps.temporal.client, deps.config.taskQueue, approval, { positions: [position], text }),
    );
  } catch (error) {
    deps.logger.warn({ err: error, approvalId: approval.id }, 'could not start an approval notice');
  }
}
