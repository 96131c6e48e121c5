// Which events belong to one turn: the turn's own events (by turnId), those of the messages it
// made (by messageId), and the questions it asked its user with their outcome (by approvalId: only
// `approval.requested` names the turn). A send's SSE answer shows only its turn, even while an
// earlier queued turn is still streaming into the same session, and never an approval asked by
// another turn, a workflow graph or the API. A regenerated turn has an id of its own and writes its
// messages into its user message's turn (`userMessageId`).
import { TERMINAL_TURN_EVENTS, type SessionEvent } from '../../contract/events.ts';

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
      case 'turn.completed':
      case 'turn.failed':
      case 'turn.aborted':
        return event.turnId === turnId;
      case 'message.part.delta':
      case 'step.retry':
      case 'tool.call':
      case 'tool.result':
        return messages.has(event.messageId);
      case 'approval.requested':
        if (event.turnId !== turnId) return false;
        approvals.add(event.approvalId);
        return true;
      case 'approval.answered':
      case 'approval.expired':
        return approvals.has(event.approvalId);
      default:
        return false;
    }
  };
}

export function isTurnEnd(turnId: string): (event: SessionEvent) => boolean {
  return (event) => TERMINAL_TURN_EVENTS.includes(event.type) && (event as { turnId?: string }).turnId === turnId;
}

/** The question a turn asked its user that its waiting request answers with (see turn-answer.ts). */
export function isTurnQuestion(turnId: string): (event: SessionEvent) => event is Extract<SessionEvent, { type: 'approval.requested' }> {
  return (event): event is Extract<SessionEvent, { type: 'approval.requested' }> =>
    event.type === 'approval.requested' && event.turnId === turnId;
}
