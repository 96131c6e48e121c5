// Handing an answer the API stored (api/approvals/workflows.ts) to its approval workflow: a signal,
// which the engine takes with no worker running. The answer is taken once PostgreSQL has it; the
// workflow, and the turn waiting on it, go on once the signal arrives. One that did not (an API process
// gone between the two, Temporal down) is signalled again by the sweep below until the workflow says it
// took it (store/approvals.ts, answer_pending), or has ended.
import { signalStoredAnswer } from '../../clients/approval.ts';
import { answerHandedOver, pendingAnswers, type Approval } from '../../store/approvals.ts';
import type { ApiDeps } from '../context.ts';
import { callTemporal, isWorkflowGone } from '../temporal-call.ts';

/** Answers handed over per sweep: the rest wait for the next one. */
const SWEEP_BATCH = 200;

type HandOverDeps = Pick<ApiDeps, 'temporal' | 'config' | 'logger'>;

function signal(deps: HandOverDeps, approval: Approval): Promise<void> {
  return signalStoredAnswer(deps.temporal.client, approval.id, {
    status: 'answered',
    choice: approval.choice!,
    note: approval.note,
    answeredAt: approval.answeredAt!.toISOString(),
    via: approval.answeredVia!,
    // An approval a team answered: who decided it and the votes then, for its webhook event.
    ...(approval.decidedBy !== null ? { approver: approval.decidedBy } : {}),
    ...(approval.tally !== null ? { tally: approval.tally } : {}),
  });
}

/** Hands the stored answer over soon (api/hand-offs.ts): the answer is given without waiting for it. */
export function handOverAnswer(deps: HandOverDeps & Pick<ApiDeps, 'handOffs'>, approval: Approval): void {
  deps.handOffs.submit(`approval:${approval.id}`, () => signal(deps, approval), {
    log: { approvalId: approval.id },
    sweep: 'the answer sweep',
  });
}

/** Hands over the answers stored `olderThanMs` ago that their workflows have not taken (`userId`: only that user's); how many. */
export async function sweepPendingAnswers(deps: HandOverDeps & Pick<ApiDeps, 'db'>, olderThanMs: number, userId?: string): Promise<number> {
  const pending = await pendingAnswers(deps.db, olderThanMs, SWEEP_BATCH, userId);
  for (const approval of pending) {
    try {
      await callTemporal(deps, () => signal(deps, approval));
    } catch (error) {
      // Its workflow has ended: it took the answer through its expiry's write, which found it stored.
      if (!isWorkflowGone(error)) throw error;
      await answerHandedOver(deps.db, approval.id);
    }
  }
  return pending.length;
}
