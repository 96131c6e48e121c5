// Starting a webhook delivery's workflow (`delivery:<id>`) from outside a workflow: the API publishes the
// events of changes it makes itself (an agent's revisions), and its housekeeping starts deliveries that
// were recorded but never started (a process died between the two). The id is the delivery's and is
// never reused, so starting one twice is a no-op.
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { isPushLabel, type DeliveryInput } from '../core/delivery-types.ts';
import { deliveryWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

/** Starts the delivery; false when it was started before (it runs, or ran: either way it is not lost). */
export async function startDelivery(client: Client, taskQueue: string, userId: string, input: DeliveryInput): Promise<boolean> {
  try {
    await client.workflow.start('deliveryWorkflow', {
      workflowId: deliveryWorkflowId(input.deliveryId),
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: searchAttributes('delivery', { userId }),
      ...readableMetadata(
        isPushLabel(input.subscriptionId)
          ? { summary: `A2A push notification ${input.type} ${input.deliveryId}`, details: `To ${input.subscriptionId}` }
          : {
              summary: `Webhook ${input.type} delivery ${input.deliveryId}`,
              details: `Subscription ${input.subscriptionId}. Attempts: GET /webhook/${input.subscriptionId}/deliveries`,
            },
      ),
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}
