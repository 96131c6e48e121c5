// Storing a model step's answer, and what the step then reports to its workflow: the message with its
// usage and cost (and the turn's end, for a final answer), its tool calls classified (which run, which
// ask first, which are refused), and why a structured reply is not valid.
import type { MessagePart } from '../../contract/events.ts';
import { answerParts, isFinalAnswer, stepResultOf, turnCompletionOf } from '../../core/step-answer.ts';
import { TOOL_POLICY_RULES, type ModelStepInput, type StepResult, type ToolCall } from '../../core/turn-types.ts';
import type { ModelRef } from '../../contract/bundle.ts';
import { toolCallIdempotencyKey } from '../../lib/tool-call-keys.ts';
import { finishAssistantMessage } from '../../store/messages.ts';
import { costUsd } from '../model/pricing.ts';
import { shownUsage, stepTokens } from '../model/step-usage.ts';
import { allRunByService } from '../tools/index.ts';
import { classifyToolCalls, type ApprovalContext } from '../tools/classify.ts';
import { checkJsonReply, type JsonReplyCheck } from './json-reply.ts';
import { withinQuestionLimit } from './question-limit.ts';
import type { CachedRevision } from './revision-cache.ts';
import type { StepAttempt } from './step-attempt.ts';
import type { ModelStepDeps } from './step-deps.ts';
import type { ReadStream } from './step-stream.ts';
import { recordStepUsage, recordTurnDuration } from './turn-metrics.ts';
import { handBackFromStep } from './step-hand-back.ts';
import { startTaskNotifications } from './task-notifications.ts';

export interface StepScope {
  input: ModelStepInput;
  revision: CachedRevision;
  ref: ModelRef;
  /** The attempt at the message, counted across compactions. */
  attempt: number;
  messagesTurnId: string;
  approvals: ApprovalContext;
  /** Whether the credentials' provider reports cache reads and writes. */
  showsCacheCounts: boolean;
}

/** Stores the answer the stream gave (or finds the one another attempt stored first) and reports it. */
export async function finishStep(
  deps: ModelStepDeps,
  scope: StepScope,
  read: ReadStream,
  turnUserMessageIds: readonly string[],
  attempt: StepAttempt,
): Promise<StepResult> {
  const { input, ref, revision } = scope;
  const { bundle } = revision;
  const usage = read.end?.usage;
  const tokens = stepTokens(usage);
  const priced = usage ? costUsd(ref, usage, read.end?.providerMetadata, deps.config.pricing) : null;
  // Under a budget, a call nothing priced is charged at the price it was held at.
  attempt.cost = priced ?? attempt.hold?.fallbackCost(usage, attempt.meter.writtenTokens()) ?? null;
  attempt.chat?.end({
    finishReason: read.end?.finishReason ?? 'other',
    usage: tokens,
    costUsd: attempt.cost,
    text: read.text,
    toolCalls: read.toolCalls,
  });
  const reply =
    bundle.jsonReply && read.toolCalls.length === 0 ? await checkJsonReply(deps.schemaChecks, bundle.jsonReply, read.text) : undefined;
  const classified = await classify(deps, scope, read.toolCalls);
  const final = isFinalAnswer(read, reply);
  const completesTurn = turnCompletionOf(input, scope.messagesTurnId, turnUserMessageIds, final);
  const finished = await finishAssistantMessage(deps.db, {
    sessionId: input.sessionId,
    messageId: input.messageId,
    attempt: scope.attempt,
    parts: answerParts(read, reply),
    status: 'complete',
    usage: shownUsage(tokens, scope.showsCacheCounts),
    costUsd: attempt.cost,
    ...(attempt.hold ? { releasesHolds: [attempt.hold.key] } : {}),
    events: () =>
      classified.map(({ inputError: _inputError, approval: _approval, asksTeam: _asksTeam, executor, ...call }) => ({
        type: 'tool.call' as const,
        data: {
          messageId: input.messageId,
          ...call,
          // The service runs an agent call (a child session); only the client's own calls say `client`.
          executor: executor === 'client' ? executor : ('service' as const),
          idempotencyKey: toolCallIdempotencyKey(input.sessionId, input.messageId, call.toolCallId),
        },
      })),
    ...(completesTurn ? { completesTurn } : {}),
  });
  const { message, turnCompleted, turnAgeSeconds, completionSubscribed, stored } = finished;
  attempt.settled = stored;
  // An A2A client waits to be told the task completed (store/a2a-push.ts).
  if (finished.pushed) await startTaskNotifications(deps, finished.pushed);
  // Its end is written: the agent whose call this turn answers gets the reply now.
  const handedBack = turnCompleted && input.replyTo ? await handBackFromStep(deps, input) : false;
  if (turnAgeSeconds !== undefined) recordTurnDuration('completed', turnAgeSeconds);
  recordStepUsage(ref.providerId, tokens, attempt.cost);
  // The next step sends the same files; keep them only if it follows at once. A question to a person (or
  // a client's tool) may take days, and the files are read again then.
  attempt.keepFiles = allRunByService(bundle, read.toolCalls, revision.skills, revision.remoteTools);
  const done = stepResultOf(message.id, message.parts, message.usage, message.costUsd ?? null);
  return {
    // The calls as classified for their events and the reply as checked, unless another attempt stored its own first.
    ...(await reported(deps, scope, done, message.parts, stored ? { classified, reply } : undefined)),
    turnUserMessageIds: [...turnUserMessageIds],
    finishReason: read.end?.finishReason ?? 'other',
    ...(turnCompleted ? { turnCompleted: true } : {}),
    ...(turnCompleted && completionSubscribed === false ? { completionUnsubscribed: true } : {}),
    ...(handedBack ? { answerHandedBack: true } : {}),
  };
}

/**
 * What the step reports of a stored message (its own, or one an earlier attempt finished): its tool calls
 * classified and within the user's open questions, and why a structured reply is not valid.
 */
export async function reported(
  deps: ModelStepDeps,
  scope: Pick<StepScope, 'input' | 'revision' | 'approvals'>,
  done: StepResult,
  parts: MessagePart[],
  /** What this attempt found of the message it stored: its calls classified, its reply checked (if it had to be). */
  own?: { classified: ToolCall[]; reply: JsonReplyCheck | undefined },
): Promise<StepResult> {
  const calls = own?.classified ?? (await classify(deps, scope, done.toolCalls));
  return {
    ...done,
    toolCalls: await withinQuestionLimit(deps.db, scope.input.userId, deps.config.limits.openApprovalsPerUser, calls),
    policies: TOOL_POLICY_RULES,
    ...(await replyErrorsOf(deps, scope.revision.bundle, done, parts, own?.reply)),
  };
}

function classify(deps: ModelStepDeps, scope: Pick<StepScope, 'revision' | 'approvals'>, calls: readonly ToolCall[]): Promise<ToolCall[]> {
  const { bundle, skills, remoteTools, callableAgents } = scope.revision;
  return classifyToolCalls(deps.schemaChecks, bundle, skills, calls, remoteTools, scope.approvals, callableAgents);
}

/** With `jsonReply`, why a finished reply (no tool calls, no valid JSON part) is not valid; read from what is stored. */
async function replyErrorsOf(
  deps: ModelStepDeps,
  bundle: CachedRevision['bundle'],
  done: StepResult,
  parts: MessagePart[],
  checked: JsonReplyCheck | undefined,
): Promise<Pick<StepResult, 'replyErrors' | 'replyRetries'>> {
  if (!bundle.jsonReply || done.toolCalls.length > 0 || parts.some((part) => part.type === 'json')) return {};
  const check = checked ?? (await checkJsonReply(deps.schemaChecks, bundle.jsonReply, done.text));
  return check.ok ? {} : { replyErrors: check.errors, replyRetries: bundle.jsonReply.retries };
}
