// How the outside talks to an agent's schedules workflow (workflows/schedules.ts): its signal and its type,
// apart from the body, so the door to it (clients/schedules.ts) imports nothing the body imports.
import { defineSignal } from '@temporalio/workflow';

export const reconcileSignal = defineSignal('reconcile');

/** The schedules workflow's type, for starting it by name. */
export type SchedulesWorkflow = (input: { agentId: string }) => Promise<{ passes: number }>;
