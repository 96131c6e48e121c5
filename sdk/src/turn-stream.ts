// What `sessions.send` returns: the events of one turn, typed, ending with its terminal event, and
// resuming by itself when the connection breaks (see event-stream.ts). Iterate it for the events, or
// await `text()`, `finalMessage()` or `json()`, which read it to the end first.
import type { MessageView, RelayedEvent, SessionEvent } from './contract.ts';
import { AgentServiceError } from './errors.ts';
import { resumingEvents } from './event-stream.ts';
import { TextAccumulator, textOfParts } from './text-accumulator.ts';
import { isTurnEnd, turnEventFilter } from '../../contract/turn-events.ts';

export interface TurnIds {
  /** The user message this turn answers. */
  messageId: string;
  /** The turn's id: the message id for a send, an id of its own for a regenerate. */
  turnId: string;
  /** The session the turn runs in (for a custom command, maybe one it opened). */
  sessionId: string;
}

export interface TurnStreamSource {
  /** The request that opens the turn's stream (the send); its answer carries x-message-id, x-turn-id and x-session-id. */
  opened: Promise<Response>;
  /** The session, when the caller knows it before the answer (a send). */
  sessionId?: string;
  /** Opens the session's event stream after `lastSeq`. */
  reconnect: (sessionId: string, lastSeq: number, signal: AbortSignal | undefined) => Promise<Response>;
  signal?: AbortSignal;
  maxReconnects?: number;
  onReconnect?: (lastSeq: number) => void;
  /** The children's events relayed on the stream (a send with `onChildEvent`). */
  onChildEvent?: (relayed: RelayedEvent) => void;
}

export type TurnEnd = Extract<SessionEvent, { type: 'turn.completed' | 'turn.failed' | 'turn.aborted' }>;

export class TurnStream implements AsyncIterable<SessionEvent> {
  /** The turn's ids once its request is answered. */
  readonly ready: Promise<TurnIds>;
  private readonly events: AsyncGenerator<SessionEvent>;
  private readonly accumulator = new TextAccumulator();
  private iterating = false;
  private ended: TurnEnd | undefined;
  private consumed: Promise<void> | undefined;

  constructor(source: TurnStreamSource) {
    this.ready = source.opened.then((response) => {
      const messageId = response.headers.get('x-message-id');
      const sessionId = response.headers.get('x-session-id') ?? source.sessionId;
      if (!messageId || !sessionId) throw new AgentServiceError('The send answered without x-message-id or x-session-id');
      return { messageId, turnId: response.headers.get('x-turn-id') ?? messageId, sessionId };
    });
    // Nobody may read the stream (a fire-and-forget send): its failure must not be unhandled.
    this.ready.catch(() => {});
    this.events = this.generate(source);
  }

  private async *generate(source: TurnStreamSource): AsyncGenerator<SessionEvent> {
    const { turnId, messageId, sessionId } = await this.ready;
    // A reconnection reads the session's stream, which relays every call still open, other turns' too:
    // only this turn's children (and theirs) are passed on.
    const ours = new Set<string>();
    const onChildEvent = source.onChildEvent;
    const relayed = onChildEvent
      ? (frame: RelayedEvent) => {
          if (!ours.has(frame.parentSessionId) && frame.parentSessionId !== sessionId) return;
          if (frame.parentSessionId === sessionId && !ours.has(frame.event.sessionId)) return;
          if (frame.event.type === 'subagent.started') ours.add(frame.event.childSessionId);
          onChildEvent(frame);
        }
      : undefined;
    const events = resumingEvents({
      first: source.opened,
      reconnect: (lastSeq, signal) => source.reconnect(sessionId, lastSeq, signal),
      filter: turnEventFilter(turnId, messageId),
      isEnd: (event) => isTurnEnd(event, turnId),
      signal: source.signal,
      maxReconnects: source.maxReconnects,
      onReconnect: source.onReconnect,
      ...(relayed ? { onChildEvent: relayed } : {}),
    });
    for await (const event of events) {
      if (event.type === 'subagent.started') ours.add(event.childSessionId);
      this.accumulator.apply(event);
      if (isTurnEnd(event, turnId)) this.ended = event;
      yield event;
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
    if (this.iterating) throw new AgentServiceError('A TurnStream can be iterated once');
    this.iterating = true;
    return this.events;
  }

  /** The text of the newest assistant message so far, with retried steps' text dropped. */
  get currentText(): string {
    return this.accumulator.text;
  }

  /** Reads the rest of the stream (if nobody iterates it) and resolves once the turn ended. */
  async done(): Promise<TurnEnd> {
    this.consumed ??= (async () => {
      if (!this.iterating) for await (const _event of this) void _event;
    })();
    await this.consumed;
    if (!this.ended) throw new AgentServiceError('The stream ended before its turn did');
    return this.ended;
  }

  /** The turn's final assistant message (after the turn ended). */
  async finalMessage(): Promise<MessageView | undefined> {
    await this.done();
    return this.accumulator.lastCompleted;
  }

  /** The text of the turn's final assistant message (after the turn ended). */
  async text(): Promise<string> {
    await this.done();
    const message = this.accumulator.lastCompleted;
    return message ? textOfParts(message) : this.accumulator.text;
  }

  /** The structured reply of an agent with `jsonReply` (its `json` part), or undefined. */
  async json<T = unknown>(): Promise<T | undefined> {
    const message = await this.finalMessage();
    const part = message?.parts.find((candidate) => candidate.type === 'json');
    return part?.type === 'json' ? (part.json as T) : undefined;
  }
}
