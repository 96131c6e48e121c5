// What the worker that found a dead one asks of Temporal and does (workers/dead-worker-recovery.ts):
// only activities the dead identity started and still holds are ended, a cancel-requested one as
// cancelled, each in the run it belongs to; only workflows whose last task the dead worker ran lose
// their sticky queue, before their activities end; ended workflows and lost answers are passed over.
import { ActivityNotFoundError, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { expect, test } from 'vitest';
import { recoverDeadWorkersWork, WORKER_LOST } from '../../workers/dead-worker-recovery.ts';
import { pino } from 'pino';

const { PENDING_ACTIVITY_STATE_SCHEDULED, PENDING_ACTIVITY_STATE_STARTED, PENDING_ACTIVITY_STATE_CANCEL_REQUESTED } =
  proto.temporal.api.enums.v1.PendingActivityState;
const { WORKFLOW_EXECUTION_STATUS_RUNNING, WORKFLOW_EXECUTION_STATUS_COMPLETED } = proto.temporal.api.enums.v1.WorkflowExecutionStatus;

const DEAD = '111@host/dead';
const LIVE = '222@host/live';

interface FakeWorkflow {
  status: number;
  runId: string;
  /** Identity of the last workflow task's worker. */
  lastTask: string;
  activities: Array<{ activityId: string; state: number; lastWorkerIdentity: string }>;
}

function fakeTemporal(workflows: Record<string, FakeWorkflow>, options: { gone?: Set<string> } = {}) {
  const calls: string[] = [];
  const client = {
    workflowService: {
      async describeWorkflowExecution({ execution }: { execution: { workflowId: string } }) {
        const workflow = workflows[execution.workflowId];
        if (!workflow) throw Object.assign(new Error('not found'), { code: 5 });
        return {
          workflowExecutionInfo: { status: workflow.status, execution: { workflowId: execution.workflowId, runId: workflow.runId } },
          pendingActivities: workflow.activities,
        };
      },
      async getWorkflowExecutionHistoryReverse({ execution }: { execution: { workflowId: string; runId: string } }) {
        const workflow = workflows[execution.workflowId]!;
        expect(execution.runId).toBe(workflow.runId);
        return {
          history: {
            events: [
              { eventId: 9, activityTaskScheduledEventAttributes: {} },
              { eventId: 8, workflowTaskCompletedEventAttributes: {} },
              { eventId: 7, workflowTaskStartedEventAttributes: { identity: workflow.lastTask } },
              { eventId: 3, workflowTaskStartedEventAttributes: { identity: 'older' } },
            ],
          },
        };
      },
      async resetStickyTaskQueue({ execution }: { execution: { workflowId: string; runId: string } }) {
        calls.push(`reset ${execution.workflowId} ${execution.runId}`);
        return {};
      },
    },
    activity: {
      async fail(id: { workflowId: string; runId: string; activityId: string }, failure: { type?: string; nextRetryDelay?: unknown }) {
        if (options.gone?.has(id.activityId)) throw new ActivityNotFoundError('gone');
        expect(failure.type).toBe(WORKER_LOST);
        expect(failure.nextRetryDelay).toBeDefined();
        calls.push(`fail ${id.workflowId} ${id.runId} ${id.activityId}`);
      },
      async reportCancellation(id: { workflowId: string; runId: string; activityId: string }) {
        calls.push(`cancel ${id.workflowId} ${id.runId} ${id.activityId}`);
      },
    },
  } as unknown as Client;
  return { client, calls };
}

const logger = pino({ level: 'silent' });

test('only what the dead identity started and holds is ended, in its run; only its cached workflows are reset, first', async () => {
  const { client, calls } = fakeTemporal({
    'session:a': {
      status: WORKFLOW_EXECUTION_STATUS_RUNNING,
      runId: 'run-a2',
      lastTask: DEAD,
      activities: [
        { activityId: '4', state: PENDING_ACTIVITY_STATE_STARTED, lastWorkerIdentity: DEAD },
        // Scheduled again already (its last attempt was the dead worker's): Temporal will hand it to a live one.
        { activityId: '5', state: PENDING_ACTIVITY_STATE_SCHEDULED, lastWorkerIdentity: DEAD },
        { activityId: '6', state: PENDING_ACTIVITY_STATE_STARTED, lastWorkerIdentity: LIVE },
        { activityId: '7', state: PENDING_ACTIVITY_STATE_CANCEL_REQUESTED, lastWorkerIdentity: DEAD },
      ],
    },
    // Cached on a live worker: it keeps its cache, though its activity was the dead worker's.
    'approval:b': {
      status: WORKFLOW_EXECUTION_STATUS_RUNNING,
      runId: 'run-b',
      lastTask: LIVE,
      activities: [{ activityId: '1', state: PENDING_ACTIVITY_STATE_STARTED, lastWorkerIdentity: DEAD }],
    },
    'session:done': { status: WORKFLOW_EXECUTION_STATUS_COMPLETED, runId: 'run-d', lastTask: DEAD, activities: [] },
  });
  const recovered = await recoverDeadWorkersWork({
    client,
    namespace: 'default',
    identities: new Set([DEAD]),
    workflowIds: ['session:a', 'approval:b', 'session:done', 'session:removed'],
    logger,
  });
  expect(recovered).toEqual({ workflows: 2, activities: 3, unstuck: 1 });
  const ofA = calls.filter((call) => call.includes('session:a'));
  expect(ofA).toEqual(['reset session:a run-a2', 'fail session:a run-a2 4', 'cancel session:a run-a2 7']);
  expect(calls.filter((call) => call.includes('approval:b'))).toEqual(['fail approval:b run-b 1']);
});

test('an activity that ended meanwhile is not counted', async () => {
  const { client, calls } = fakeTemporal(
    {
      'session:a': {
        status: WORKFLOW_EXECUTION_STATUS_RUNNING,
        runId: 'run-a',
        lastTask: LIVE,
        activities: [
          { activityId: '1', state: PENDING_ACTIVITY_STATE_STARTED, lastWorkerIdentity: DEAD },
          { activityId: '2', state: PENDING_ACTIVITY_STATE_STARTED, lastWorkerIdentity: DEAD },
        ],
      },
    },
    { gone: new Set(['1']) },
  );
  const recovered = await recoverDeadWorkersWork({
    client,
    namespace: 'default',
    identities: new Set([DEAD]),
    workflowIds: ['session:a'],
    logger,
  });
  expect(recovered).toEqual({ workflows: 1, activities: 1, unstuck: 0 });
  expect(calls).toEqual(['fail session:a run-a 2']);
});
