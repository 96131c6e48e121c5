// Starting and cancelling an eval run's workflow (`eval:<runId>`, workflows/eval-run.ts) from the API.
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { EvalRunInput } from '../workflows/eval-run.ts';

export type { EvalRunInput };
import { evalRunWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

/** Starts the run's workflow; false when it was started before (a retry, or the housekeeping pass). */
export async function startEvalRun(client: Client, taskQueue: string, input: EvalRunInput): Promise<boolean> {
  try {
    await startOnce(client, taskQueue, input);
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

async function startOnce(client: Client, taskQueue: string, input: EvalRunInput): Promise<void> {
  await client.workflow.start('evalRunWorkflow', {
    workflowId: evalRunWorkflowId(input.runId),
    taskQueue,
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: searchAttributes('eval', { userId: input.userId, agentId: input.agentId }),
    ...readableMetadata({ summary: `Eval ${input.runId}: ${input.cases} cases`, details: `GET /evals/${input.runId}` }),
  });
}

/** Asks the run to stop; a run that has ended already is left as it is. */
export async function cancelEvalRunWorkflow(client: Client, runId: string): Promise<void> {
  try {
    await client.workflow.getHandle(evalRunWorkflowId(runId)).cancel();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    throw error;
  }
}
