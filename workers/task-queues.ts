// Task queue names, named once. TASK_QUEUE (lib/config.ts) overrides the default so that several
// deployments, or test runs, can share one Temporal namespace without taking each other's tasks.
export const DEFAULT_TASK_QUEUE = 'agent-service';
