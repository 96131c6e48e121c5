// The API's side of approvals: creating one starts its workflow and writes its record, neither of
// which waits for a worker; answering one, whichever path the answer came by (the API, a signed link, a
// provider's reply), is decided by PostgreSQL and handed to the workflow by a signal. This file turns
// the verdicts into HTTP.
import { ServiceError as TemporalServiceError } from '@temporalio/client';
import type { ApiDeps } from '../context.ts';
import type { AnsweredOutcome } from '../../clients/approval.ts';
import { startApprovalNotice, startApprovalWorkflow } from '../../clients/approval.ts';
import { matchOption, type ApprovalAnswer, type ApprovalWorkflowInput } from '../../lib/workflow-safe/approvals.ts';
import type { Approval } from '../../store/approvals.ts';
import { storeApprovalAnswer } from '../../store/approval-endings.ts';
import { approvalRequestOf, chooseApprovalChannels, recordApprovalRequest } from '../../store/approval-requests.ts';
import { getRevision } from '../../store/agents.ts';
import { currentTraceParent } from '../../lib/genai-spans.ts';
import { handOverAnswer } from './handover.ts';
import { castVote } from '../../store/approval-votes.ts';
import { ME } from '../../lib/workflow-safe/approval-quorum.ts';
import {
  ConflictError,
  DependencyUnavailableError,
  ForbiddenError,
  GoneError,
  ValidationError,
  type ServiceError,
} from '../../lib/workflow-safe/errors.ts';
import { assertStorableText } from '../../lib/storable-text.ts';
import { callTemporal } from '../temporal-call.ts';

/**
 * Takes a new approval: starts its workflow, which the engine takes with no worker running, then writes
 * its record (and its session's event) here, so it is readable, listed and answerable at once. The
 * workflow finds the record written and goes on to send it over its channels once a worker runs it.
 * A record is only ever written for a started workflow: no approval stands without what expires it.
 */
export async function startApproval(deps: ApiDeps, input: ApprovalWorkflowInput): Promise<Approval> {
  const createdAt = input.createdAt ? new Date(input.createdAt) : new Date();
  const expiresAt = new Date(createdAt.getTime() + input.request.expiresInMs);
  const unavailable =
    `Approval ${input.approvalId} was not taken in time: the workflow engine did not answer. It may or may not have been ` +
    'started (if it was, it is recorded and sent once a worker runs). Retry with the same Idempotency-Key to be safe: its person is then asked once';
  try {
    await callTemporal(
      deps,
      () =>
        startApprovalWorkflow(
          deps.temporal.client,
          { taskQueue: deps.config.taskQueue, workflowTaskTimeoutMs: deps.config.turns.workflowTaskTimeoutMs },
          { ...input, createdAt: createdAt.toISOString() },
        ),
      { timeoutMs: deps.config.approvals.confirmTimeoutMs, unavailable },
    );
  } catch (error) {
    throw unconfirmed(deps, error, unavailable);
  }
  const chosen = await chooseApprovalChannels(
    deps.db,
    async (agentId, revision) => (await getRevision(deps.db, agentId, revision))?.bundle,
    input,
  );
  const { approval } = await recordApprovalRequest(
    deps.db,
    // The request's trace: the approval's span joins it when the approval ends.
    approvalRequestOf(input, { createdAt, expiresAt, traceParent: currentTraceParent() }, chosen),
  );
  return approval;
}

/** Any other failed RPC also left the approval unconfirmed: 503 with the caller's words, the raw text logged. */
function unconfirmed(deps: ApiDeps, error: unknown, message: string): unknown {
  if (!(error instanceof TemporalServiceError)) return error;
  deps.logger.warn({ err: error }, 'Temporal did not confirm an approval');
  return new DependencyUnavailableError(message);
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
 * 410 once expired, 400 for a choice outside the options. Callers check ownership first. Decided by
 * PostgreSQL, with the session's event, so an answer is taken whether or not a worker runs; the
 * approval's workflow, and the turn waiting on it, get it by a signal (api/approvals/handover.ts).
 */
export async function answerApproval(
  deps: ApiDeps,
  approval: Approval,
  answer: ApprovalAnswer,
  options: {
    bySignIn?: boolean;
    /** Of an approval a team answers: whose vote it is (a seat's link names its seat); else its user's, "me". */
    seat?: number | null;
  } = {},
): Promise<AnswerTaken> {
  // Every way of answering (API, link, channel reply) comes here; the note must be storable text.
  if (answer.note) assertStorableText(answer.note, 'answer', '/note');
  if (approval.status !== 'unanswered') throw verdictOf(approval);
  // A connect approval is answered by its sign-in finishing (api/mcp-oauth/sign-in.ts), never by a choice.
  if (approval.connectServer && !options.bySignIn) {
    throw new ValidationError(`This question is answered by signing in to the MCP server "${approval.connectServer}": open its link`);
  }
  const choice = matchOption(approval.options, answer.choice);
  if (choice === undefined) throw invalidChoice(approval, answer.choice);
  if (approval.team) return vote(deps, approval, { ...answer, choice }, options.seat ?? null);
  const { approval: stored, changed } = await storeApprovalAnswer(
    deps.db,
    { approvalId: approval.id, choice, note: answer.note, via: answer.via },
    true,
  );
  if (!changed) {
    // Its time is up, although its workflow's timer has not fired yet (no worker ran it).
    if (stored.status === 'unanswered') throw new GoneError('This approval has expired');
    throw verdictOf(stored);
  }
  const outcome: AnsweredOutcome = {
    status: 'answered',
    choice: stored.choice!,
    note: stored.note,
    answeredAt: stored.answeredAt!.toISOString(),
  };
  handOverAnswer(deps, stored);
  return outcome;
}

/** A vote counted that did not decide: the approval waits on more (202 over the API). */
export interface CountedVote {
  status: 'unanswered';
  approver: string;
  choice: string;
  tally: Record<string, number>;
  quorum: number;
}

/** What an answer did: decided the approval (a single answer always does), or counted as one vote of several. */
export type AnswerTaken = (AnsweredOutcome & { approver?: string; tally?: Record<string, number> }) | CountedVote;

/**
 * One approver's vote on an approval a team answers, decided by PostgreSQL under the approval's lock:
 * 403 for someone who is not an approver (nothing recorded), 409 for a second vote of the same seat.
 * The vote that decides is handed to the workflow as a single answer is.
 */
async function vote(deps: ApiDeps, approval: Approval, answer: ApprovalAnswer, seat: number | null): Promise<AnswerTaken> {
  const cast = await castVote(deps.db, {
    approvalId: approval.id,
    seat: seat === null ? { name: ME } : { position: seat },
    choice: answer.choice,
    note: answer.note,
    via: answer.via,
  });
  switch (cast.kind) {
    case 'closed':
      if (cast.approval.status === 'unanswered') throw new GoneError('This approval has expired');
      throw verdictOf(cast.approval);
    case 'stranger':
      throw new ForbiddenError(
        seat === null
          ? `You are not one of this approval's approvers (${cast.seats.join(', ')}): each answers with their own links`
          : 'This link answers as no approver of this approval',
      );
    case 'voted-before':
      throw new ConflictError(`${cast.seat.name} has already answered ("${cast.seat.vote!.choice}")`);
    case 'delegated':
      throw new ConflictError(`${cast.seat.name} handed their vote to ${cast.seat.delegatedTo}, who answers in their place`);
    case 'counted': {
      const { approval: counted, tally } = cast;
      if (!cast.decided)
        return { status: 'unanswered', approver: cast.seat.name, choice: answer.choice, tally, quorum: counted.team!.quorum };
      handOverAnswer(deps, counted);
      return {
        status: 'answered',
        choice: counted.choice!,
        note: counted.note,
        answeredAt: counted.answeredAt!.toISOString(),
        approver: cast.seat.name,
        tally,
      };
    }
  }
}

/** A chat thread of the approval: its question on the user's channel at a position, or its message to one approver. */
export type NoticeThread = number | { seat: number; provider: 'slack' | 'telegram'; externalRef: string };

/**
 * A note in one chat thread of the approval (why a reply was not taken). Best effort: the reply was
 * handled either way, so a failure to start the note is logged, not answered.
 */
export async function noteInThread(deps: ApiDeps, approval: Approval, thread: NoticeThread, text: string): Promise<void> {
  const where =
    typeof thread === 'number'
      ? { positions: [thread] }
      : { positions: [], seats: [{ position: thread.seat, provider: thread.provider, externalRef: thread.externalRef }] };
  try {
    await callTemporal(deps, () => startApprovalNotice(deps.temporal.client, deps.config.taskQueue, approval, { ...where, text }));
  } catch (error) {
    deps.logger.warn({ err: error, approvalId: approval.id }, 'could not start an approval notice');
  }
}
