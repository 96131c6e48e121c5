// The text a reader shows for a turn as its events arrive. A model step that is retried (its worker
// died mid-stream) announces `step.retry` for its message and streams that message again from the
// start, so the message's text so far is dropped there, as it is at a new turn.started.
import type { MessageView, SessionEvent } from './contract.ts';

export class TextAccumulator {
  private readonly texts = new Map<string, string>();
  private readonly completed = new Map<string, MessageView>();
  private order: string[] = [];

  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'turn.started':
        this.texts.clear();
        this.completed.clear();
        this.order = [];
        break;
      case 'step.retry':
        this.texts.set(event.messageId, '');
        this.completed.delete(event.messageId);
        break;
      case 'message.part.delta':
        if (!this.texts.has(event.messageId)) this.order.push(event.messageId);
        this.texts.set(event.messageId, (this.texts.get(event.messageId) ?? '') + event.delta);
        break;
      case 'message.completed':
        if (event.message.role !== 'assistant') break;
        if (!this.texts.has(event.message.id)) this.order.push(event.message.id);
        this.completed.set(event.message.id, event.message);
        // The stored message is the truth: it replaces what the deltas built.
        this.texts.set(event.message.id, textOfParts(event.message));
        break;
      case 'messages.reverted':
        for (const id of event.messageIds) {
          this.texts.delete(id);
          this.completed.delete(id);
        }
        this.order = this.order.filter((id) => this.texts.has(id));
        break;
      default:
        break;
    }
  }

  /** The text of one message so far. */
  textOf(messageId: string): string {
    return this.texts.get(messageId) ?? '';
  }

  /** The text of the newest assistant message so far (what a chat shows while the turn streams). */
  get text(): string {
    const last = this.order.at(-1);
    return last === undefined ? '' : this.textOf(last);
  }

  /** The newest completed assistant message. */
  get lastCompleted(): MessageView | undefined {
    for (let index = this.order.length - 1; index >= 0; index--) {
      const message = this.completed.get(this.order[index]!);
      if (message) return message;
    }
    return undefined;
  }
}

export function textOfParts(message: MessageView): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
