// The client side of the approval workflow (`approval:<id>`): start it (the API has written its
// record), answer it (an Update its validator may reject), and start a note in
// its chat threads. The API maps the outcomes to HTTP (api/approvals/workflows.ts).
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import {
  answeredSignal,
  answerUpdate,
  seatsAddedSignal,
  type SeatDispatchRef,
  type AnsweredOutcome,
  type approvalWorkflow,
  type StoredAnswerSignal,
} from '../workflows/approval.ts';

/** What an answered approval's workflow returns: the API's answer to it (api/approvals/workflows.ts). */
export type { AnsweredOutcome };
import { approvalSummary } from '../workflows/ask-user.ts';
import type { ApprovalNoticeInput, approvalNoticeWorkflow } from '../workflows/approval-notice.ts';
import type { ApprovalAnswer, ApprovalWorkflowInput } from '../lib/workflow-safe/approvals.ts';
import { approvalNoticeWorkflowId, approvalWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

/**
 * Starts the approval's workflow, or finds it started (the same id is the same approval, so a retry
 * starts nothing more). The engine takes a start with no worker running; the API writes the record
 * itself (api/approvals/workflows.ts), so nothing here waits for a worker.
 */
export async function startApprovalWorkflow(
  client: Client,
  target: { taskQueue: string; workflowTaskTimeoutMs?: number },
  input: ApprovalWorkflowInput,
): Promise<void> {
  try {
    await client.workflow.start<typeof approvalWorkflow>('approvalWorkflow', {
      workflowId: approvalWorkflowId(input.approvalId),
      taskQueue: target.taskQueue,
      // How long a worker dying in one of its tasks holds the approval (WORKFLOW_TASK_TIMEOUT_MS).
      ...(target.workflowTaskTimeoutMs ? { workflowTaskTimeout: target.workflowTaskTimeoutMs } : {}),
      workflowIdConflictPolicy: 'USE_EXISTING',
      // An approval that has ended is never asked again under its id.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: searchAttributes('approval', { sessionId: input.sessionId, agentId: input.agentId, userId: input.userId }),
      ...readableMetadata({
        summary: approvalSummary(input.approvalId),
        details: `Created with POST /approval. Answer: POST /approval/${input.approvalId}/answer`,
      }),
    });
  } catch (error) {
    // It ran and has ended already: it was started, and wrote its record.
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
  }
}

/** The first valid answer wins; the workflow's validator rejects any other (lib/workflow-safe/failures.ts types). */
export function answerApprovalWorkflow(client: Client, approvalId: string, answer: ApprovalAnswer) {
  return client.workflow.getHandle(approvalWorkflowId(approvalId)).executeUpdate(answerUpdate, { args: [answer] });
}

/** Hands the approval's workflow an answer stored already (the engine takes it with no worker running). */
export async function signalStoredAnswer(client: Client, approvalId: string, answer: StoredAnswerSignal) {
  await client.workflow.getHandle(approvalWorkflowId(approvalId)).signal(answeredSignal, answer);
}

/** Approvers the API added (a delegation): the approval's workflow asks them. Taken with no worker running. */
export async function signalSeatsAdded(client: Client, approvalId: string, dispatches: SeatDispatchRef[]): Promise<void> {
  if (dispatches.length > 0) await client.workflow.getHandle(approvalWorkflowId(approvalId)).signal(seatsAddedSignal, dispatches);
}

/** A note in some of the approval's chat threads (why a reply was not taken, say). */
export async function startApprovalNotice(
  client: Client,
  taskQueue: string,
  approval: { id: string; userId: string },
  note: { positions: number[]; seats?: ApprovalNoticeInput['seats']; text: string },
): Promise<void> {
  await client.workflow.start<typeof approvalNoticeWorkflow>('approvalNoticeWorkflow', {
    workflowId: approvalNoticeWorkflowId(approval.id, randomUUID()),
    taskQueue,
    args: [{ approvalId: approval.id, ...note }],
    typedSearchAttributes: searchAttributes('notice', { userId: approval.userId }),
    ...readableMetadata({ summary: `A note in a chat thread of approval ${approval.id}` }),
  });
}
