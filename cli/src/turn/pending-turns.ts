// Which turns of a session have not ended, read from its events: a user message starts a turn (its
// turnId: its own id, or the running turn's when it steers that one) that may sit queued, with the session still `idle`, before its turn.started; a
// regenerate's turn has an id of its own from turn.started. `events --follow` returns only once
// none is left and the session says it is idle.
import type { SessionEvent } from '@agent-service/sdk';

const TURN_ENDS = new Set(['turn.completed', 'turn.failed', 'turn.aborted']);

export class PendingTurns {
  private readonly pending = new Set<string>();

  apply(event: SessionEvent): void {
    if (event.type === 'message.created') {
      // A fork's copies were answered in the session they come from.
      if (event.message.role === 'user' && !event.message.copiedFrom) this.pending.add(event.message.turnId ?? event.message.id);
    } else if (event.type === 'turn.started') {
      this.pending.add(event.turnId);
    } else if (event.type === 'messages.reverted') {
      for (const id of event.messageIds) this.pending.delete(id);
    } else if (event.type === 'turn.completed' || event.type === 'turn.failed' || event.type === 'turn.aborted') {
      this.pending.delete(event.turnId);
    }
  }

  /** Whether `event` ended a turn. */
  static ends(event: SessionEvent): boolean {
    return TURN_ENDS.has(event.type);
  }

  get empty(): boolean {
    return this.pending.size === 0;
  }
}
