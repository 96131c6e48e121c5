// The floor of the turn benchmark: the least a Temporal round trip can be on this server, one
// workflow running one activity that does nothing. Bundled only by bench/floor.ts for its own
// worker and task queue, never by workflows/index.ts, so the service's workers do not carry it.
import { proxyActivities } from '@temporalio/workflow';

export interface FloorActivities {
  noop(): Promise<void>;
}

const { noop } = proxyActivities<FloorActivities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } });

export async function floorWorkflow(): Promise<void> {
  await noop();
}
