// The ask_my_user tool inside a turn: the question becomes an approval child workflow, and the turn
// waits for its outcome, however many days that takes, holding nothing but a timer-free await.
// The child is abandoned rather than cancelled when the turn ends early (an abort): the approval
// record outlives the turn, and an answer is still recorded, it just resumes nothing.
import { ChildWorkflowCancellationType, executeChild, ParentClosePolicy, uuid4, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { parseApprovalRequest, type ApprovalOutcome, type ApprovalRequest } from '../lib/workflow-safe/approvals.ts';
import { idCharsFromHex } from '../lib/workflow-safe/id-alphabet.ts';
import { approvalWorkflow } from './approval.ts';
import type { ToolCall, ToolResultPart, TurnInput } from '../core/turn-types.ts';
import { approvalWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

/** Seeded workflow randomness, so a replay makes the same id. */
export function newApprovalId(): string {
  return `apr_${idCharsFromHex(uuid4().replace(/-/g, '') + uuid4().replace(/-/g, ''))}`;
}

/** The approval's summary in Temporal, readable there (lib/workflow-safe/readable-metadata.ts): its id, never the question. */
export function approvalSummary(approvalId: string): string {
  return `Approval ${approvalId}: a question to the user`;
}

export async function askUser(turn: TurnInput, call: ToolCall): Promise<ToolResultPart> {
  const { toolCallId, toolName } = call;
  // Approvers are read only from a call the step checked them for (asksTeam): a call recorded before that
  // was read without them, and replays so.
  const parsed = parseApprovalRequest(call.input, turn.settings.approvals, { team: call.asksTeam === true });
  if (!parsed.ok) return { type: 'tool-result', toolCallId, toolName, output: { error: parsed.error }, isError: true };
  const outcome = await approvalInTurn(turn, toolCallId, parsed.request, 'the ask_my_user tool');
  const output =
    outcome.status === 'answered'
      ? { choice: outcome.choice, note: outcome.note }
      : { status: 'expired', message: 'The user did not answer before the question expired. Do not assume their agreement.' };
  return { type: 'tool-result', toolCallId, toolName, output };
}

/**
 * An approval child of the turn for one of its tool calls, awaited until answered or expired. `askedBy`
 * says in the Web UI what asked (the ask_my_user tool, a tool's policy).
 */
export async function approvalInTurn(
  turn: TurnInput,
  toolCallId: string,
  request: ApprovalRequest,
  askedBy: string,
): Promise<ApprovalOutcome> {
  const approvalId = newApprovalId();
  return executeChild(approvalWorkflow, {
    workflowId: approvalWorkflowId(approvalId),
    args: [
      {
        approvalId,
        userId: turn.userId,
        source: 'tool',
        agentId: turn.agentId,
        revision: turn.revision,
        sessionId: turn.sessionId,
        turnId: turn.turnId,
        toolCallId,
        request,
        settings: turn.settings.approvals,
      },
    ],
    // Its answer resumes the turn: a worker dying in one of its tasks holds the turn this long (absent in
    // runs from before the setting, which start their children as they did).
    ...(turn.settings.workflowTaskTimeoutMs ? { workflowTaskTimeout: turn.settings.workflowTaskTimeoutMs } : {}),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    cancellationType: ChildWorkflowCancellationType.ABANDON,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: searchAttributes('approval', { sessionId: turn.sessionId, agentId: turn.agentId, userId: turn.userId }),
    ...readableMetadata({
      summary: approvalSummary(approvalId),
      details: `Asked by ${askedBy} in turn ${turn.turnId} of session ${turn.sessionId}. Answer: POST /approval/${approvalId}/answer`,
    }),
  });
}
