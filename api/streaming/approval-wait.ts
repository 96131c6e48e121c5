// `GET /approval/<id>?wait=<seconds>`: hold the request until the approval is settled or the wait
// ends. The approval's writes NOTIFY `<id>:0` on the events channel, so this process's LISTEN
// connection wakes the request at once; a slow re-read covers a NOTIFY that never came.
import type { Response } from 'express';
import type { EventHub } from './event-hub.ts';
import type { Db } from '../../store/db.ts';
import { getApproval, type Approval } from '../../store/approvals.ts';
import { onClientGone } from './client-gone.ts';

const FALLBACK_POLL_MS = 2_000;

export async function waitForSettled(
  deps: { db: Db; events: EventHub },
  res: Response,
  approval: Approval,
  seconds: number,
): Promise<Approval> {
  if (seconds <= 0 || approval.status !== 'unanswered') return approval;
  const deadline = Date.now() + seconds * 1000;
  let wake: () => void = () => undefined;
  const unsubscribe = deps.events.subscribe(approval.id, () => wake());
  let gone = false;
  const onClose = () => {
    gone = true;
    wake();
  };
  // The response closes early when the client goes away: stop holding it.
  const stopListening = onClientGone(res, onClose);
  try {
    let current = approval;
    while (current.status === 'unanswered' && !gone) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, FALLBACK_POLL_MS));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      current = (await getApproval(deps.db, approval.id)) ?? current;
    }
    return current;
  } finally {
    stopListening();
    unsubscribe();
  }
}
