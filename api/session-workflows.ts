// The API's side of the session workflow: a send is an Update-with-Start (starting the session's
// workflow if it is not running), an abort an Update. The API never runs a turn itself.
import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { abortUpdate, BUSY_REJECTION, sendUpdate, sessionWorkflowId, type SendInput, type SendResult } from '../workflows/session.ts';
import type { sessionWorkflow } from '../workflows/session.ts';
import type { ApiDeps } from './context.ts';
import type { Session } from '../store/sessions.ts';
import { ConflictError } from '../lib/errors.ts';
import { AgentIdKey, KindKey, SessionIdKey, UserIdKey } from '../lib/search-attributes.ts';

/** A send can race with the session workflow ending on its idle timer; a retry starts a new run. */
const SEND_ATTEMPTS = 3;

function causeMessage(error: unknown): string {
  let current: unknown = error;
  let text = '';
  while (current instanceof Error) {
    text += ` ${current.message}`;
    current = current.cause;
  }
  return text;
}

export async function sendToSession(deps: ApiDeps, session: Session, send: SendInput): Promise<SendResult> {
  for (let attempt = 1; ; attempt++) {
    const start = new WithStartWorkflowOperation<typeof sessionWorkflow>('sessionWorkflow', {
      workflowId: sessionWorkflowId(session.id),
      taskQueue: deps.config.taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [
        {
          sessionId: session.id,
          userId: session.userId,
          agentId: session.agentId,
          revision: session.revision,
          settings: deps.config.turns,
        },
      ],
      typedSearchAttributes: [
        { key: SessionIdKey, value: session.id },
        { key: AgentIdKey, value: session.agentId },
        { key: UserIdKey, value: session.userId },
        { key: KindKey, value: 'session' },
      ],
      staticSummary: `Session ${session.id}`,
      staticDetails: `Orders the turns of session ${session.id} (agent ${session.agentId}, revision ${session.revision}).`,
    });
    try {
      return await deps.temporal.client.workflow.executeUpdateWithStart(sendUpdate, { args: [send], startWorkflowOperation: start });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError && causeMessage(error).includes(BUSY_REJECTION)) {
        throw new ConflictError('A turn is running in this session (ifBusy=reject)');
      }
      if (attempt >= SEND_ATTEMPTS) throw error;
    }
  }
}

export async function abortSession(deps: ApiDeps, sessionId: string): Promise<boolean> {
  try {
    const result = await deps.temporal.client.workflow.getHandle(sessionWorkflowId(sessionId)).executeUpdate(abortUpdate);
    return result.aborted;
  } catch (error) {
    // No running session workflow: nothing to abort.
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
