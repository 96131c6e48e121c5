// What a dead worker left that its recorded task tokens (workers/worker-life.ts) do not cover, asked of
// Temporal itself. Two things stall a turn after a worker dies besides the activities it recorded:
// - an activity Temporal handed to it (started, in the workflow's history) that it died before recording
//   (the record is written within START_WAITS_AT_MOST_MS of the start): it waited for its heartbeat
//   timeout (8 s for a model step, 6 s for a tool), then its retry;
// - a workflow whose cache was on the dead worker: Temporal keeps sending its next tasks to that worker's
//   sticky queue for 10 s after the worker's last poll, and each waits the 3 s sticky timeout there.
// So the worker that found the death describes the workflows a turn may be running in (sessions that are
// not idle, and the approvals they wait on), fails each activity whose last attempt the dead worker
// started and still holds, and, for a workflow whose last task the dead worker ran, points its next
// task at the shared queue (ResetStickyTaskQueue). A workflow cached on a live worker keeps its cache:
// resetting it would make a survivor replay it just when it takes over the dead worker's work.
// A workflow task the dead worker had already started still waits for its own timeout
// (WORKFLOW_TASK_TIMEOUT_MS): Temporal fails one only with its task token, which only that worker had.
import type { ApplicationFailure } from '@temporalio/common';
import { ActivityNotFoundError, type Client } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import type { Logger } from '../lib/logger.ts';

/** Workflows described at once: a death costs Temporal a burst of this many reads, not of all of them. */
const DESCRIBES_AT_ONCE = 8;

const { PENDING_ACTIVITY_STATE_STARTED, PENDING_ACTIVITY_STATE_CANCEL_REQUESTED } = proto.temporal.api.enums.v1.PendingActivityState;
const { WORKFLOW_EXECUTION_STATUS_RUNNING } = proto.temporal.api.enums.v1.WorkflowExecutionStatus;

export interface Recovered {
  /** Workflows described. */
  workflows: number;
  /** Activities of the dead worker failed (run again) or, when their workflow had asked to cancel them, cancelled. */
  activities: number;
  /** Workflows whose last task the dead worker ran, whose next task now goes to the shared queue. */
  unstuck: number;
}

export async function recoverDeadWorkersWork(options: {
  client: Client;
  namespace: string;
  /** The Temporal identities of the dead workers. */
  identities: ReadonlySet<string>;
  workflowIds: readonly string[];
  failure: () => ApplicationFailure;
  logger: Logger;
}): Promise<Recovered> {
  const { client, namespace, identities, logger } = options;
  const recovered: Recovered = { workflows: 0, activities: 0, unstuck: 0 };
  const queue = [...options.workflowIds];
  const one = async (workflowId: string): Promise<void> => {
    const execution = { workflowId };
    let pending: temporal.api.workflow.v1.IPendingActivityInfo[];
    try {
      const description = await client.workflowService.describeWorkflowExecution({ namespace, execution });
      if (description.workflowExecutionInfo?.status !== WORKFLOW_EXECUTION_STATUS_RUNNING) return;
      pending = description.pendingActivities ?? [];
    } catch (error) {
      // Gone (ended and removed, or never started): nothing of it waits.
      logger.debug({ err: error, workflowId }, 'could not describe a workflow after a worker died');
      return;
    }
    recovered.workflows++;
    for (const activity of pending) {
      const heldByDead =
        activity.activityId &&
        activity.lastWorkerIdentity &&
        identities.has(activity.lastWorkerIdentity) &&
        (activity.state === PENDING_ACTIVITY_STATE_STARTED || activity.state === PENDING_ACTIVITY_STATE_CANCEL_REQUESTED);
      if (!heldByDead) continue;
      const id = { workflowId, activityId: activity.activityId! };
      try {
        if (activity.state === PENDING_ACTIVITY_STATE_CANCEL_REQUESTED) await client.activity.reportCancellation(id);
        else await client.activity.fail(id, options.failure());
        recovered.activities++;
      } catch (error) {
        // Ended meanwhile, or its own timeout came first.
        if (!(error instanceof ActivityNotFoundError)) {
          logger.warn({ err: error, workflowId }, 'could not fail an activity of a dead worker: its own timeouts will retry it');
        }
      }
    }
    try {
      if (!identities.has(await lastTaskWorker(client, namespace, workflowId))) return;
      await client.workflowService.resetStickyTaskQueue({ namespace, execution });
      recovered.unstuck++;
    } catch (error) {
      logger.debug({ err: error, workflowId }, 'could not reset the sticky queue of a workflow after a worker died');
    }
  };
  const lanes = Array.from({ length: Math.min(DESCRIBES_AT_ONCE, queue.length) }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await one(next);
  });
  await Promise.all(lanes);
  return recovered;
}

/** Events read back from a workflow's end for its last workflow task: a turn's last task is a few events back. */
const TAIL_EVENTS = 50;

/** The identity of the worker that started the workflow's last workflow task ('' if none is that recent). */
async function lastTaskWorker(client: Client, namespace: string, workflowId: string): Promise<string> {
  const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace,
    execution: { workflowId },
    maximumPageSize: TAIL_EVENTS,
  });
  const started = history?.events?.find((event) => event.workflowTaskStartedEventAttributes);
  return started?.workflowTaskStartedEventAttributes?.identity ?? '';
}
