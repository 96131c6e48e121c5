// Task queue names, named once. TASK_QUEUE overrides the default so that several deployments (or
// test runs) can share one Temporal namespace without taking each other's tasks.
export const DEFAULT_TASK_QUEUE = 'agent-service';

export function mainTaskQueue(env: Record<string, string | undefined> = process.env): string {
  return env.TASK_QUEUE?.trim() || DEFAULT_TASK_QUEUE;
}
