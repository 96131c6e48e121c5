// An eval run (docs/evals.md): one child workflow per case, `concurrency` at a time, each running its
// case's activity (activities/evals.ts) until the case's turn ends and is graded. The run and its cases
// are resumable after any restart (their ids and results live in PostgreSQL, the activity is idempotent)
// and cancellable: cancelling the run cancels the cases still running, whose activities abort their
// turns. At the end the run is marked and an `eval.completed` webhook event tells subscribers.
import {
  ActivityCancellationType,
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  executeChild,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { evalCaseWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';
import { publishEvent } from './publish.ts';

export interface EvalRunInput {
  runId: string;
  userId: string;
  agentId: string;
  cases: number;
  concurrency: number;
}

/** One case: the activity runs it to its verdicts (a case's turn takes at most 10 minutes; then it is aborted). */
export async function evalCaseWorkflow(input: { runId: string; position: number }): Promise<{ status: string }> {
  const { runEvalCase } = proxyActivities<Activities>({
    startToCloseTimeout: '12 minutes',
    heartbeatTimeout: '30 seconds',
    // A cancelled run waits for its cases to abort their turns.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
  });
  return runEvalCase(input);
}

/** The deepest cause's message: a child's failure wraps its activity's, which wraps the error itself. */
function innermostMessage(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

export async function evalRunWorkflow(input: EvalRunInput): Promise<{ status: 'completed' | 'cancelled' }> {
  const { endEvalRun, failEvalCase } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 20 },
  });
  let next = 0;
  let cancelled = false;
  const worker = async (): Promise<void> => {
    while (next < input.cases) {
      const position = next++;
      try {
        await executeChild(evalCaseWorkflow, {
          workflowId: evalCaseWorkflowId(input.runId, position),
          args: [{ runId: input.runId, position }],
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          typedSearchAttributes: searchAttributes('eval', { userId: input.userId, agentId: input.agentId }),
          ...readableMetadata({ summary: `Eval ${input.runId}, case ${position}`, details: `GET /evals/${input.runId}` }),
        });
      } catch (error) {
        if (isCancellation(error)) throw error;
        // A case that could not run (its attempts spent: the agent deleted, its user's queue full) ends
        // as an error with the reason; the run goes on with the others.
        await failEvalCase({ runId: input.runId, position, error: innermostMessage(error) });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(input.concurrency, input.cases) }, worker));
  } catch (error) {
    if (!isCancellation(error)) throw error;
    cancelled = true;
  }
  const ended = await CancellationScope.nonCancellable(() => endEvalRun({ runId: input.runId, cancelled }));
  await CancellationScope.nonCancellable(() =>
    publishEvent(
      input.userId,
      {
        type: 'eval.completed',
        data: {
          evalId: input.runId,
          agentId: ended.agentId,
          agentName: ended.agentName,
          revision: ended.revision,
          status: cancelled ? 'cancelled' : 'completed',
          summary: ended.summary,
        },
      },
      `eval.completed:${workflowInfo().workflowId}`,
    ),
  );
  return { status: cancelled ? 'cancelled' : 'completed' };
}
