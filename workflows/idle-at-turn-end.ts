// Whether a session was idle when a turn ended: the rule behind `session.completed`. Pure, so the
// session workflow and its unit test share it.

/** A turn waiting to run, with the seq of the event that queued it when it has one. */
export interface QueuedAt {
  /**
   * The seq of its user message's `message.created` (or of the `messages.reverted` that queued a
   * regenerated turn). Absent for a turn queued before seqs were kept, and for a steering message
   * the ended turn did not read: both were waiting while the turn ran.
   */
  seq?: number;
}

/**
 * Idle means nothing was waiting when the turn wrote its end (`endSeq`, its terminal event's seq).
 * A send recorded after that end does not count, though it may reach the queue before the session
 * workflow sees the turn's child workflow close: what a reader of the event log saw decides, not how
 * quickly the worker got there (a busy worker makes that gap seconds long).
 */
export function idleAtTurnEnd(queued: readonly QueuedAt[], endSeq: number): boolean {
  return queued.every((turn) => turn.seq !== undefined && turn.seq > endSeq);
}
