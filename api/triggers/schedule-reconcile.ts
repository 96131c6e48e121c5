// After a deploy or a deletion, the agent's cron schedules are reconciled by its schedules workflow
// (`schedules:<agentId>`). The API signals it (Signal-with-Start) and answers: from then on Temporal
// guarantees the pass, even if this process or the worker restarts. Only when Temporal cannot be
// reached does the request fail (503); a pass always converges on the current revision, so
// deploying (or deleting) again finishes the job.
import type { Bundle } from '../../lib/bundle/index.ts';
import type { ApiDeps } from '../context.ts';
import { DependencyUnavailableError } from '../../lib/workflow-safe/errors.ts';
import { callTemporal } from '../temporal-call.ts';
import { requestReconcile } from '../../clients/schedules.ts';
import { hasSchedules } from '../../store/agent-schedules.ts';

/**
 * Asks for a reconcile when there may be anything to do: one of `bundles` (the new revision and the
 * one it replaces, or the one just deleted) has cron triggers, or schedules are known from before.
 * The replaced revision counts because its own reconcile may not have written its rows yet.
 */
export async function reconcileSchedules(
  deps: ApiDeps,
  agentId: string,
  bundles: ReadonlyArray<Bundle | undefined>,
  what: string,
): Promise<void> {
  const cron = bundles.some((bundle) => bundle?.triggers.some((trigger) => trigger.kind === 'cron'));
  if (!cron && !(await hasSchedules(deps.db, agentId))) return;
  const unavailable = `${what}, but its cron schedules may not have been updated (the workflow engine did not confirm in time); deploy again (or delete again) to bring them in line`;
  try {
    await callTemporal(deps, () => requestReconcile(deps.temporal.client, deps.config.taskQueue, agentId), { unavailable });
  } catch (error) {
    if (error instanceof DependencyUnavailableError) throw error;
    // The raw text may name Temporal's address: it goes to the log, the client reads what to do.
    deps.logger.warn({ err: error, agentId }, 'could not signal the schedules workflow');
    throw new DependencyUnavailableError(unavailable);
  }
}
