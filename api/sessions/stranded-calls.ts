// Another agent's call whose child session lost its workflow mid-turn (an operator terminated it in the
// Temporal Web UI, or it timed out) would leave its caller waiting for good: nothing is left to end the
// child's turn. A housekeeping pass finds such calls (their sends taken, their turns not ended, their
// workflows no longer running) and wakes the child's session as a send would: its fresh run ends the
// stranded turn as failed, and that end goes to the caller as the call's error result
// (activities/turn/bookkeeping.ts), so the caller's model reads it and goes on.
import { WorkflowNotFoundError } from '@temporalio/client';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { takenCallSends } from '../../store/session-inbox.ts';
import { wakeSessionWithStart } from '../../clients/session.ts';
import type { ApiDeps } from '../context.ts';
import { callTemporal } from '../temporal-call.ts';
import { sessionClient } from './workflows.ts';

/** Calls checked per pass: the rest wait for the next one. */
const SWEEP_BATCH = 100;

type SweepDeps = Pick<ApiDeps, 'db' | 'temporal' | 'config' | 'logger'>;

/** Whether the session's workflow runs (a run continued as new counts as running). */
async function workflowRuns(deps: SweepDeps, sessionId: string): Promise<boolean> {
  try {
    const described = await callTemporal(deps, () => deps.temporal.client.workflow.getHandle(sessionWorkflowId(sessionId)).describe());
    return described.status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** Wakes the sessions of calls taken more than `olderThanMs` ago whose workflows no longer run; answers how many. */
export async function sweepStrandedCalls(deps: SweepDeps, olderThanMs: number): Promise<number> {
  let woken = 0;
  for (const send of await takenCallSends(deps.db, olderThanMs, SWEEP_BATCH)) {
    if (await workflowRuns(deps, send.sessionId)) continue;
    const target = { id: send.sessionId, userId: send.userId, agentId: send.agentId, revision: send.revision };
    await callTemporal(deps, () => wakeSessionWithStart(sessionClient(deps), target, send.messageId));
    deps.logger.warn(
      { sessionId: send.sessionId, messageId: send.messageId },
      "an agent call's child session lost its workflow; woken to end its turn",
    );
    woken++;
  }
  return woken;
}
