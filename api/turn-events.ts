// Which events belong to one turn: the turn's own events (by turnId) and those of the messages it
// made (by messageId). A send's SSE answer shows only its turn, even while an earlier queued turn
// is still streaming into the same session. A regenerated turn has an id of its own and writes its
// messages into its user message's turn (`userMessageId`).
import { TERMINAL_TURN_EVENTS, type SessionEvent } from '../lib/events.ts';

export function turnEventFilter(turnId: string, userMessageId = turnId): (event: SessionEvent) => boolean {
  const messages = new Set<string>([turnId]);
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
      default:
        return false;
    }
  };
}

export function isTurnEnd(turnId: string): (event: SessionEvent) => boolean {
  return (event) => TERMINAL_TURN_EVENTS.includes(event.type) && (event as { turnId?: string }).turnId === turnId;
}
