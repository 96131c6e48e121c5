// Builds a worker for a task queue. Shared by the worker process and the tests, which pass a
// pre-built workflow bundle so webpack runs once per test run instead of once per worker.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { heartbeatEvery } from '../activities/turn/step-deps.ts';
import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import { temporalWorkerDataConverter } from '../lib/temporal-data-converter.ts';
import { converterPaths, workflowCode } from './workflow-code.ts';

export { WORKFLOWS_PATH } from './workflow-code.ts';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The tracing plugin (workers/observability.ts) when tracing is on. */
  plugins?: WorkerOptions['plugins'];
  /** Activity interceptors: the worker process's registry of running activities (workers/worker-life.ts). */
  activityInterceptors?: NonNullable<WorkerOptions['interceptors']>['activity'];
}

export async function createWorker(setup: WorkerSetup): Promise<Worker> {
  const heartbeatThrottle = heartbeatEvery(setup.deps.config.turns.stepHeartbeatTimeoutMs);
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: createActivities(setup.deps),
    // Payloads and failure messages encrypted with the master keys, summaries readable; the activities'
    // own Temporal client inherits it.
    dataConverter: temporalWorkerDataConverter(setup.deps.config, setup.deps.masterKeys, converterPaths()),
    ...(setup.workflowBundle ? { workflowBundle: setup.workflowBundle } : workflowCode(setup.plugins)),
    ...(setup.plugins?.length ? { plugins: setup.plugins } : {}),
    ...(setup.activityInterceptors?.length ? { interceptors: { activity: setup.activityInterceptors } } : {}),
    // Temporal's default (pid@host) is not one process's: a container restarted on the same host gets the
    // same pid, and the worker that finds the dead one ends what its identity started (dead-worker-recovery.ts).
    identity: `${process.pid}@${os.hostname()}/${randomUUID().slice(0, 8)}`,
    shutdownGraceTime: '10 seconds',
    // A workflow's next task goes to the worker that has it cached (its sticky queue); if that worker
    // died, the task waits this long before any worker takes it from the shared queue (Temporal's
    // default is 10 s, which a turn in flight then stalls for). A busy worker that takes longer than
    // this to pick up a sticky task replays the workflow instead: CPU, not a lost task.
    stickyQueueScheduleToStartTimeout: '3 seconds',
    // Heartbeats tell Temporal a model step lives, and bring it an abort that no notice brought sooner
    // (activities/turn/abort-notices.ts); each is a write to Temporal's persistence, so not every half
    // second per stream. The same spacing as the step's calls (model-step.ts heartbeatEvery).
    maxHeartbeatThrottleInterval: heartbeatThrottle,
    defaultHeartbeatThrottleInterval: heartbeatThrottle,
    // Temporal's default is 100. A model step holds its slot for its whole stream, mostly waiting on
    // the provider, so the default capped a worker at 100 replies streaming at once; beyond the cap
    // a turn waits to start rather than sharing the worker's CPU with the streams already running.
    maxConcurrentActivityTaskExecutions: setup.deps.config.limits.workerConcurrentActivities,
    // An activity handed over with its workflow task's answer is started before this worker runs it: a
    // worker that dies in between leaves it unrecorded, found later by asking Temporal (worker-life.ts).
    ...(setup.deps.config.limits.workerEagerActivities ? {} : { maxEagerActivityReservationsPerWorkflowTask: 0 }),
  });
}
