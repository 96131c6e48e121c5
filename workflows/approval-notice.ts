// Notes in the chat threads of an approval's question (Slack, Telegram): the answer once recorded
// ("Answered: yes, via email"), the expiry, or why a reply was not taken. A courtesy: each thread is
// tried a few times and a failure is logged, never felt by the approval or the turn that waits on it.
import { log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ApprovalOutcome } from '../lib/workflow-safe/approvals.ts';
import { FAILURE } from '../lib/workflow-safe/failures.ts';

export interface ApprovalNoticeInput {
  approvalId: string;
  text: string;
  /** Only these threads; all threaded dispatches of the approval without it. */
  positions?: number[];
  /** Threads of messages sent to approvers (a reply there not taken): seat and provider. */
  seats?: Array<{ position: number; provider: 'slack' | 'telegram'; externalRef: string }>;
  /** The outcome: in the threads of every message sent to an approver in a chat as well (found when noted). */
  approvers?: boolean;
}

export function outcomeNotice(outcome: ApprovalOutcome, via: string | null): string {
  if (outcome.status === 'expired') return 'This question expired without an answer.';
  const note = outcome.note ? ` Note: ${outcome.note}` : '';
  return `Answered: "${outcome.choice}"${via ? ` (via ${via})` : ''}.${note}`;
}

export async function approvalNoticeWorkflow(input: ApprovalNoticeInput): Promise<{ posted: number }> {
  const acts = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '2 seconds', maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.channelPermanent] },
  });
  const positions = input.positions ?? (await acts.threadedDispatches({ approvalId: input.approvalId }));
  let posted = 0;
  for (const position of positions) {
    try {
      await acts.postApprovalNotice({ approvalId: input.approvalId, position, text: input.text });
      posted++;
    } catch (error) {
      log.warn('could not post an approval notice', { approvalId: input.approvalId, position, error: String(error) });
    }
  }
  const seats = [...(input.seats ?? []), ...(input.approvers ? await acts.approverMessages({ approvalId: input.approvalId }) : [])];
  for (const seat of seats) {
    try {
      await acts.postApproverNotice({ approvalId: input.approvalId, ...seat, text: input.text });
      posted++;
    } catch (error) {
      log.warn('could not post a note to an approver', { approvalId: input.approvalId, ...seat, error: String(error) });
    }
  }
  return { posted };
}
