// The rules of a turn's client tool calls (custom tools the client runs), with no Temporal in them:
// which answers a turn takes, which it refuses and why, and what the model reads for a call nobody
// answered. workflows/client-tools.ts wires this to the turn's Update handler, its timeout and the
// activities that announce each answer; test/unit/core/client-tool-calls.test.ts drives it alone.
import type { ToolCall, ToolResultPart } from './turn-types.ts';
import type { TokenUsage } from '../contract/events.ts';

export interface ToolResultInput {
  /** The assistant message whose tool call this answers (the `messageId` of its tool.call event). */
  messageId: string;
  toolCallId: string;
  /** The result, any JSON; or `error`, a message the model reads as the tool's failure. */
  output?: unknown;
  error?: string;
  /** Another agent's call: what its child's turn spent, counted in the calling turn's usage. */
  spent?: { usage: TokenUsage; costUsd: number | null };
}

/** What the model reads when a call was never answered. */
export const NO_CLIENT_RESULT = 'No result from the client: the call was not answered in time.';

interface Awaited {
  call: ToolCall;
  result?: ToolResultPart;
}

export class ClientToolCalls {
  /** Model steps this turn has started, by their message id: an answer names one of them. */
  private readonly steps = new Set<string>();
  /** Steps whose tool calls are known (their result came back). */
  private readonly stepsDone = new Set<string>();
  /** Calls waiting for the client, by `<messageId> <toolCallId>`. */
  private readonly waiting = new Map<string, Awaited>();
  /** Calls answered, timed out or abandoned: any later answer is refused. */
  private readonly closed = new Set<string>();

  /** A model step is about to run with this message id. */
  stepStarted(messageId: string): void {
    this.steps.add(messageId);
  }

  /** Its result is in: `calls` are the client calls it asked for (possibly none). */
  stepDone(messageId: string, calls: readonly ToolCall[]): void {
    for (const call of calls) this.waiting.set(key(messageId, call.toolCallId), { call });
    this.stepsDone.add(messageId);
  }

  /** Whether the step is one of this turn's: an answer for another turn's step is none of its business. */
  hasStep(messageId: string): boolean {
    return this.steps.has(messageId);
  }

  /** Whether the step's calls are known yet: an answer may arrive before the step's result does. */
  isStepDone(messageId: string): boolean {
    return this.stepsDone.has(messageId);
  }

  /** Why an answer is refused before it is accepted (the Update's validator), or undefined. */
  refusal(answer: ToolResultInput): string | undefined {
    if (!this.steps.has(answer.messageId)) return "is not one of this turn's";
    if (this.closed.has(key(answer.messageId, answer.toolCallId))) return 'is answered already, or no longer awaited';
    if ((answer.output === undefined) === (answer.error === undefined)) return 'needs exactly one of output and error';
    return undefined;
  }

  /**
   * Takes an answer once its step is done: the call's result, taken at once so a second answer is
   * refused rather than recorded twice; or why it is refused.
   */
  take(answer: ToolResultInput): { result: ToolResultPart } | { refused: string } {
    const id = key(answer.messageId, answer.toolCallId);
    const entry = this.waiting.get(id);
    if (!entry || entry.result || this.closed.has(id)) return { refused: 'is not awaited from the client' };
    const isError = answer.error !== undefined;
    entry.result = {
      type: 'tool-result',
      toolCallId: answer.toolCallId,
      toolName: entry.call.toolName,
      output: isError ? answer.error : answer.output,
      ...(isError ? { isError: true } : {}),
    };
    this.closed.add(id);
    return { result: entry.result };
  }

  /** Whether this call has its answer. */
  hasResult(messageId: string, toolCallId: string): boolean {
    return this.waiting.get(key(messageId, toolCallId))?.result !== undefined;
  }

  /** Whether every one of the step's `calls` has its answer. */
  allAnswered(messageId: string, calls: readonly ToolCall[]): boolean {
    return calls.every((call) => this.waiting.get(key(messageId, call.toolCallId))?.result);
  }

  /**
   * The wait is over (all answered, or the timeout): no later answer is taken, and each call has its
   * result, NO_CLIENT_RESULT for one nobody answered.
   */
  close(messageId: string, calls: readonly ToolCall[]): ToolResultPart[] {
    return calls.map((call) => {
      const id = key(messageId, call.toolCallId);
      this.closed.add(id);
      return (
        this.waiting.get(id)?.result ?? {
          type: 'tool-result',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: NO_CLIENT_RESULT,
          isError: true,
        }
      );
    });
  }
}

function key(messageId: string, toolCallId: string): string {
  return `${messageId} ${toolCallId}`;
}
