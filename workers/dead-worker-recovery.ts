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
// A graph run's turns, and an eval run's cases, run in workflows of their own, which Temporal lists
// (runningListedWorkflowIds): an eval case's activities time out only after a minute. Not asked about,
// so left to their own timeouts: approvals asked with POST /approval, deliveries and notices, and what
// lies past the RECOVER_AT_MOST most recently active sessions and listed workflows.
// Temporal fails an activity by id whatever its attempt: one whose heartbeat timeout passed between the
// describe and the fail, and whose retry a live worker already runs, would be failed once more (and run
// a third time). The window is the milliseconds between two calls, after a timeout of seconds.
import { ApplicationFailure } from '@temporalio/common';
import { ActivityNotFoundError, type Client, type FullActivityId } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import type { Logger } from '../lib/logger.ts';
import type * as workflows from '../workflows/index.ts';

/** Workflows described at once: a death costs Temporal a burst of this many reads, not of all of them. */
const DESCRIBES_AT_ONCE = 8;
/** Events read back from a workflow's end for its last workflow task: a turn's last task is a few events back. */
const TAIL_EVENTS = 50;
/** The failure a dead worker's activity gets: retried (not one of FAILURE's non-retryable types), at once. */
export const WORKER_LOST = 'WorkerLost';
const RETRY_AFTER_LOSS = '100 milliseconds';

const { PENDING_ACTIVITY_STATE_STARTED, PENDING_ACTIVITY_STATE_CANCEL_REQUESTED } = proto.temporal.api.enums.v1.PendingActivityState;
const { WORKFLOW_EXECUTION_STATUS_RUNNING } = proto.temporal.api.enums.v1.WorkflowExecutionStatus;

export interface Recovered {
  /** Running workflows described. */
  workflows: number;
  /** Activities of the dead worker failed (run again) or, when their workflow had asked to cancel them, cancelled. */
  activities: number;
  /** Workflows whose last task the dead worker ran, whose next task now goes to the shared queue. */
  unstuck: number;
}

/**
 * Fails (to be run again at once) or, with `cancelled`, reports as cancelled one activity a dead worker
 * held. True when Temporal took it; false when the activity had ended meanwhile (it completed, or its own
 * timeout came first) or could not be reached (its own timeouts will retry it).
 */
export async function endLostActivity(
  client: Client,
  activity: Uint8Array | FullActivityId,
  logger: Logger,
  cancelled = false,
): Promise<boolean> {
  try {
    if (cancelled) await client.activity.reportCancellation(activity as FullActivityId);
    else
      await client.activity.fail(
        activity as FullActivityId,
        ApplicationFailure.create({ type: WORKER_LOST, message: 'The worker running this attempt died', nextRetryDelay: RETRY_AFTER_LOSS }),
      );
    return true;
  } catch (error) {
    if (!(error instanceof ActivityNotFoundError)) {
      logger.warn({ err: error }, 'could not end an activity of a dead worker: its own timeouts will retry it');
    }
    return false;
  }
}

export async function recoverDeadWorkersWork(options: {
  client: Client;
  namespace: string;
  /** The Temporal identities of the dead workers. */
  identities: ReadonlySet<string>;
  workflowIds: readonly string[];
  logger: Logger;
}): Promise<Recovered> {
  const { client, namespace, identities, logger } = options;
  const recovered: Recovered = { workflows: 0, activities: 0, unstuck: 0 };
  const queue = [...options.workflowIds];
  const one = async (workflowId: string): Promise<void> => {
    let runId: string;
    let pending: temporal.api.workflow.v1.IPendingActivityInfo[];
    try {
      const description = await client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId } });
      const info = description.workflowExecutionInfo;
      if (info?.status !== WORKFLOW_EXECUTION_STATUS_RUNNING || !info.execution?.runId) return;
      runId = info.execution.runId;
      pending = description.pendingActivities ?? [];
    } catch (error) {
      warnUnlessGone(logger, error, workflowId, 'could not describe a workflow after a worker died');
      return;
    }
    recovered.workflows++;
    // This run only: an activity id is a sequence number of its run, and a session continues as new.
    const execution = { workflowId, runId };
    // Unstuck first: a failed or cancelled activity wakes its workflow, whose task must not go to the dead queue.
    try {
      if (identities.has(await lastTaskWorker(client, namespace, execution))) {
        await client.workflowService.resetStickyTaskQueue({ namespace, execution });
        recovered.unstuck++;
      }
    } catch (error) {
      warnUnlessGone(logger, error, workflowId, 'could not reset the sticky queue of a workflow after a worker died');
    }
    for (const activity of pending) {
      const held =
        activity.activityId &&
        identities.has(activity.lastWorkerIdentity ?? '') &&
        (activity.state === PENDING_ACTIVITY_STATE_STARTED || activity.state === PENDING_ACTIVITY_STATE_CANCEL_REQUESTED);
      if (!held) continue;
      const cancelled = activity.state === PENDING_ACTIVITY_STATE_CANCEL_REQUESTED;
      if (await endLostActivity(client, { ...execution, activityId: activity.activityId! }, logger, cancelled)) recovered.activities++;
    }
  };
  const lanes = Array.from({ length: Math.min(DESCRIBES_AT_ONCE, queue.length) }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await one(next);
  });
  await Promise.all(lanes);
  return recovered;
}

/** The workflow types asked for: the type checks each name against the workflows the worker runs. */
const LISTED_WORKFLOW_TYPES = [
  'graphRunWorkflow',
  'turnWorkflow',
  'evalRunWorkflow',
  'evalCaseWorkflow',
] as const satisfies readonly (keyof typeof workflows)[];

/**
 * Workflows a busy session does not name: graph runs and their agent nodes' turns (the sessions they use
 * read `idle` meanwhile), and eval runs and their cases (whose start, checks and rubric judges hold no
 * session's turn), running on `taskQueue`, at most `limit`. Temporal's list may lag a start by a moment:
 * one started in the second before a death may be missed, and waits for its own timeouts.
 */
export async function runningListedWorkflowIds(client: Client, taskQueue: string, limit: number): Promise<string[]> {
  const types = LISTED_WORKFLOW_TYPES.map((type) => `'${type}'`).join(', ');
  const query = `WorkflowType IN (${types}) AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue.replace(/'/g, "\\'")}'`;
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query, pageSize: limit })) {
    ids.push(execution.workflowId);
    if (ids.length >= limit) break;
  }
  return ids;
}

/** The identity of the worker that started the run's last workflow task ('' if none is that recent). */
async function lastTaskWorker(client: Client, namespace: string, execution: { workflowId: string; runId: string }): Promise<string> {
  const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace,
    execution,
    maximumPageSize: TAIL_EVENTS,
  });
  const started = history?.events?.find((event) => event.workflowTaskStartedEventAttributes);
  return started?.workflowTaskStartedEventAttributes?.identity ?? '';
}

/** gRPC's NOT_FOUND: the workflow ended and was removed meanwhile; nothing of it waits. */
const NOT_FOUND = 5;

function warnUnlessGone(logger: Logger, error: unknown, workflowId: string, message: string): void {
  if ((error as { code?: unknown }).code === NOT_FOUND) return;
  logger.warn({ err: error, workflowId }, message);
}
