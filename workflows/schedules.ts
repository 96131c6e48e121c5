// One per agent (`schedules:<agentId>`): reconciles its cron triggers with Temporal Schedules. A
// deploy or a deletion sends `reconcile` with Signal-with-Start right after its change commits and
// answers at once; Temporal then guarantees a pass runs (retried until it succeeds, whenever a
// worker is up), and passes never interleave. A signal during a pass asks for one more pass, which
// reads the newest revision, so the last deploy always wins.
import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { reconcileSignal } from './schedules-messages.ts';

export { reconcileSignal };

export async function schedulesWorkflow(input: { agentId: string }): Promise<{ passes: number }> {
  const { reconcileSchedules } = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  let pending = true;
  setHandler(reconcileSignal, () => {
    pending = true;
  });
  let passes = 0;
  while (pending) {
    pending = false;
    await reconcileSchedules({ agentId: input.agentId });
    passes++;
  }
  return { passes };
}
