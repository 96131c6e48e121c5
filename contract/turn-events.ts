// Which events of a session belong to one turn, the one rule shared by the server (a send's SSE
// answer, a waiting send) and every client (a turn stream resuming on the session's full event
// stream): the turn's own events (by turnId), those of the messages it made (by messageId), and the
// questions it asked its user with their outcome (by approvalId: only `approval.requested` names the
// turn). So a turn's stream never shows an earlier queued turn still streaming into the same session,
// nor an approval asked by another turn, a workflow graph or the API. A regenerated turn has an id of
// its own and writes its messages into its user message's turn (`userMessageId`).
import { TERMINAL_TURN_EVENTS, type SessionEvent } from './events.ts';

/** A filter for one turn's events; it keeps state, so call it once per event, in seq order. */
export function turnEventFilter(turnId: string, userMessageId = turnId): (event: SessionEvent) => boolean {
  const messages = new Set<string>([turnId]);
  const approvals = new Set<string>();
  return (event) => {
    switch (event.type) {
      case 'message.created':
      case 'message.completed':
        if (event.message.turnId !== userMessageId) return false;
        messages.add(event.message.id);
        return true;
      case 'turn.started':
      case 'turn.queued':
      case 'turn.completed':
      case 'turn.failed':
      case 'turn.aborted':
        return event.turnId === turnId;
      // A compaction a turn's step needed (one asked for through the API names no turn).
      case 'session.compacted':
        return event.turnId === turnId;
      // Of the turn's messages, a structured reply that was not valid (reply.invalid) and the calls of
      // its steps to other agents (subagent.*, whose `messageId` is the step's) included.
      case 'message.part.delta':
      case 'step.retry':
      case 'tool.call':
      case 'tool.result':
      case 'reply.invalid':
      case 'subagent.started':
      case 'subagent.completed':
      case 'subagent.failed':
      case 'subagent.waiting':
        return messages.has(event.messageId);
      case 'approval.requested':
        if (event.turnId !== turnId) return false;
        approvals.add(event.approvalId);
        return true;
      case 'approval.answered':
      case 'approval.voted':
      case 'approval.escalated':
      case 'approval.delegated':
      case 'approval.expired':
        return approvals.has(event.approvalId);
      // The session's, not a turn's: a regenerate's revert answers the request that made it (its seq
      // is where the regenerated turn's events start), and the rest are written outside any turn.
      case 'messages.reverted':
      case 'session.created':
      case 'trigger.fired':
      case 'workflow.started':
      case 'workflow.node':
      case 'workflow.completed':
      case 'workflow.failed':
        return false;
      default: {
        // A new event type must be given its place here: the compiler refuses to build until it is.
        const unplaced: never = event;
        return unplaced;
      }
    }
  };
}

export type TurnEndEvent = Extract<SessionEvent, { type: 'turn.completed' | 'turn.failed' | 'turn.aborted' }>;

/** Whether `event` ends the turn `turnId` (its turn.completed, turn.failed or turn.aborted). */
export function isTurnEnd(event: SessionEvent, turnId: string): event is TurnEndEvent {
  return TERMINAL_TURN_EVENTS.includes(event.type) && (event as { turnId?: string }).turnId === turnId;
}

/** Whether `event` is a question the turn `turnId` asked its user (what a waiting send answers with). */
export function isTurnQuestion(event: SessionEvent, turnId: string): event is Extract<SessionEvent, { type: 'approval.requested' }> {
  return event.type === 'approval.requested' && event.turnId === turnId;
}
