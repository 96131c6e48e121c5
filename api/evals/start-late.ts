// Starting an eval run's workflow after its rows are recorded. The route starts it at once; when the
// workflow engine does not answer (or the API dies in between), the run stays recorded and unmarked,
// and the housekeeping pass starts it, so a run that was answered 202 always runs.
import type { ApiDeps } from '../context.ts';
import { startEvalRun, type EvalRunInput } from '../../clients/eval-run.ts';
import { markRunStarted, unstartedRuns } from '../../store/evals.ts';
import { callTemporal } from '../temporal-call.ts';

/** A run recorded this long ago and not marked started was never started. */
export const UNSTARTED_RUN_MS = 2 * 60_000;
const STARTED_PER_PASS = 50;

type StartDeps = Pick<ApiDeps, 'db' | 'config' | 'logger'> & { temporal: Pick<ApiDeps['temporal'], 'client'> };

/** Starts the run's workflow and marks it; false (logged) when that must wait for the housekeeping pass. */
export async function startRunNow(deps: StartDeps, input: EvalRunInput): Promise<boolean> {
  try {
    await callTemporal(deps, () => startEvalRun(deps.temporal.client, deps.config.taskQueue, input));
    await markRunStarted(deps.db, input.runId);
    return true;
  } catch (error) {
    deps.logger.warn({ err: error, evalId: input.runId }, 'eval run not started yet; the housekeeping pass starts it');
    return false;
  }
}

/** Runs recorded long enough ago and never started: started now (a no-op for one found running). */
export async function startUnstartedRuns(deps: StartDeps): Promise<number> {
  let started = 0;
  for (const run of await unstartedRuns(deps.db, UNSTARTED_RUN_MS, STARTED_PER_PASS)) {
    // The engine did not take one: the next pass tries again, rather than this one waiting out each deadline.
    if (!(await startRunNow(deps, run))) break;
    started += 1;
  }
  return started;
}
