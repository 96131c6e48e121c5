// The step that completes a turn answering another agent's call hands the reply to the caller at once,
// rather than leaving it to the child's session workflow after the step's result reaches it (a task
// round trip and a local activity later, all on the caller's critical path: docs/benchmarks.md,
// "Agents calling agents"). A failed hand-back is left to that workflow, which hands it back durably.
import { Context } from '@temporalio/activity';
import type { ModelStepInput } from '../../core/turn-types.ts';
import { handBackAgentCall } from '../agent-call-hand-back.ts';
import type { ModelStepDeps } from './step-deps.ts';

/** true: handed back (or nobody waits any more); false: the session workflow must. */
export async function handBackFromStep(deps: Pick<ModelStepDeps, 'db' | 'logger'>, input: ModelStepInput): Promise<boolean> {
  const to = input.replyTo;
  if (!to) return false;
  try {
    await handBackAgentCall(deps.db, Context.current().client, {
      parentSessionId: to.parentSessionId,
      messageId: to.messageId,
      toolCallId: to.toolCallId,
      agent: to.agent,
      childSessionId: input.sessionId,
      turnId: input.turnId,
      status: 'completed',
      ...(to.callerWorkflowId ? { callerWorkflowId: to.callerWorkflowId } : {}),
    });
    return true;
  } catch (error) {
    deps.logger.warn(
      { err: error, sessionId: input.sessionId, turnId: input.turnId },
      'could not hand the reply back; the session workflow will',
    );
    return false;
  }
}
