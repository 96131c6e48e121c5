// What the worker bundles: every workflow of the service. Workflow code is deterministic and imports
// nothing that does I/O (ESLint enforces it for this folder).
export { systemCheckWorkflow } from './system-check.ts';
export { sessionWorkflow } from './session.ts';
export { turnWorkflow } from './turn.ts';
export { deliveryWorkflow } from './delivery.ts';
export { approvalWorkflow } from './approval.ts';
export { triggerRunWorkflow } from './trigger.ts';
export { graphRunWorkflow } from './graph.ts';
export { schedulesWorkflow } from './schedules.ts';
export { approvalNoticeWorkflow } from './approval-notice.ts';
export { evalRunWorkflow, evalCaseWorkflow } from './eval-run.ts';
