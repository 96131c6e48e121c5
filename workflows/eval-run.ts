// An eval run (docs/evals.md): one child workflow per case, `concurrency` at a time, each starting its
// case's turn and looking at it on timers until it ends and is graded (activities/evals.ts). The run and
// its cases are resumable after any restart (their ids and results live in PostgreSQL, the activities are
// idempotent) and cancellable: cancelling the run cancels the cases still running, which abort their
// turns. At the end the run is marked and an `eval.completed` webhook event tells subscribers.
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  executeChild,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { evalCaseWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';
import { publishEvent } from './publish.ts';
import { EVAL_LIMITS } from '../contract/operations/evals.ts';

export interface EvalRunInput {
  runId: string;
  userId: string;
  agentId: string;
  cases: number;
  concurrency: number;
}

/** Between two looks at a case's turn: soon at first (a fake or quick model answers in a second), then less often. */
const CHECK_EVERY = { firstMs: 250, factor: 1.5, mostMs: 5_000 };

/**
 * One case: its session opened and its input sent, then its turn looked at on timers (holding no worker
 * slot while it runs) until it has ended and is graded, or its time is up (aborted, graded so). Cancelled
 * with its run, its turn is aborted and it ends cancelled.
 */
export async function evalCaseWorkflow(input: { runId: string; position: number }): Promise<{ status: string }> {
  const { startEvalCase, checkEvalCase, cancelEvalCase } = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
  });
  // A rubric judge's model calls: longer than a check (a call may wait up to 10 minutes for budget room),
  // heartbeating, retried while its provider fails (judges an attempt finished are not asked again).
  const { judgeEvalCase } = proxyActivities<Activities>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
  });
  const deadline = Date.now() + EVAL_LIMITS.caseTimeoutMs;
  try {
    const started = await startEvalCase(input);
    if (started.ended) return { status: started.status };
    let wait = CHECK_EVERY.firstMs;
    for (;;) {
      const checked = await checkEvalCase({ ...input, timedOut: Date.now() >= deadline });
      if (checked.ended) return { status: checked.status };
      // Only runs with a rubric grader come here (none recorded before it existed).
      if (checked.judge) {
        const judged = await judgeEvalCase(input);
        if (judged.ended) return { status: judged.status };
      }
      await sleep(Math.min(wait, Math.max(deadline - Date.now(), 1)));
      wait = Math.min(wait * CHECK_EVERY.factor, CHECK_EVERY.mostMs);
    }
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => cancelEvalCase(input));
    throw error;
  }
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
