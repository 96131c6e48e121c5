// Which events of a session belong to one turn, as the server decides for a send's stream: the turn's
// own events (by turnId), those of the messages it made (by messageId), and the questions it asked
// with their outcome (by approvalId). Used when a turn's stream resumes on the session's full event
// stream, which carries every turn's events. The filter keeps state: call it on each event in seq order.
import type { SessionEvent } from './contract.ts';

const TERMINAL = new Set<string>(['turn.completed', 'turn.failed', 'turn.aborted']);

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

/** Whether `event` ends the turn `turnId`. */
export function isTurnEnd(event: SessionEvent, turnId: string): boolean {
  return TERMINAL.has(event.type) && (event as { turnId?: string }).turnId === turnId;
}
