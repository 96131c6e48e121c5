// The client side of custom tools run by the client: a result goes to the session's running turn as
// the `toolResult` Update (workflows/client-tools.ts), whose validator and handler refuse a call that is
// answered already or not awaited. The running turn is the one the session workflow says it runs, in
// the session workflow itself or in its own child workflow.
import { createHash } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { sessionWorkflowId, turnWorkflowId } from '../lib/workflow-ids.ts';
import { stateQuery, type SessionStateView } from '../workflows/session.ts';
import { toolResultUpdate, type ToolResultAck, type ToolResultInput } from '../workflows/client-tools.ts';

/** The result, recorded; undefined when the session runs no turn (nothing awaits it). */
export async function sendToolResult(client: Client, sessionId: string, result: ToolResultInput): Promise<ToolResultAck | undefined> {
  let state: SessionStateView;
  try {
    state = await client.workflow.getHandle(sessionWorkflowId(sessionId)).query(stateQuery);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  if (!state.runningTurnId) return undefined;
  // A turn runs in its session workflow (patch turns-in-session), or in a child workflow of its own.
  const turn = client.workflow.getHandle(
    state.turnInSession ? sessionWorkflowId(sessionId) : turnWorkflowId(sessionId, state.runningTurnId),
  );
  // The same id for the same answer: a retried request is applied once, and another answer is refused.
  const digest = createHash('sha256').update(JSON.stringify(result)).digest('base64url').slice(0, 22);
  return turn.executeUpdate(toolResultUpdate, { args: [result], updateId: `tool-result:${digest}` });
}
