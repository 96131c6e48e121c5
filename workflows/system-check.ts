// A tiny end-to-end probe of the engine: a workflow that runs one activity on a worker and returns
// what it saw. Used by the smoke test and by operators (`temporal workflow start --type
// systemCheckWorkflow`) to prove the whole path works.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const { checkDatabase } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export interface SystemCheckResult {
  taskQueue: string;
  postgresVersion: string;
  migrationsApplied: number;
}

export async function systemCheckWorkflow(): Promise<SystemCheckResult> {
  const database = await checkDatabase();
  return {
    taskQueue: workflowInfo().taskQueue,
    postgresVersion: database.serverVersion,
    migrationsApplied: database.migrationsApplied,
  };
}
