// A safety net for answers stored without their workflow taking them. Versions before the workflow
// wrote an answer only after Temporal stored its acceptance (workflows/approval.ts) could leave an
// approval answered in PostgreSQL while its workflow, and the turn waiting on it, waited forever; and
// an answer is listed as answered, so nobody answers it again. A pass lists the approval workflows still
// running and hands each one whose record shows an answer older than the grace time that stored answer,
// as its Update: the workflow's write finds it stored and changes nothing, and the workflow ends with it.
// (One whose expiry comes first takes the stored answer from the expiry's write instead.) Every call has
// a deadline: a pass must end, workers running or not, so the other sweeps of housekeeping go on.
import { approvalWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { answerApprovalWorkflow } from '../../clients/approval.ts';
import { answeredBefore } from '../../store/approvals.ts';
import { FAILURE, failureType } from '../../lib/workflow-safe/failures.ts';
import { isWorkflowGone } from '../temporal-call.ts';
import type { Client } from '@temporalio/client';
import type { Db } from '../../store/db.ts';
import type { Logger } from '../../lib/logger.ts';

/** An answer younger than this may still be on its way into its workflow: left alone. */
export const STRANDED_ANSWER_GRACE_MS = 60_000;

/** Running approval workflows are checked against PostgreSQL this many at a time. */
const BATCH = 500;

/** The longest a pass may take, listing included; and each answer handed over. */
const PASS_DEADLINE_MS = 5 * 60_000;
const HAND_OVER_DEADLINE_MS = 15_000;

/** The workflow took another answer, expired, or ended meanwhile: nothing left to hand over. */
function settledMeanwhile(error: unknown): boolean {
  const type = failureType(error);
  if (type === FAILURE.approvalAnswered || type === FAILURE.approvalExpired) return true;
  return isWorkflowGone(error);
}

const RUNNING_APPROVALS = `WorkflowType = 'approvalWorkflow' AND ExecutionStatus = 'Running'`;

const PREFIX = approvalWorkflowId('');

/** Hands stranded answers to their workflows; answers how many it handed over. */
export async function reconcileStrandedAnswers(
  deps: { db: Db; temporal: { client: Client }; logger: Logger; taskQueue: string },
  graceMs = STRANDED_ANSWER_GRACE_MS,
  /** Aborted when the process stops: a pass may take minutes, and the next process's passes do its work. */
  stop?: AbortSignal,
): Promise<number> {
  let handed = 0;
  let batch: string[] = [];
  const flush = async () => {
    const stranded = await answeredBefore(deps.db, batch, graceMs);
    batch = [];
    for (const approval of stranded) {
      if (stop?.aborted) return;
      try {
        await deps.temporal.client.withDeadline(Date.now() + HAND_OVER_DEADLINE_MS, () =>
          answerApprovalWorkflow(deps.temporal.client, approval.id, {
            choice: approval.choice!,
            note: approval.note,
            via: approval.answeredVia ?? 'api',
          }),
        );
        handed += 1;
        deps.logger.warn({ approvalId: approval.id }, 'an answer stored without its workflow taking it was handed to the workflow');
      } catch (error) {
        // Cut short by the stop: the next pass (any process's) hands it over.
        if (stop?.aborted) return;
        // Another API process's pass, say, or the expiry took it.
        if (settledMeanwhile(error)) continue;
        deps.logger.warn({ err: error, approvalId: approval.id }, 'could not hand a stored answer to its workflow');
      }
    }
  };
  const pass = () =>
    deps.temporal.client.withDeadline(Date.now() + PASS_DEADLINE_MS, async () => {
      // This deployment's approvals only (its TASK_QUEUE): another deployment sharing the namespace (or a
      // test sharing the server) has its own, and waiting on workflows its workers poll is its business.
      const query = `${RUNNING_APPROVALS} AND TaskQueue = '${deps.taskQueue.replace(/'/g, "\\'")}'`;
      for await (const execution of deps.temporal.client.workflow.list({ query })) {
        if (stop?.aborted) return;
        if (execution.workflowId.startsWith(PREFIX)) batch.push(execution.workflowId.slice(PREFIX.length));
        if (batch.length >= BATCH) await flush();
      }
      if (batch.length > 0) await flush();
    });
  await (stop ? deps.temporal.client.withAbortSignal(stop, pass) : pass());
  return handed;
}
