// Reaching a workflow graph's run from outside it: the end of an agent node another agent ran, signalled
// to the run that waits for it (workflows/graph.ts). The one door to the run for the activities.
import type { Client } from '@temporalio/client';
import type { AgentNodeEnd } from '../core/session-turns.ts';
import { graphRunWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { agentNodeEndedSignal } from '../workflows/graph-messages.ts';

export async function handAgentNodeEnd(client: Client, runId: string, end: AgentNodeEnd): Promise<void> {
  await client.workflow.getHandle(graphRunWorkflowId(runId)).signal(agentNodeEndedSignal, end);
}
