// How an approval's end reaches its session, in the transaction that decides it: the session waits
// while a turn (or a workflow run) waits for the answer and runs again once it comes, and the session's
// event log gets `approval.answered`. The first answer is decided here, by PostgreSQL, wherever it came
// from: the API taking it with no worker running (api/approvals/workflows.ts), or the approval workflow.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { appendEvents } from './events.ts';
import { markAnswered, type Approval } from './approvals.ts';
import { moveSessionStatus, type SessionStatus } from './sessions.ts';
import type { AnswerVia } from '../contract/approvals.ts';

/** Whether the approval holds a turn or a workflow run of its session while it waits. */
export function waitsInTurn(approval: Pick<Approval, 'source' | 'sessionId'>): approval is Approval & { sessionId: string } {
  return approval.sessionId !== null && (approval.source === 'tool' || approval.source === 'workflow');
}

/**
 * A session waits while its turn (or its workflow run) waits for an answer. When the answer (or the
 * expiry) comes, a turn's session runs again; a run's session is idle until its next node starts.
 */
export async function setWaiting(client: DbClient, approval: Approval & { sessionId: string }, waiting: boolean): Promise<void> {
  const [to, from]: [SessionStatus, SessionStatus[]] =
    approval.source === 'tool'
      ? waiting
        ? ['waiting', ['running']]
        : ['running', ['waiting']]
      : waiting
        ? ['waiting', ['idle', 'running']]
        : ['idle', ['waiting']];
  // A tool's approval moves its session only while its own turn is the session's latest: the answer
  // to an approval abandoned by an aborted turn must not change the status of the turn after it.
  await moveSessionStatus(client, approval.sessionId, {
    to,
    from,
    ...(approval.source === 'tool' && approval.turnId ? { whileLatestTurn: approval.turnId } : {}),
  });
}

/**
 * Records the first answer of an approval with what it changes in its session; `changed`: this call
 * stored it (a later one, or one after the expiry, finds the approval as it is and changes nothing).
 */
export async function storeApprovalAnswer(
  db: Db,
  input: { approvalId: string; choice: string; note: string | null; via: AnswerVia },
  /** The API takes it (store/approvals.ts, markAnswered). */
  byApi = false,
): Promise<{ approval: Approval; changed: boolean }> {
  return inTransaction(db, async (client) => {
    const { approval, changed } = await markAnswered(client, input, byApi);
    if (changed) await reachSession(client, approval, input.via);
    return { approval, changed };
  });
}

/** What an answer just stored changes in its session (in the transaction that stored it): it runs again, and its event. */
export async function reachSession(client: DbClient, approval: Approval, via: AnswerVia): Promise<void> {
  if (approval.sessionId === null) return;
  if (waitsInTurn(approval)) await setWaiting(client, approval, false);
  await appendEvents(client, approval.sessionId, [
    {
      type: 'approval.answered',
      data: {
        approvalId: approval.id,
        choice: approval.choice!,
        note: approval.note,
        via: approval.answeredVia ?? via,
        answeredAt: approval.answeredAt!.toISOString(),
        ...(approval.decidedBy !== null ? { approver: approval.decidedBy } : {}),
        ...(approval.tally !== null ? { tally: approval.tally } : {}),
      },
    },
  ]);
}
