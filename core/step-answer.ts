// What a model step makes of the answer it streamed: the parts its message stores, whether the answer
// ends the turn, and what the step reports to its workflow. Pure: activities/turn/model-step.ts reads,
// calls the model and writes; these rules decide. No I/O here.
import type { MessagePart, TokenUsage } from '../contract/events.ts';
import type { ModelStepInput, StepResult, ToolCall } from './turn-types.ts';

/** The answer as the model streamed it: its text and the tools it called. */
export interface StreamedAnswer {
  text: string;
  toolCalls: ToolCall[];
}

/** A structured reply's check (bundle `jsonReply`): its JSON when valid. */
export type ReplyCheck = { ok: true; json: unknown } | { ok: false; errors: string[] };

/** The parts a finished step stores: its text, its tool calls, and a valid structured reply's JSON beside the text it was read from. */
export function answerParts(answer: StreamedAnswer, reply: ReplyCheck | undefined): MessagePart[] {
  return [
    ...(answer.text ? [{ type: 'text' as const, text: answer.text }] : []),
    ...answer.toolCalls.map((call) => ({ type: 'tool-call' as const, ...call })),
    ...(reply?.ok ? [{ type: 'json' as const, json: reply.json }] : []),
  ];
}

/** A final answer ends the turn: no tool call, and a structured reply, when one is asked for, valid. */
export function isFinalAnswer(answer: StreamedAnswer, reply: ReplyCheck | undefined): boolean {
  return answer.toolCalls.length === 0 && (!reply || reply.ok);
}

/**
 * The turn's end a final answer writes in the transaction that stores its message, when the workflow
 * asked the step to end its turn (`turnTotals`); undefined otherwise.
 */
export function turnCompletionOf(
  input: Pick<ModelStepInput, 'turnId' | 'turnTotals'>,
  messagesTurnId: string,
  readUserMessageIds: readonly string[],
  final: boolean,
):
  | { turnId: string; messagesTurnId: string; readUserMessageIds: readonly string[]; priorUsage: TokenUsage; priorCostUsd: number | null }
  | undefined {
  if (!input.turnTotals || !final) return undefined;
  return {
    turnId: input.turnId,
    messagesTurnId,
    readUserMessageIds,
    priorUsage: input.turnTotals.usage,
    priorCostUsd: input.turnTotals.costUsd,
  };
}

/** The turn a step's messages belong to: a regenerated turn writes into its user message's turn. */
export function messagesTurnOf(input: Pick<ModelStepInput, 'turnId' | 'userMessageId'>): string {
  return input.userMessageId ?? input.turnId;
}

/**
 * The user messages of its turn a step read: its own, and those that steered the turn before the read.
 * A message steering it after the read needs another step (workflows/turn.ts compares them).
 */
export function readUserMessageIds(history: ReadonlyArray<{ id: string; role: string; turnId?: string | null }>, turnId: string): string[] {
  return history.filter((message) => message.role === 'user' && message.turnId === turnId).map((message) => message.id);
}

/** What a step reports of a stored message: its text and tool calls read back from its parts. */
export function stepResultOf(
  messageId: string,
  parts: readonly MessagePart[],
  usage: TokenUsage | null | undefined,
  costUsd: number | null,
): StepResult {
  const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const toolCalls = parts.flatMap((part) =>
    part.type === 'tool-call' ? [{ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input }] : [],
  );
  return {
    messageId,
    text,
    toolCalls,
    finishReason: toolCalls.length ? 'tool-calls' : 'stop',
    usage: usage ?? { inputTokens: 0, outputTokens: 0 },
    costUsd,
  };
}

/**
 * The step ends without an answer and asks its turn to compact the conversation first: past the
 * threshold before the call, or refused by the provider as too long. Its message stays claimed; its next
 * run (after the compaction) takes it over and counts its attempts on from `attempts`.
 */
export function compactFirst(
  messageId: string,
  reason: 'threshold' | 'context-length',
  tokensBefore: number,
  windowTokens: number,
  attempts: number,
): StepResult {
  return {
    ...stepResultOf(messageId, [], null, null),
    finishReason: 'compact',
    compact: { reason, tokensBefore, windowTokens, attempts },
  };
}
