// Custom tools the client runs: the turn waits (durably, on the server) for each call's result, so
// whoever holds the handlers answers `tool.call` events with `executor: 'client'` as they come. The
// server applies a repeated answer once and refuses a late one (409), so answering twice is harmless.
import type { MessageView, SessionEvent, SessionWithMessages, ToolResultBody } from './contract.ts';
import { ConflictError } from './errors.ts';
import { sessionEvents } from './resources/events.ts';
import { path, type Transport } from './transport.ts';
import type { TurnEnd, TurnStream } from './turn-stream.ts';

/** Handlers by tool name: each gets the call's input (already valid against the tool's parameters). */
export type ToolHandlers = Record<string, (input: unknown, call: ToolCall) => unknown>;

export interface ToolCall {
  sessionId: string;
  messageId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  /**
   * The same for every delivery of this call, and no other call has it: a handler with a side effect
   * (a payment, an email) does it once per key. Absent only for calls recorded before servers sent it.
   */
  idempotencyKey?: string;
}

export interface ToolRunOptions {
  handlers: ToolHandlers;
  signal?: AbortSignal;
  /** Every event of the turn, as it comes. */
  onEvent?: (event: SessionEvent) => void;
  /**
   * A call of a tool with no handler here: `error` (default) answers it with an error the model
   * reads; `ignore` leaves it for another client.
   */
  unknownTool?: 'error' | 'ignore';
}

export interface ToolRunResult {
  /** The turn's terminal event (undefined when resumeTools found nothing to do). */
  end: TurnEnd | undefined;
  /** The final assistant message's text. */
  text: string;
  finalMessage: MessageView | undefined;
  /** The calls this run answered, in the order they came. */
  answered: ToolCall[];
}

const TERMINAL = new Set(['turn.completed', 'turn.failed', 'turn.aborted']);

class ToolAnswerer {
  readonly answered: ToolCall[] = [];
  private readonly running: Promise<void>[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly transport: Transport,
    private readonly options: ToolRunOptions,
  ) {}

  /** Starts answering a call (once per toolCallId); the event stream goes on meanwhile. */
  take(call: ToolCall): void {
    if (this.seen.has(call.toolCallId)) return;
    this.seen.add(call.toolCallId);
    const handler = this.options.handlers[call.toolName];
    if (!handler && this.options.unknownTool === 'ignore') return;
    const answering = this.answer(call, handler);
    // Awaited in settle(); until then a failure must not count as unhandled.
    answering.catch(() => {});
    this.running.push(answering);
  }

  private async answer(call: ToolCall, handler: ToolHandlers[string] | undefined): Promise<void> {
    let body: ToolResultBody;
    if (!handler) {
      body = { toolCallId: call.toolCallId, error: `This client has no handler for the tool "${call.toolName}"` };
    } else {
      try {
        const output = await handler(call.input, call);
        body = { toolCallId: call.toolCallId, output: output === undefined ? null : output };
      } catch (error) {
        body = { toolCallId: call.toolCallId, error: error instanceof Error ? error.message : String(error) };
      }
    }
    try {
      await this.transport.json(
        { method: 'POST', path: path`/session/${call.sessionId}/tool-result`, json: body, idempotent: true },
        { signal: this.options.signal },
      );
      this.answered.push(call);
    } catch (error) {
      // Answered already (by us before a restart, or another client), timed out or aborted: nothing to do.
      if (!(error instanceof ConflictError)) throw error;
    }
  }

  async settle(): Promise<void> {
    await Promise.all(this.running);
  }
}

function clientCall(sessionId: string, event: SessionEvent): ToolCall | undefined {
  if (event.type !== 'tool.call' || event.executor !== 'client') return undefined;
  return {
    sessionId,
    messageId: event.messageId,
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    input: event.input,
    ...(event.idempotencyKey !== undefined ? { idempotencyKey: event.idempotencyKey } : {}),
  };
}

export async function runWithTools(
  transport: Transport,
  stream: TurnStream,
  sessionId: string,
  options: ToolRunOptions,
): Promise<ToolRunResult> {
  const answerer = new ToolAnswerer(transport, options);
  for await (const event of stream) {
    options.onEvent?.(event);
    const call = clientCall(sessionId, event);
    if (call) answerer.take(call);
  }
  await answerer.settle();
  const end = await stream.done();
  return { end, text: await stream.text(), finalMessage: await stream.finalMessage(), answered: answerer.answered };
}

export async function resumeTools(transport: Transport, sessionId: string, options: ToolRunOptions): Promise<ToolRunResult | undefined> {
  const session = await transport.json<SessionWithMessages>(
    { method: 'GET', path: path`/session/${sessionId}`, idempotent: true },
    { signal: options.signal },
  );
  const waiting = session.waitingFor;
  if (!waiting || waiting.kind !== 'tool') return undefined;
  const answerer = new ToolAnswerer(transport, options);
  for (const call of waiting.toolCalls) answerer.take({ sessionId, ...call });
  // The turn goes on once its calls are answered and may call client tools again: follow it to its end.
  const follow = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, follow.signal]) : follow.signal;
  let end: TurnEnd | undefined;
  let finalMessage: MessageView | undefined;
  for await (const event of sessionEvents(transport, sessionId, { after: session.lastSeq, follow: true, signal })) {
    options.onEvent?.(event);
    const call = clientCall(sessionId, event);
    if (call) answerer.take(call);
    if (event.type === 'message.completed' && event.message.role === 'assistant') finalMessage = event.message;
    if (TERMINAL.has(event.type)) {
      end = event as TurnEnd;
      break;
    }
  }
  await answerer.settle();
  const text = finalMessage ? finalMessage.parts.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
  return { end, text, finalMessage, answered: answerer.answered };
}
