// A safety net for answers stored without their workflow taking them. Versions before the workflow
// wrote an answer only after Temporal stored its acceptance (workflows/approval.ts) could leave an
// approval answered in PostgreSQL while its workflow, and the turn waiting on it, waited forever; and
// an answer is listed as answered, so nobody answers it again. A pass lists the approval workflows still
// running and hands each one whose record shows an answer older than the grace time that stored answer,
// as its Update: the workflow's write finds it stored and changes nothing, and the workflow ends with it.
import { approvalWorkflowId } from '../../lib/workflow-ids.ts';
import { answerApprovalWorkflow } from '../../clients/approval.ts';
import { answeredBefore } from '../../store/approvals.ts';
import { FAILURE, failureType } from '../../lib/failures.ts';
import type { Client } from '@temporalio/client';
import type { Db } from '../../store/db.ts';
import type { Logger } from '../../lib/logger.ts';

/** An answer younger than this may still be on its way into its workflow: left alone. */
export const STRANDED_ANSWER_GRACE_MS = 60_000;

/** Running approval workflows are checked against PostgreSQL this many at a time. */
const BATCH = 500;

const RUNNING_APPROVALS = `WorkflowType = 'approvalWorkflow' AND ExecutionStatus = 'Running'`;

const PREFIX = approvalWorkflowId('');

/** Hands stranded answers to their workflows; answers how many it handed over. */
export async function reconcileStrandedAnswers(
  deps: { db: Db; temporal: { client: Client }; logger: Logger },
  graceMs = STRANDED_ANSWER_GRACE_MS,
): Promise<number> {
  let handed = 0;
  let batch: string[] = [];
  const flush = async () => {
    const stranded = await answeredBefore(deps.db, batch, graceMs);
    batch = [];
    for (const approval of stranded) {
      try {
        await answerApprovalWorkflow(deps.temporal.client, approval.id, {
          choice: approval.choice!,
          note: approval.note,
          via: approval.answeredVia ?? 'api',
        });
        handed += 1;
        deps.logger.warn({ approvalId: approval.id }, 'an answer stored without its workflow taking it was handed to the workflow');
      } catch (error) {
        // Taken meanwhile (another API process's pass, say): nothing left to do.
        if (failureType(error) === FAILURE.approvalAnswered) continue;
        deps.logger.warn({ err: error, approvalId: approval.id }, 'could not hand a stored answer to its workflow');
      }
    }
  };
  for await (const execution of deps.temporal.client.workflow.list({ query: RUNNING_APPROVALS })) {
    if (execution.workflowId.startsWith(PREFIX)) batch.push(execution.workflowId.slice(PREFIX.length));
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  return handed;
}
