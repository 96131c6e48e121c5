// Whether any worker polls the service's task queue, as Temporal sees it (DescribeTaskQueue): the
// pollers of its workflow tasks and of its activity tasks, each seen within the last POLLER_FRESH_MS.
// Temporal keeps a poller listed for minutes after its worker is gone, and a healthy idle worker
// renews its long poll about once a minute, so "fresh" is a little over a minute: a worker that
// dies is noticed within that.
import proto from '@temporalio/proto';
import type { Connection } from '@temporalio/client';

// The package is CommonJS: its namespace comes through the default export under Node's ESM loader.
const { temporal } = proto;
type TaskQueueType = proto.temporal.api.enums.v1.TaskQueueType;

export const POLLER_FRESH_MS = 75_000;

export interface PollerCount {
  workflow: number;
  activity: number;
}

const { TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY } = temporal.api.enums.v1.TaskQueueType;

export async function countPollers(connection: Connection, namespace: string, taskQueue: string, now = Date.now()): Promise<PollerCount> {
  const fresh = async (taskQueueType: TaskQueueType) => {
    const { pollers } = await connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType });
    return (pollers ?? []).filter((poller) => {
      const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
      return now - seconds * 1000 <= POLLER_FRESH_MS;
    }).length;
  };
  const [workflow, activity] = await Promise.all([fresh(TASK_QUEUE_TYPE_WORKFLOW), fresh(TASK_QUEUE_TYPE_ACTIVITY)]);
  return { workflow, activity };
}
