// Asking an agent's schedules workflow (`schedules:<agentId>`) for a reconcile pass: a Signal-with-
// Start, so the workflow is started if it is not running. The API asks after a deploy or a deletion,
// the trigger activity when a firing finds its schedule stale; both start the same workflow the same way.
import type { Client } from '@temporalio/client';
import { reconcileSignal, type SchedulesWorkflow } from '../workflows/schedules-messages.ts';
import { schedulesWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

export async function requestReconcile(client: Client, taskQueue: string, agentId: string): Promise<void> {
  await client.workflow.signalWithStart<SchedulesWorkflow>('schedulesWorkflow', {
    workflowId: schedulesWorkflowId(agentId),
    taskQueue,
    args: [{ agentId }],
    signal: reconcileSignal,
    typedSearchAttributes: searchAttributes('schedules', { agentId }),
    ...readableMetadata({ summary: `Cron schedules of agent ${agentId}` }),
  });
}
