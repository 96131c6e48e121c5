// Sending to a session's workflow from outside it: an Update-with-Start, so the session workflow is
// started if it is not running (it ends when idle; the trigger activities' sends, reverts, compactions),
// or a Signal-with-Start, which the server accepts with no worker running (the wake-up for sends the
// API took in PostgreSQL). Callers map the failures to their own errors.
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { ToolResultInput } from '../core/client-tool-calls.ts';
import {
  abortTurnSignal,
  abortUpdate,
  agentCallEndedSignal,
  sendSignal,
  sendsWaitingSignal,
  sendUpdate,
  type AsyncSendInput,
  type SendInput,
  type SendResult,
  type SessionWorkflow,
} from '../workflows/session-messages.ts';

// The API compacts through the same door (api/sessions/workflows.ts).
export { compactUpdate } from '../workflows/session-messages.ts';
import type { TurnSettings } from '../lib/workflow-safe/turn-settings.ts';
import { sendUpdateId, sessionWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

/** A send can race with the session workflow ending on its idle timer; a retry starts a new run. */
const ATTEMPTS = 3;

export interface SessionTarget {
  id: string;
  userId: string;
  agentId: string;
  revision: number;
}

export interface SessionClient {
  client: Client;
  taskQueue: string;
  settings: TurnSettings;
}

function startOptions(target: SessionClient, session: SessionTarget): WorkflowStartOptions<SessionWorkflow> {
  return {
    workflowId: sessionWorkflowId(session.id),
    taskQueue: target.taskQueue,
    // Temporal's default is 10 s; a worker that dies during a task holds its turn that long (its local
    // activities heartbeat the task at 80% of it, so none is cut short).
    ...(target.settings.workflowTaskTimeoutMs ? { workflowTaskTimeout: target.settings.workflowTaskTimeoutMs } : {}),
    args: [
      { sessionId: session.id, userId: session.userId, agentId: session.agentId, revision: session.revision, settings: target.settings },
    ],
    typedSearchAttributes: searchAttributes('session', { sessionId: session.id, agentId: session.agentId, userId: session.userId }),
    ...readableMetadata({
      summary: `Session ${session.id}`,
      details: `Orders the turns of session ${session.id} (agent ${session.agentId}, revision ${session.revision}).`,
    }),
  };
}

/**
 * Runs `update` on the session's workflow, starting it if needed. A failed Update (the workflow
 * refused it) is thrown at once; anything else is tried again, with the same `updateId`, so
 * Temporal applies the Update once however often it is sent.
 */
export async function updateSessionWithStart<Ret, Args extends unknown[]>(
  target: SessionClient,
  session: SessionTarget,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  updateId: string,
): Promise<Ret> {
  for (let attempt = 1; ; attempt++) {
    const start = new WithStartWorkflowOperation<SessionWorkflow>('sessionWorkflow', {
      ...startOptions(target, session),
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    try {
      return await target.client.workflow.executeUpdateWithStart(update, { args, updateId, startWorkflowOperation: start });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError || attempt >= ATTEMPTS) throw error;
    }
  }
}

export function sendToSessionWorkflow(target: SessionClient, session: SessionTarget, send: SendInput): Promise<SendResult> {
  return updateSessionWithStart(target, session, sendUpdate, [send], sendUpdateId(send.messageId));
}

/**
 * Hands a send to the session's workflow without waiting for it: once this returns, the send is in
 * the workflow's history and is recorded when a worker takes it, however long that is. The workflow
 * drops a send it has seen before (same messageId), so sending again is safe.
 */
export async function signalSessionWithStart(target: SessionClient, session: SessionTarget, send: AsyncSendInput): Promise<void> {
  await target.client.workflow.signalWithStart<SessionWorkflow, [AsyncSendInput]>('sessionWorkflow', {
    ...startOptions(target, session),
    signal: sendSignal,
    signalArgs: [send],
  });
}

/**
 * Wakes the session's workflow (starting it if none runs) to read the sends the API took for it
 * (store/session-inbox.ts). The engine takes the signal with no worker running.
 */
export async function wakeSessionWithStart(target: SessionClient, session: SessionTarget, messageId: string): Promise<void> {
  await target.client.workflow.signalWithStart<SessionWorkflow, [{ messageId: string }]>('sessionWorkflow', {
    ...startOptions(target, session),
    signal: sendsWaitingSignal,
    signalArgs: [{ messageId }],
  });
}

/**
 * Asks the session's workflow (starting it if none runs, as a send's wake-up would) to abort turn
 * `turnId`. The engine takes the signal with no worker running.
 */
export async function abortTurnWithStart(target: SessionClient, session: SessionTarget, turnId: string): Promise<void> {
  await target.client.workflow.signalWithStart<SessionWorkflow, [{ turnId: string }]>('sessionWorkflow', {
    ...startOptions(target, session),
    signal: abortTurnSignal,
    signalArgs: [{ turnId }],
  });
}

/**
 * Hands another agent's reply (the answer to a call of the session's running turn, stored in its inbox
 * already) to the session's workflow: false when no workflow runs (nothing waits; a later take reads it).
 */
export async function handAgentCallAnswer(
  client: Client,
  caller: { sessionId: string; workflowId?: string },
  answer: ToolResultInput,
): Promise<boolean> {
  try {
    // The calling turn runs in its session's workflow, or (a graph's agent node) in a turn workflow of its own.
    await client.workflow.getHandle(caller.workflowId ?? sessionWorkflowId(caller.sessionId)).signal(agentCallEndedSignal, answer);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** Asks the session's workflow to cancel its running turn: false when none runs (or no workflow does). */
export async function abortRunningTurn(client: Client, sessionId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(sessionWorkflowId(sessionId)).executeUpdate(abortUpdate)).aborted;
  } catch (error) {
    // No running session workflow: nothing to abort.
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
