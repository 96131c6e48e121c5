// The client side of a webhook firing or a workflow run started through the API: one trigger workflow
// (`trigger:<sessionId>`) with ids fixed by the caller, so a retry finds it started instead of firing
// twice. Cron firings are started by their Temporal Schedule instead (activities/schedules.ts).
import type { Client } from '@temporalio/client';
import type { triggerRunWorkflow } from '../workflows/trigger.ts';
import type { TriggerRunInput } from '../lib/workflow-safe/triggers.ts';
import { triggerRunWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

export async function startTriggerRun(client: Client, taskQueue: string, input: TriggerRunInput & { sessionId: string }): Promise<void> {
  await client.workflow.start<typeof triggerRunWorkflow>('triggerRunWorkflow', {
    workflowId: triggerRunWorkflowId(input.sessionId),
    // Also once it has ended: a late retry must not run the firing again.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    taskQueue,
    args: [input],
    typedSearchAttributes: searchAttributes('trigger', { sessionId: input.sessionId, agentId: input.agentId, userId: input.userId }),
    ...readableMetadata({ summary: `${input.trigger.kind} trigger of agent ${input.agentId} → session ${input.sessionId}` }),
  });
}
