// A worker for bench/floor-workflows.ts on a task queue of its own, on the same Temporal server (and
// in the same process) as the service's worker, and a way to run one floor workflow to its end.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Client } from '@temporalio/client';
import { type NativeConnection, Worker } from '@temporalio/worker';
import type { FloorActivities, floorWorkflow } from './floor-workflows.ts';
import { workflowBundle } from './temporal-runtime.ts';

const require = createRequire(import.meta.url);
const FLOOR_WORKFLOWS_PATH = require.resolve('./floor-workflows.ts');

export interface Floor {
  /** Starts one floor workflow and resolves when its result is in. */
  run(): Promise<void>;
  stop(): Promise<void>;
}

export async function startFloor(options: { connection: NativeConnection; client: Client; namespace: string }): Promise<Floor> {
  const taskQueue = `bench-floor-${randomUUID()}`;
  const activities: FloorActivities = { noop: async () => undefined };
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue,
    activities,
    workflowBundle: await workflowBundle(FLOOR_WORKFLOWS_PATH),
  });
  const running = worker.run();
  // Reported at stop(); until then a failed worker shows as floor runs that never finish.
  running.catch(() => undefined);
  return {
    async run() {
      await options.client.workflow.execute<typeof floorWorkflow>('floorWorkflow', {
        taskQueue,
        workflowId: `bench-floor-${randomUUID()}`,
        workflowExecutionTimeout: '3 minutes',
      });
    },
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}
